package io.nodegate.cli;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two option mixins of commands that share a beginning: the lifecycle steps after `baseline save` take the
 * cluster and the baseline from one {@link LifecyclePrelude}, and `fleet` and `views` take their clusters from one
 * {@link ClusterSetOptions}: the same names, help and checks in each.
 */
class SharedOptionsTest {

    private static final CommandLine ROOT = Nodegate.newCommandLine();

    private static CommandSpec command(String name) {
        return ROOT.getSubcommands().get(name).getCommandSpec();
    }

    private static void sameOptions(List<String> commands, List<String> options, Class<?> mixin) {
        for (String option : options) {
            String description = null;
            for (String c : commands) {
                OptionSpec o = command(c).findOption(option);
                assertThat(o).as(c + " takes " + option).isNotNull();
                String text = String.join(" ", o.description());
                if (description == null) {
                    description = text;
                }
                assertThat(text).as(c + " " + option + " is described as the others").isEqualTo(description);
            }
        }
        for (String c : commands) {
            assertThat(command(c).mixins().values()).as(c + " mixes in " + mixin.getSimpleName())
                    .anyMatch(m -> mixin.isInstance(m.userObject()));
        }
    }

    @Test
    void lifecycleStepsShareThePrelude() {
        sameOptions(List.of("gate", "remove", "verify-gone", "readmit"),
                List.of("--baseline", "--evidence-dir", "--kubeconfig", "--context", "--request-timeout"),
                LifecyclePrelude.class);
        // --baseline is required by each, with the same one-line usage error
        for (String c : List.of("gate", "remove", "verify-gone", "readmit")) {
            List<String> args = c.equals("verify-gone") ? List.of(c) : List.of(c, "gpu-a11");
            CliRun run = CliRun.run(args.toArray(String[]::new));
            assertThat(run.exitCode()).as(run.all()).isEqualTo(2);
            assertThat(run.err()).contains("Missing required option: '--baseline=FILE'")
                    .contains("See 'nodegate " + c + " --help'.");
        }
    }

    @Test
    void fleetAndViewsShareTheClusterSet() {
        sameOptions(List.of("fleet", "views"),
                List.of("--context", "--kubeconfig", "--filename", "--now", "--request-timeout"),
                ClusterSetOptions.class);
        // and the same checks, worded for each
        for (String c : List.of("fleet", "views")) {
            CliRun twice = CliRun.run(c, "--context", "a", "--context", "a");
            assertThat(twice.exitCode()).as(twice.all()).isEqualTo(2);
            assertThat(twice.err()).contains("--context a given twice");
            CliRun mixed = CliRun.run(c, "--context", "a", "--kubeconfig", "x", "--kubeconfig", "y");
            assertThat(mixed.exitCode()).isEqualTo(2);
            assertThat(mixed.err()).contains("not both: 1 --context and 2 --kubeconfig given");
            CliRun now = CliRun.run(c, "--context", "a", "--context", "b", "--now", "2026-10-19T06:10:00Z");
            assertThat(now.exitCode()).isEqualTo(2);
            assertThat(now.err()).contains("--now applies to offline");
        }
    }
}
