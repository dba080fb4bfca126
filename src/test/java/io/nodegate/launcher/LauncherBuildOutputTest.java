package io.nodegate.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first thing a new user sees is bin/nodegate building the jar. Maven 3.8 writes reset codes (ESC[0m) even in
 * batch mode into a pipe, so the first help used to start with "[0m[0m[0m[0m". Here a stand-in `mvn` prints what
 * Debian's Maven 3.8.7 prints and lays out what the build lays out; the launcher must pass none of it through, and
 * keep Maven's exit status.
 */
class LauncherBuildOutputTest {

    private static final String MAVEN_NOISE = "printf '\\033[0m\\033[0m'; printf '\\033[1;31m[ERROR]\\033[m x\\n' >&2; ";

    private static Path checkout(Path tmp, String mvnBody) throws Exception {
        Path repo = tmp.resolve("repo");
        Files.createDirectories(repo.resolve("bin"));
        Files.createDirectories(repo.resolve("src/main/java"));
        Files.copy(Path.of("bin/nodegate"), repo.resolve("bin/nodegate"));
        Files.writeString(repo.resolve("pom.xml"), "<project/>");
        Files.writeString(repo.resolve("src/main/java/A.java"), "class A {}");
        Path tools = Files.createDirectories(tmp.resolve("tools"));
        Path mvn = Files.writeString(tools.resolve("mvn"), "#!/bin/sh\n" + mvnBody + "\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        return repo;
    }

    private static Process run(Path tmp, Path repo) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(repo.resolve("bin/nodegate").toString(), "--version")
                .redirectErrorStream(true);
        pb.environment().put("PATH", tmp.resolve("tools") + ":" + System.getenv("PATH"));
        pb.environment().put("NODEGATE_CDS", "0");
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return p;
    }

    @Test
    void theFirstBuildPrintsNoEscapeCodes(@TempDir Path tmp) throws Exception {
        Path repo = checkout(tmp, MAVEN_NOISE
                + "mkdir -p target/classes/io/nodegate && echo 9.9.9 > target/classes/io/nodegate/version.txt"
                + " && : > target/nodegate.jar");
        Process p = run(tmp, repo);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("building target/nodegate.jar", "[ERROR] x", "nodegate 9.9.9")
                .doesNotContain("\u001b").doesNotContain("[0m");
    }

    @Test
    void aFailedBuildStillFails(@TempDir Path tmp) throws Exception {
        Path repo = checkout(tmp, MAVEN_NOISE + "exit 1");
        Process p = run(tmp, repo);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isNotZero();
        assertThat(out).doesNotContain("\u001b").doesNotContain("nodegate 9");
    }
}
