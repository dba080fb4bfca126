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
        assertThat(zsh.out()).startsWith("#compdef nodegate").contains("compdef _nodegate nodegate")
                .contains("nodegate __complete").doesNotContain("bashcompinit").doesNotContain("compgen");
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

    /** Names a kubeconfig (or, for Nodes, a cluster) may hold that run code if a shell expands them. */
    private static final String CTX_DOLLAR = "prod-$(touch${IFS}ctx-marker-1)";
    private static final String CTX_BACKTICK = "lab-`id>ctx-marker-2`";
    private static final String NODE_DOLLAR = "n-$(touch${IFS}node-marker-1)";
    private static final String NODE_BACKTICK = "m-`id>node-marker-2`";

    /**
     * The real `nodegate __complete` answers for a kubeconfig whose contexts, and a cluster whose Nodes, carry
     * command substitutions; written to files the shells' stand-in for `nodegate` prints as they are.
     */
    private static Path hostileAnswers(Path tmp) throws Exception {
        Path answers = Files.createDirectories(tmp.resolve("answers"));
        ApiTestServer api = ApiTestServer.start();
        try {
            api.create(new NodeBuilder().withNewMetadata().withName(NODE_DOLLAR).endMetadata().build(),
                    new NodeBuilder().withNewMetadata().withName(NODE_BACKTICK).endMetadata().build());
            Path kubeconfig = Files.writeString(tmp.resolve("kubeconfig"), """
                    apiVersion: v1
                    kind: Config
                    clusters:
                    - name: c
                      cluster:
                        server: %s
                    users:
                    - name: u
                      user:
                        token: test-token-not-a-secret
                    contexts:
                    - name: '%s'
                      context: {cluster: c, user: u}
                    - name: '%s'
                      context: {cluster: c, user: u}
                    current-context: '%s'
                    """.formatted(api.url(), CTX_DOLLAR, CTX_BACKTICK, CTX_DOLLAR));
            List<String> contexts = complete("gate", "--kubeconfig", kubeconfig.toString(), "--context", "");
            assertThat(contexts).containsExactlyInAnyOrder(CTX_DOLLAR, CTX_BACKTICK, ":4");
            Files.writeString(answers.resolve("contexts"), String.join("\n", contexts) + "\n");
            List<String> nodes = complete("gate", "--kubeconfig", kubeconfig.toString(), "");
            assertThat(nodes).containsExactlyInAnyOrder(NODE_DOLLAR, NODE_BACKTICK, ":4");
            Files.writeString(answers.resolve("nodes"), String.join("\n", nodes) + "\n");
        } finally {
            api.close();
        }
        return answers;
    }

    private static void assertNothingRan(Path dir) throws Exception {
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.contains("marker"));
        }
    }

    private static String runShell(Path dir, String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(out).isTrue();
        return out;
    }

    /**
     * bash: Tab on --context and on a NODE argument with hostile names: nothing runs, each name is offered, and
     * what bash would put on the line (the quoted reply) reads back, through the shell's own parsing, as the
     * name itself.
     */
    @Test
    void bashOffersHostileContextAndNodeNamesWithoutRunningThem(@TempDir Path tmp) throws Exception {
        Path answers = hostileAnswers(tmp);
        Path work = Files.createDirectories(tmp.resolve("work"));
        Path script = Files.writeString(tmp.resolve("nodegate.bash"), CliRun.run("completion", "bash").out());
        String probe = "nodegate() { cat \"$ANSWER\"; }\n"
                + "source " + script + "\n"
                + "show() { local w; for w in \"${COMPREPLY[@]}\"; do eval \"printf '%s<%s>\\n' $1 $w\"; done; }\n"
                + "ANSWER=" + answers.resolve("contexts") + "\n"
                + "COMP_WORDS=(nodegate gate --context ''); COMP_CWORD=3; _complete_nodegate; show ctx\n"
                + "COMP_WORDS=(nodegate gate --context la); COMP_CWORD=3; _complete_nodegate; show la\n"
                + "ANSWER=" + answers.resolve("nodes") + "\n"
                + "COMP_WORDS=(nodegate gate ''); COMP_CWORD=2; _complete_nodegate; show node\n";
        String out = runShell(work, "bash", "--norc", "-c", probe);
        assertNothingRan(work);
        assertThat(out.lines()).containsExactlyInAnyOrder("ctx<" + CTX_DOLLAR + ">", "ctx<" + CTX_BACKTICK + ">",
                "la<" + CTX_BACKTICK + ">", "node<" + NODE_DOLLAR + ">", "node<" + NODE_BACKTICK + ">");
    }

    /**
     * zsh: a real interactive zsh (under zsh's own pseudo-terminal module) loads the script, the line is typed
     * with a Tab, and a key bound to a widget writes the edited line to a file: the name is on it, quoted, and
     * nothing ran.
     */
    @Test
    void zshCompletesHostileContextAndNodeNamesWithoutRunningThem(@TempDir Path tmp) throws Exception {
        String zsh = io.nodegate.testing.EtcdCluster.requireOnPath("zsh",
                "zsh is required in CI (apt-get install zsh; bin/test installs it)",
                "zsh not installed: skipping the zsh completion test (bin/test installs Debian's zsh)");
        Path answers = hostileAnswers(tmp);
        Path work = Files.createDirectories(tmp.resolve("work"));
        Path script = Files.writeString(tmp.resolve("nodegate.zsh"), CliRun.run("completion", "zsh").out());
        StringBuilder driver = new StringBuilder("zmodload zsh/zpty\n")
                .append("zpty -b z '").append(zsh).append(" -f -i'\n")
                .append("zpty -w z 'PS1=\"> \"; nodegate() { cat \"$ANSWER\"; }'\n")
                .append("zpty -w z 'source ").append(script).append("'\n")
                .append("zpty -w z 'dump() { print -r -- \"${(Q)${(z)BUFFER}[-1]}\" > \"$OUT\"; BUFFER=; };"
                        + " zle -N dump; bindkey \"^X\" dump'\n");
        String[][] cases = {{"contexts", "nodegate gate --context pr", "ctx1"},
                {"contexts", "nodegate gate --context la", "ctx2"},
                {"nodes", "nodegate gate n", "node1"}, {"nodes", "nodegate gate m", "node2"}};
        for (String[] c : cases) {
            Path result = tmp.resolve(c[2]);
            driver.append("zpty -w z 'ANSWER=").append(answers.resolve(c[0])).append("; OUT=").append(result)
                    .append("'\n")
                    .append("zpty -w -n z $'").append(c[1]).append("\\t\\x18'\n")
                    // wait on the widget's file: a condition, with a budget for a loaded machine
                    .append("for i in {1..600}; do [[ -s ").append(result).append(" ]] && break; sleep 0.1; done\n");
        }
        driver.append("zpty -d z\n");
        String out = runShell(work, zsh, "-f", "-c", driver.toString());
        assertNothingRan(work);
        assertThat(Files.readString(tmp.resolve("ctx1")).strip()).as(out).isEqualTo(CTX_DOLLAR);
        assertThat(Files.readString(tmp.resolve("ctx2")).strip()).as(out).isEqualTo(CTX_BACKTICK);
        assertThat(Files.readString(tmp.resolve("node1")).strip()).as(out).isEqualTo(NODE_DOLLAR);
        assertThat(Files.readString(tmp.resolve("node2")).strip()).as(out).isEqualTo(NODE_BACKTICK);
    }

    /** fish offers the hostile names as they are, and runs none of them. */
    @Test
    void fishOffersHostileNamesWithoutRunningThem(@TempDir Path tmp) throws Exception {
        String fish = io.nodegate.testing.EtcdCluster.requireOnPath("fish",
                "fish is required in CI (apt-get install fish; bin/test installs it)",
                "fish not installed: skipping the fish completion test (bin/test installs Debian's fish)");
        Path answers = hostileAnswers(tmp);
        Path work = Files.createDirectories(tmp.resolve("work"));
        Path script = Files.writeString(tmp.resolve("nodegate.fish"), CliRun.run("completion", "fish").out());
        String probe = "function nodegate\n    cat $ANSWER\nend\nsource " + script + "\n"
                + "set ANSWER " + answers.resolve("contexts") + "\n"
                + "for c in (complete -C 'nodegate gate --context '); echo \"ctx<$c>\"; end\n"
                + "set ANSWER " + answers.resolve("nodes") + "\n"
                + "for c in (complete -C 'nodegate gate '); echo \"node<$c>\"; end\n";
        String out = runShell(work, fish, "--no-config", "-c", probe);
        assertNothingRan(work);
        assertThat(out.lines()).containsExactlyInAnyOrder("ctx<" + CTX_DOLLAR + ">", "ctx<" + CTX_BACKTICK + ">",
                "node<" + NODE_DOLLAR + ">", "node<" + NODE_BACKTICK + ">");
    }

    /** A context name with a line break is left out (it cannot be one line of the answer), not split. */
    @Test
    void namesWithControlCharactersAreNotOffered(@TempDir Path tmp) throws Exception {
        Path kubeconfig = Files.writeString(tmp.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
                users: [{name: u, user: {token: test-token-not-a-secret}}]
                contexts:
                - {name: "a\\nrm -rf x", context: {cluster: c, user: u}}
                - {name: "ok", context: {cluster: c, user: u}}
                """);
        assertThat(complete("gate", "--kubeconfig", kubeconfig.toString(), "--context", ""))
                .containsExactly("ok", ":4");
    }
}
