package io.nodegate.cli;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An error message names what was read: a kubeconfig's context, a file, a Node. Those are data, and a terminal must
 * not act on the control characters they may carry (an OSC sequence retitles the window or writes the clipboard, CSI
 * clears the screen). The one handler every command ends in escapes them as the tables do.
 */
class ErrorMessagesAreEscapedTest {

    /** Sets the window title to "owned" in xterm-compatible terminals. */
    private static final String OSC_TITLE = "\u001b]0;owned\u0007";

    @TempDir
    Path tmp;

    @Test
    void aContextNameWithAnEscapeSequenceIsPrintedEscaped() throws IOException {
        Path kubeconfig = Files.writeString(tmp.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
                contexts: [{name: a, context: {cluster: c, user: u}}]
                users: [{name: u, user: {token: not-a-token}}]
                current-context: a
                """);
        CliRun run = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "--context", "lab" + OSC_TITLE);
        assertThat(run.exitCode()).as(run.all()).isNotZero();
        assertThat(run.err()).as(run.all()).startsWith("nodegate: ").contains("lab\\x1b]0;owned\\x07")
                .doesNotContain("\u001b").doesNotContain("\u0007");
    }

    @Test
    void aFileNameWithAnEscapeSequenceIsPrintedEscaped() {
        Path missing = tmp.resolve("dump" + "\u001b[2J" + ".json");
        CliRun run = CliRun.run("audit", "-f", missing.toString());
        assertThat(run.exitCode()).as(run.all()).isEqualTo(2);
        assertThat(run.err()).as(run.all()).startsWith("nodegate: ").contains("dump\\x1b[2J.json")
                .doesNotContain("\u001b");
    }
}
