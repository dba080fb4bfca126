package io.nodegate.deploy;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
}
