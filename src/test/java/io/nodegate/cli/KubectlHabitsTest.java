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

    /**
     * An unknown command is a usage error whatever follows it: with --help after it, picocli printed the
     * top-level help and exited 0, as if the command existed (kubectl: "unknown command", exit 1 from cobra; here
     * exit 2 like every usage error). A known command's --help still works, also below a group.
     */
    @Test
    void anUnknownCommandIsAUsageErrorEvenWithHelpAfterIt() {
        for (String[] line : new String[][]{{"NOSUCH", "--help"}, {"NOSUCH", "-h"}, {"audti", "--help"},
                {"probe", "nosuch", "--help"}, {"NOSUCH", "--version"}}) {
            CliRun run = CliRun.run(line);
            assertThat(run.exitCode()).as(String.join(" ", line) + ": " + run.all()).isEqualTo(2);
            assertThat(run.out()).as(String.join(" ", line)).isEmpty();
            assertThat(run.err()).contains("unknown command '" + line[line.length - 2] + "'");
        }
        assertThat(CliRun.run("audti", "--help").err()).containsPattern("did you mean audit\\b");
        CliRun help = CliRun.run("probe", "kubelet", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("kubelet");
        assertThat(CliRun.run("--help").exitCode()).isZero();
        assertThat(CliRun.run("help", "audit").exitCode()).isZero();
    }

    /**
     * -o name is kubectl's (cli-runtime's name printer): kind.group/name per object, kind/name in the core group,
     * one line per object and no namespace. The operators' Role and RoleBinding are one name in several
     * namespaces, so they come once per namespace, as `kubectl get roles -A -o name` prints them; the table says
     * which namespace each is in.
     */
    @Test
    void policyNameOutputIsKindGroupSlashNameOncePerObject() {
        CliRun run = CliRun.run("policy", "-o", "name");
        assertThat(run.exitCode()).as(run.all()).isZero();
        List<String> names = run.out().lines().toList();
        assertThat(names).as(run.out()).isNotEmpty()
                .allMatch(n -> n.matches("[a-z]+(\\.[a-z0-9.-]+)?/[a-z0-9.:-]+"));
        assertThat(names).as(run.out()).contains("validatingadmissionpolicy.admissionregistration.k8s.io/"
                + "nodegate-node-gate", "validatingadmissionpolicybinding.admissionregistration.k8s.io/"
                + "nodegate-node-gate", "namespace/nodegate-system");
        long objects = CliRun.run("policy", "-o", "yaml").out().lines().filter(l -> l.startsWith("kind: ")).count();
        assertThat(names).hasSize((int) objects);
        List<String> roleRows = CliRun.run("policy", "-o", "table").out().lines()
                .filter(l -> l.startsWith("Role ")).toList();
        assertThat(roleRows.stream().map(l -> l.trim().split("\\s+")[2]).distinct().count())
                .as("one Role per namespace: %s", roleRows).isEqualTo(roleRows.size());
    }

    /**
     * `alerts` prints no Namespace (a `kubectl delete -f -` of its output must not delete one), so its help and
     * examples say the PrometheusRule's namespace must exist, and show --without-watch with one that does.
     */
    @Test
    void alertsSaysItsNamespaceMustExistAndPrintsNone() {
        CliRun help = CliRun.run("alerts", "--help");
        assertThat(help.out()).contains("which must exist", "No Namespace is printed",
                "--namespace cattle-monitoring-system --without-watch | kubectl apply -f -");
        CliRun rules = CliRun.run("alerts", "--without-watch", "-n", "cattle-monitoring-system");
        assertThat(rules.exitCode()).isZero();
        assertThat(rules.out()).contains("namespace: cattle-monitoring-system").doesNotContain("kind: Namespace");
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

    /**
     * -o name as kubectl prints it (cli-runtime pkg/printers/name.go: the kind in lower case, .group unless core,
     * then /name; no namespace, as `kubectl get roles -A -o name` prints none): one line per object, in the order
     * of -o json's items. policy emits a Role and a RoleBinding named nodegate-operator in five namespaces, so
     * those names come five times each, as kubectl would print them; the table's NAMESPACE column tells them apart.
     */
    @Test
    void policyNamesOneLinePerObjectAsKubectlDoes() {
        CliRun names = CliRun.run("policy", "-o", "name");
        CliRun json = CliRun.run("policy", "-o", "json");
        CliRun table = CliRun.run("policy", "-o", "table", "--no-headers");
        assertThat(names.exitCode()).as(names.err()).isZero();
        var items = tools.jackson.databind.json.JsonMapper.builder().build().readTree(json.out()).path("items");
        List<String> expected = new ArrayList<>();
        List<String> namespaces = new ArrayList<>();
        for (var o : items) {
            String apiVersion = o.path("apiVersion").asString();
            String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
            expected.add(o.path("kind").asString().toLowerCase(java.util.Locale.ROOT)
                    + (group.isEmpty() ? "" : "." + group) + "/" + o.path("metadata").path("name").asString());
            namespaces.add(o.path("metadata").path("namespace").asString("-"));
        }
        assertThat(names.out().lines().toList()).isEqualTo(expected);
        // every repeated name is one object per namespace, and the table names those namespaces
        List<String> rows = table.out().lines().toList();
        assertThat(rows).hasSize(expected.size());
        for (int i = 0; i < rows.size(); i++) {
            assertThat(rows.get(i).split("\\s+")).as(rows.get(i)).endsWith(namespaces.get(i));
        }
        assertThat(expected.stream().filter(n -> n.equals("role.rbac.authorization.k8s.io/nodegate-operator")))
                .hasSize(5);
        assertThat(java.util.stream.IntStream.range(0, expected.size())
                .filter(i -> expected.get(i).startsWith("role.")).mapToObj(namespaces::get).distinct()).hasSize(5);
    }
}
