package io.nodegate.launcher;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bin/nodegate's choice of JVM and start-up cache, run as a shell script in a copy of the checkout with stand-in
 * JDKs (a script per JDK that logs its arguments and writes the cache file the real JVM would), so it takes no
 * build and no real training run (TrainingRunTest runs the real one). What must hold: a JDK 25 gets an ahead-of-time cache and 17-24 the class-data
 * archive; the cache is trained once and rebuilt whenever the jar is not the one it was written from, even when
 * the new jar is not newer by its time (JDK 25.0.3 would otherwise run the cached old classes, JDK-8377932); a
 * failed training leaves no cache and the command still runs.
 */
class LauncherTest {

    @TempDir
    Path dir;
    Path checkout;
    Path jdk25;
    Path jdk17;

    @BeforeEach
    void checkoutWithStandInJdks() throws IOException {
        checkout = dir.resolve("checkout");
        Files.createDirectories(checkout.resolve("bin"));
        Files.createDirectories(checkout.resolve("src/main/java"));
        Files.createDirectories(checkout.resolve("examples/healthy"));
        Files.createDirectories(checkout.resolve("target"));
        Files.copy(Path.of("bin/nodegate"), checkout.resolve("bin/nodegate"));
        executable(checkout.resolve("bin/nodegate"));
        Files.writeString(checkout.resolve("pom.xml"), "<project/>");
        Files.writeString(checkout.resolve("target/nodegate.jar"), "jar, first build");
        // sources older than the jar: the launcher must not try to build
        FileTime old = FileTime.from(Instant.now().minusSeconds(3600));
        Files.setLastModifiedTime(checkout.resolve("pom.xml"), old);
        Files.setLastModifiedTime(checkout.resolve("src/main/java"), old);
        jdk25 = standInJdk("jdk25", "25.0.3");
        jdk17 = standInJdk("jdk17", "17.0.15");
    }

    @Test
    void aJdk25InJavaHomeGetsAnAheadOfTimeCacheTrainedOnceThenUsed() throws Exception {
        Map<String, String> env = Map.of("JAVA_HOME", jdk25.toString());
        assertThat(launch(env, "audit", "-f", "x")).isEqualTo("ran audit -f x\n");
        List<String> calls = calls(jdk25);
        assertThat(calls).hasSize(4);
        // one JVM serves examples/healthy, another records the cache from a real live audit against it
        assertThat(calls.get(0)).contains("io.nodegate.launcher.TrainingRun --serve " + checkout.resolve("examples/healthy"))
                .doesNotContain("AOTCacheOutput");
        assertThat(calls.get(1)).contains("-XX:AOTCacheOutput=" + checkout.resolve("target/nodegate.aot."))
                .contains("-jar " + jar() + " audit --kubeconfig " + checkout.resolve("target/nodegate.aot."))
                .endsWith("-o json");
        assertThat(calls.get(2)).contains("-XX:AOTMode=on").endsWith("--version");
        assertThat(calls.get(3)).contains("-XX:AOTCache=" + checkout.resolve("target/nodegate.aot") + " ")
                .contains("-Xlog:aot*=off").endsWith("-jar " + jar() + " audit -f x");
        // Java 25 refuses -Xshare next to -XX:AOTCacheOutput, and the archive flags mean nothing here
        assertThat(String.join("\n", calls)).doesNotContain("-Xshare").doesNotContain("SharedArchiveFile");
        assertThat(calls(jdk17)).isEmpty();
        assertThat(checkout.resolve("target/nodegate.aot")).exists();
        try (var files = Files.list(checkout.resolve("target"))) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".tmp"));
        }

        assertThat(launch(env, "audit")).isEqualTo("ran audit\n");
        assertThat(calls(jdk25)).hasSize(5); // current cache: no second training
    }

    @Test
    void aJarThatIsNotTheOneTheCacheWasWrittenFromRetrainsEvenWhenItIsNotNewer() throws Exception {
        Map<String, String> env = Map.of("JAVA_HOME", jdk25.toString());
        launch(env, "audit");
        assertThat(calls(jdk25)).hasSize(4);
        // another build copied in with its old time kept (cp -p, an unpacked release): older than the cache
        Files.writeString(jar(), "jar, a different build");
        Files.setLastModifiedTime(jar(), FileTime.from(Instant.now().minusSeconds(60)));
        launch(env, "audit");
        List<String> calls = calls(jdk25);
        assertThat(calls).hasSize(8);
        assertThat(calls.get(5)).contains("-XX:AOTCacheOutput=");
    }

    @Test
    void anotherJdkRetrainsTheCache() throws Exception {
        launch(Map.of("JAVA_HOME", jdk25.toString()), "audit");
        Path otherJdk25 = standInJdk("jdk25-other", "25.0.4");
        launch(Map.of("JAVA_HOME", otherJdk25.toString()), "audit");
        assertThat(calls(otherJdk25)).hasSize(4).element(1).asString().contains("-XX:AOTCacheOutput=");
    }

    @Test
    void java17GetsTheClassDataArchiveAndNoAheadOfTimeFlags() throws Exception {
        assertThat(launch(Map.of("NODEGATE_JAVA", jdk17.resolve("bin/java").toString()), "audit")).isEqualTo("ran audit\n");
        List<String> calls = calls(jdk17);
        assertThat(calls).hasSize(3);
        assertThat(calls.get(0)).contains("-XX:ArchiveClassesAtExit=" + checkout.resolve("target/nodegate.jsa."));
        assertThat(calls.get(1)).contains("-Xshare:on").endsWith("--version");
        assertThat(calls.get(2)).contains("-Xshare:auto", "-XX:SharedArchiveFile=" + checkout.resolve("target/nodegate.jsa"));
        assertThat(String.join("\n", calls)).doesNotContain("AOT").doesNotContain("-Xlog:aot");
        assertThat(calls(jdk25)).isEmpty();
    }

    @Test
    void aFailedTrainingLeavesNoCacheAndTheCommandStillRuns() throws Exception {
        Map<String, String> env = Map.of("JAVA_HOME", jdk25.toString(), "STAND_IN_TRAINING_FAILS", "1");
        assertThat(launch(env, "audit")).isEqualTo("ran audit\n");
        List<String> calls = calls(jdk25);
        assertThat(calls.get(calls.size() - 1)).doesNotContain("-XX:AOTCache=").endsWith("audit");
        try (var files = Files.list(checkout.resolve("target"))) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("nodegate.aot"));
        }
        assertThat(String.join("\n", calls)).contains("--serve"); // it did try
    }

    @Test
    void nodegateCdsZeroTrainsNothing() throws Exception {
        Map<String, String> env = Map.of("JAVA_HOME", jdk25.toString(), "NODEGATE_CDS", "0");
        assertThat(launch(env, "audit")).isEqualTo("ran audit\n");
        assertThat(calls(jdk25)).singleElement().asString().doesNotContain("AOTCache");
    }

    private Path jar() {
        return checkout.resolve("target/nodegate.jar");
    }

    private String launch(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", checkout.resolve("bin/nodegate").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().clear();
        // the stand-in 17 is the java on PATH, as Debian's is on the development machines
        pb.environment().put("PATH", jdk17.resolve("bin") + ":/usr/bin:/bin");
        pb.environment().putAll(env);
        pb.redirectError(dir.resolve("stderr.txt").toFile());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("exit; stderr: %s", Files.readString(dir.resolve("stderr.txt"))).isZero();
        return out;
    }

    private static List<String> calls(Path jdk) throws IOException {
        Path log = jdk.resolve("calls.log");
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    /** A JDK home whose bin/java logs its arguments and acts out the cache flags the launcher uses. */
    private Path standInJdk(String name, String version) throws IOException {
        Path home = dir.resolve(name);
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"stand-in\"\nJAVA_VERSION=\"" + version + "\"\n");
        Path java = home.resolve("bin/java");
        Files.writeString(java, String.join("\n",
                "#!/usr/bin/env bash",
                "echo \"$*\" >> \"" + home.resolve("calls.log") + "\"",
                "args=(\"$@\")",
                "for i in \"${!args[@]}\"; do",
                "  a=${args[$i]}",
                "  case \"$a\" in",
                "    --serve) echo 'kind: Config' > \"${args[$((i + 2))]}\"; exit 0 ;;",
                "    -XX:AOTCacheOutput=*|-XX:ArchiveClassesAtExit=*)",
                "      [[ -n \"${STAND_IN_TRAINING_FAILS:-}\" ]] && exit 1",
                "      echo cache > \"${a#*=}\"; exit 0 ;;",
                "    --version) exit 0 ;;",
                "  esac",
                "done",
                "while [[ $# -gt 0 && \"$1\" != -jar ]]; do shift; done",
                "shift 2",
                "echo \"ran $*\"",
                ""));
        executable(java);
        return home;
    }

    private static void executable(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
