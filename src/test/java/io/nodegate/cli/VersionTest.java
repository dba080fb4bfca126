package io.nodegate.cli;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** main() answers --version without building the command model; the answer must be picocli's, word for word. */
class VersionTest {

    @Test
    void theShortcutPrintsWhatPicocliPrints() {
        CliRun picocli = CliRun.run("--version");
        assertThat(picocli.exitCode()).isZero();
        assertThat(picocli.out()).startsWith("nodegate ");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Nodegate.printVersion(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(bytes.toString(StandardCharsets.UTF_8).replace("\r\n", "\n"))
                .isEqualTo(picocli.out().replace("\r\n", "\n"));
    }

    /** The build fills version.txt from pom.xml; bin/nodegate prints "nodegate " + its content for --version. */
    @Test
    void theVersionIsThePomsAndTheLauncherReadsTheSameFile() throws Exception {
        String pom = java.nio.file.Files.readString(java.nio.file.Path.of("pom.xml"));
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("<artifactId>nodegate</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertThat(m.find()).as("pom.xml names nodegate's version").isTrue();
        assertThat(VersionProvider.version()).isEqualTo(m.group(1));
        assertThat(CliRun.run("--version").out().trim()).isEqualTo("nodegate " + m.group(1));
        assertThat(java.nio.file.Files.readString(java.nio.file.Path.of("bin/nodegate")))
                .contains("target/classes" + VersionProvider.RESOURCE);
    }
}
