package io.nodegate.render.output;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Names and labels from a cluster are data: in table, wide and name output their control characters are shown
 * escaped, never sent to the terminal; json and yaml keep them as data (their encoders escape them).
 */
class TerminalTextTest {

    /** xterm's "set window title" (OSC 0, ended by BEL), a colour, a screen clear and a carriage return. */
    private static final String HOSTILE = "gpu-\u001b]0;owned\u0007\u001b[31m\u001b[2J\r-a1";
    private static final String SHOWN = "gpu-\\x1b]0;owned\\x07\\x1b[31m\\x1b[2J\\x0d-a1";

    @Test
    void controlCharactersAreShownEscapedAndLineBreaksKept() {
        assertThat(TerminalText.escape("plain name\nnext line")).isEqualTo("plain name\nnext line");
        assertThat(TerminalText.escape(HOSTILE)).isEqualTo(SHOWN);
        assertThat(TerminalText.escape("a\tb\u007f\u009b\u202eevil")).isEqualTo("a\\x09b\\x7f\\x9b\\u202eevil");
    }

    @Test
    void tableWideAndNameOutputEscapeANodesNameAndLabelsWhileJsonKeepsThem(@TempDir Path tmp) {
        ApiTestServer api = ApiTestServer.start();
        try {
            api.create(new NodeBuilder().withNewMetadata().withName(HOSTILE)
                    .withLabels(Map.of("node-role.kubernetes.io/worker", "true", "rack", "r1\u001b[8m"))
                    .endMetadata().build());
            Path kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));
            for (String format : new String[]{"table", "wide"}) {
                CliRun run = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "-o", format);
                assertThat(run.out()).as(run.all()).contains(SHOWN).doesNotContain("\u001b").doesNotContain("\u0007")
                        .doesNotContain("\r");
            }
            CliRun json = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "-o", "json");
            assertThat(json.out()).as(json.all()).contains("gpu-\\u001B]0;owned\\u0007").doesNotContain("\u001b");
        } finally {
            api.close();
        }
    }
}
