package io.nodegate.deploy;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fabric8.kubernetes.api.model.Quantity;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Dockerfile is not built here (no container engine or registry), so what the install manifests rely on is
 * checked in its text: the uid the Deployment runs as, the port it probes, the jar the shade plugin writes.
 */
class DockerfileTest {

    @Test
    void imageAgreesWithTheInstallManifestsAndTheBuild() throws IOException {
        String dockerfile = Files.readString(Path.of("Dockerfile"));
        String pom = Files.readString(Path.of("pom.xml"));

        assertThat(dockerfile).contains("USER " + InstallBundle.UID + ":" + InstallBundle.UID);
        assertThat(dockerfile).contains("EXPOSE " + InstallBundle.PORT);
        assertThat(pom).contains("<finalName>nodegate</finalName>");
        assertThat(dockerfile).contains("COPY --from=build /src/target/nodegate.jar /opt/nodegate/nodegate.jar")
                .contains("\"-jar\", \"/opt/nodegate/nodegate.jar\"]");
        assertThat(dockerfile).contains("CMD [\"watch\"]");
        // the release the compiler targets is the JRE the image runs
        assertThat(pom).contains("<maven.compiler.release>17</maven.compiler.release>");
        assertThat(dockerfile).contains("FROM eclipse-temurin:17-jre").contains("FROM maven:3.9-eclipse-temurin-17");
        // the read-only root filesystem: no hsperfdata writes
        assertThat(dockerfile).contains("-XX:-UsePerfData");
        assertThat(Files.readString(Path.of(".dockerignore"))).contains("!src/").contains("!pom.xml");
    }

    /**
     * The watch runs with the JVM flags chosen for its memory limit wherever it runs: the Deployment's command, the
     * image's ENTRYPOINT (a plain docker run), and the watch's benchmark, which names the Deployment's limits with
     * -XX:MaxRAM and -XX:ActiveProcessorCount (the benchmark machine has no container limit), so the RSS it measures
     * is what the pod gets.
     */
    @Test
    void theDeploymentTheImageAndTheWatchBenchmarkRunTheSameJvmFlagsUnderTheSameLimits() throws IOException {
        String dockerfile = Files.readString(Path.of("Dockerfile"));
        Matcher entrypoint = Pattern.compile("ENTRYPOINT \\[\"java\", (.*), \"-jar\"").matcher(dockerfile);
        assertThat(entrypoint.find()).as("ENTRYPOINT [\"java\", flags..., \"-jar\", ...]").isTrue();
        List<String> flags = Arrays.stream(entrypoint.group(1).split(",\\s*")).map(f -> f.replace("\"", "")).toList();
        assertThat(flags).isEqualTo(InstallBundle.WATCH_JVM_FLAGS);
        assertThat(dockerfile).contains("\"-jar\", \"" + InstallBundle.IMAGE_JAR + "\"]");
        assertThat(InstallBundle.watchCommand()).startsWith("java").containsSubsequence(InstallBundle.WATCH_JVM_FLAGS)
                .endsWith("-jar", InstallBundle.IMAGE_JAR);

        Matcher benchJvm = Pattern.compile("WATCH_JVM=\\$\\{WATCH_JVM:-\"([^\"]*)\"}")
                .matcher(Files.readString(Path.of("bench/watch.sh")));
        assertThat(benchJvm.find()).isTrue();
        List<String> benchFlags = List.of(benchJvm.group(1).split(" "));
        assertThat(benchFlags).containsAll(flags);
        long limitMiB = new Quantity(InstallBundle.MEMORY_LIMIT).getNumericalAmount().longValue() / (1024 * 1024);
        assertThat(benchFlags).contains("-XX:MaxRAM=" + limitMiB + "m")
                .contains("-XX:ActiveProcessorCount=" + InstallBundle.CPU_LIMIT)
                .noneMatch(f -> f.startsWith("-Xmx") || f.startsWith("-Xmn"));
    }
}
