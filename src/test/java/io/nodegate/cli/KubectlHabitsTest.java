package io.nodegate.cli;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What a kubectl user expects without reading the help: short usage errors, -n, one name per flag. */
class KubectlHabitsTest {

    private static void assertUsageError(CliRun run, String command, String message) {
        assertThat(run.exitCode()).as(run.all()).isEqualTo(2);
        assertThat(run.out()).as("nothing on stdout: a script reading it gets no help text").isEmpty();
        List<String> lines = run.err().lines().toList();
        assertThat(lines).as(run.err()).hasSize(2);
        assertThat(lines.get(0)).startsWith(command + ": ").contains(message);
        assertThat(lines.get(1)).isEqualTo("See '" + command + " --help'.");
    }

    @Test
    void aUsageErrorIsOneLineThenWhereTheHelpIs() {
        assertUsageError(CliRun.run("gate"), "nodegate gate", "NODE");
        assertUsageError(CliRun.run("audit", "--no-such-flag"), "nodegate audit", "--no-such-flag");
        assertUsageError(CliRun.run("audit", "--batch-window", "soon"), "nodegate audit", "--batch-window");
        assertUsageError(CliRun.run("baseline"), "nodegate baseline", "missing subcommand (one of: save)");
        assertUsageError(CliRun.run("probe"), "nodegate probe", "one of: apiservers, kubelet");
        assertUsageError(CliRun.run(), "nodegate", "missing command (one of: audit, collect");
        assertUsageError(CliRun.run("probe", "kubelet"), "nodegate probe kubelet", "NODE");
    }

    @Test
    void aMistypedOptionOrCommandSaysWhatWasMeantOnTheSameLine() {
        CliRun option = CliRun.run("audit", "--contxt", "prod");
        assertUsageError(option, "nodegate audit", "--contxt");
        assertThat(option.err().lines().findFirst().orElseThrow()).contains("did you mean --context?");
        CliRun command = CliRun.run("audti");
        assertUsageError(command, "nodegate", "unknown command 'audti'");
        assertThat(command.err().lines().findFirst().orElseThrow()).containsPattern("did you mean audit\\b");
    }

    /** Every option that names a namespace answers to -n too, as kubectl's do. */
    @Test
    void everyNamespaceOptionAlsoAnswersToN() {
        List<String> namespaced = new ArrayList<>();
        walk(Nodegate.newCommandLine(), (cl, o) -> {
            if (List.of(o.names()).contains("--namespace")) {
                namespaced.add(cl.getCommandSpec().qualifiedName());
                assertThat(o.names()).as(cl.getCommandSpec().qualifiedName()).contains("-n");
            }
        });
        assertThat(namespaced).contains("nodegate watch", "nodegate remove", "nodegate install");
    }

    /** The kubelet probe's port and timeout have one name in every command (old names only hidden). */
    @Test
    void oneNameForTheKubeletProbesPortAndTimeout() {
        List<String> probing = new ArrayList<>();
        walk(Nodegate.newCommandLine(), (cl, o) -> {
            String help = String.join(" ", o.description());
            if (!o.hidden() && help.toLowerCase(java.util.Locale.ROOT).contains("kubelet")
                    && ("PORT".equals(o.paramLabel()) || "DURATION".equals(o.paramLabel()))) {
                probing.add(cl.getCommandSpec().qualifiedName() + " " + o.longestName());
                assertThat(o.longestName()).as(cl.getCommandSpec().qualifiedName())
                        .isIn("--kubelet-port", "--probe-timeout");
            }
        });
        assertThat(probing).contains("nodegate probe kubelet --kubelet-port", "nodegate probe kubelet --probe-timeout",
                "nodegate audit --kubelet-port", "nodegate gate --probe-timeout");
    }

    static void walk(CommandLine cl, java.util.function.BiConsumer<CommandLine, OptionSpec> visit) {
        cl.getCommandSpec().options().forEach(o -> visit.accept(cl, o));
        cl.getSubcommands().forEach((name, sub) -> {
            if (name.equals(sub.getCommandName())) {
                walk(sub, visit);
            }
        });
    }
}
