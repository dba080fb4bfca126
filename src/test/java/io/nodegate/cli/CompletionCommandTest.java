package io.nodegate.cli;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shell completion as kubectl's works: the script asks `nodegate __complete` on each Tab, which answers commands,
 * options, -o formats, kubeconfig contexts and the cluster's Node names (one per line, then cobra's ":directive").
 */
class CompletionCommandTest {

    private static List<String> complete(String... words) {
        String[] args = new String[words.length + 1];
        args[0] = "__complete";
        System.arraycopy(words, 0, args, 1, words.length);
        CliRun run = CliRun.run(args);
        assertThat(run.exitCode()).as(run.all()).isZero();
        assertThat(run.err()).isEmpty();
        return run.out().lines().toList();
    }

    @Test
    void completesCommandsOptionsFormatsContextsAndNodes(@TempDir Path tmp) {
        assertThat(complete("ga")).containsExactly("gate", ":4");
        assertThat(complete("probe", "")).containsExactly("apiservers", "kubelet", ":4");
        assertThat(complete("gate", "--re")).contains("--removed-at", "--reply-from", "--request-timeout")
                .doesNotContain("--kubelet-port").endsWith(":4");
        assertThat(complete("fleet", "-o", "")).containsExactly("table", "wide", "json", "yaml", "name", ":4");
        assertThat(complete("audit", "-o", "j")).containsExactly("json", "junit", ":4");
        // a file name: the shell's own completion (directive 0)
        assertThat(complete("gate", "gpu-a11", "--baseline", "")).containsExactly(":0");
        // hidden commands and old option names are not offered
        assertThat(complete("")).contains("audit", "version", "completion").doesNotContain("__complete", "help");
        assertThat(complete("probe", "kubelet", "--")).contains("--probe-timeout").doesNotContain("--timeout");

        ApiTestServer api = ApiTestServer.start();
        try {
            api.create(new NodeBuilder().withNewMetadata().withName("gpu-a10").endMetadata().build(),
                    new NodeBuilder().withNewMetadata().withName("gpu-a11").endMetadata().build(),
                    new NodeBuilder().withNewMetadata().withName("keep-1").endMetadata().build());
            Path kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"), "prod-a");
            // contexts of the kubeconfig on the line (or kubectl's default one)
            assertThat(complete("gate", "--kubeconfig", kubeconfig.toString(), "--context", ""))
                    .containsExactly("prod-a", ":4");
            assertThat(complete("gate", "--kubeconfig", kubeconfig.toString(), "--context", "x")).containsExactly(":4");
            // Node names, read from the cluster the line names, where the command takes NODE
            assertThat(complete("gate", "--kubeconfig", kubeconfig.toString(), "gpu"))
                    .containsExactly("gpu-a10", "gpu-a11", ":4");
            assertThat(complete("probe", "kubelet", "--kubeconfig=" + kubeconfig, "gpu-a10", ""))
                    .containsExactly("gpu-a10", "gpu-a11", "keep-1", ":4");
            // remove's second argument is not a Node: nothing is offered
            assertThat(complete("remove", "gpu-a10", "--kubeconfig", kubeconfig.toString(), "")).containsExactly(":0");
        } finally {
            api.close();
        }
        // a cluster that cannot be read offers no names, and prints no error into the prompt
        Path nowhere = tmp.resolve("nowhere.yaml");
        assertThat(complete("gate", "--kubeconfig", nowhere.toString(), "")).containsExactly(":4");
    }

    /** A case of a bash function: for these words, what `nodegate __complete` printed. */
    private static String answer(String... words) {
        String answer = String.join("\n", complete(words)) + "\n";
        return "  '__complete -- " + String.join(" ", words) + "') printf '%s' '" + answer.replace("'", "") + "' ;;\n";
    }

    /** A real bash sources the script, asks `nodegate __complete` and offers what it answers (files on ":0"). */
    @Test
    void bashAndZshAndFishScripts(@TempDir Path tmp) throws Exception {
        CliRun run = CliRun.run("completion", "bash");
        assertThat(run.exitCode()).as(run.err()).isZero();
        Path script = Files.writeString(tmp.resolve("nodegate.bash"), run.out());
        // `nodegate` gives the answers the real `nodegate __complete` gave in this JVM (a JVM started from a test's
        // JVM would share its surefire channel)
        String probe = "nodegate() { case \"$*\" in\n"
                + answer("ga") + answer("gate", "--re") + answer("fleet", "-o", "") + answer("gate", "--baseline", "ba")
                + "esac; }\n"
                + "cd " + tmp + "; touch base.json\n"
                + "source " + script + "\n"
                + "complete -p nodegate\n"
                + "COMP_WORDS=(nodegate ga); COMP_CWORD=1; COMP_LINE='nodegate ga'; COMP_POINT=11\n"
                + "_complete_nodegate; echo \"cmds: ${COMPREPLY[*]}\"\n"
                + "COMP_WORDS=(nodegate gate --re); COMP_CWORD=2; COMP_LINE='nodegate gate --re'; COMP_POINT=18\n"
                + "_complete_nodegate; echo \"opts: ${COMPREPLY[*]}\"\n"
                + "COMP_WORDS=(nodegate fleet -o ''); COMP_CWORD=3\n"
                + "_complete_nodegate; echo \"formats: ${COMPREPLY[*]}\"\n"
                + "COMP_WORDS=(nodegate gate --baseline ba); COMP_CWORD=3\n"
                + "_complete_nodegate; echo \"files: ${COMPREPLY[*]}\"\n";
        Process p = new ProcessBuilder("bash", "-c", probe).redirectErrorStream(true).start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(out).contains("-F _complete_nodegate nodegate").contains("cmds: gate")
                .containsPattern("opts: .*--removed-at").contains("--reply-covers")
                .contains("formats: table wide json yaml name").contains("files: base.json");

        CliRun zsh = CliRun.run("completion", "zsh");
        assertThat(zsh.exitCode()).isZero();
        assertThat(zsh.out()).startsWith("autoload -U +X compinit && compinit").contains("bashcompinit")
                .contains("_complete_nodegate").contains("nodegate __complete");
        CliRun fish = CliRun.run("completion", "fish");
        assertThat(fish.exitCode()).isZero();
        assertThat(fish.out()).contains("complete -c nodegate -f -a '(__nodegate_complete)'")
                .contains("nodegate __complete -- $words \"$current\"");
        CliRun tcsh = CliRun.run("completion", "tcsh");
        assertThat(tcsh.exitCode()).isEqualTo(2);
        assertThat(tcsh.err()).contains("tcsh");
    }

    /**
     * A real fish (Debian's fish; bin/test installs it) loads the script and completes through the answers the
     * real `nodegate __complete` gave, as a function standing in for the program; file names on ":0".
     */
    @Test
    void fishLoadsTheScriptAndCompletes(@TempDir Path tmp) throws Exception {
        String fish = io.nodegate.testing.EtcdCluster.requireOnPath("fish",
                "fish is required in CI (apt-get install fish; bin/test installs it)",
                "fish not installed: skipping the fish completion test (bin/test installs Debian's fish)");
        CliRun run = CliRun.run("completion", "fish");
        Path script = Files.writeString(tmp.resolve("nodegate.fish"), run.out());
        Files.writeString(tmp.resolve("base.json"), "{}");
        StringBuilder stub = new StringBuilder("function nodegate\n    switch \"$argv\"\n");
        for (List<String> words : List.of(List.of("ga"), List.of("fleet", "-o", ""),
                List.of("gate", "--baseline", "ba"))) {
            stub.append("        case '__complete -- ").append(String.join(" ", words)).append("'\n");
            for (String line : complete(words.toArray(String[]::new))) {
                stub.append("            echo '").append(line.replace("'", "")).append("'\n");
            }
        }
        stub.append("    end\nend\n");
        String probe = stub + "cd " + tmp + "\nsource " + script + "\n"
                + "echo cmds: (complete -C 'nodegate ga')\n"
                + "echo formats: (complete -C 'nodegate fleet -o ')\n"
                + "echo files: (complete -C 'nodegate gate --baseline ba')\n";
        Process p = new ProcessBuilder(fish, "--no-config", "-c", probe).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(out).contains("cmds: gate").contains("formats: json name table wide yaml")
                .contains("files: base.json");
    }
}
