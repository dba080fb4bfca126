package io.nodegate.cli;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Help wraps at spaces only: a path, a flag or a URL in an option's or a command's description is never cut
 * between two lines (picocli's own wrapping cut "~/.kube/config" after "~/." and "server-ca.crt" after the dot).
 */
class WholeWordHelpTest {

    @Test
    void lineEndsOnlyAtSpaces() {
        String text = "Default: $KUBECONFIG, then ~/.kube/config, and /var/lib/rancher/rke2/server/tls/server-ca.crt";
        List<String> lines = new ArrayList<>();
        for (int start = 0; start < text.length(); ) {
            int end = WholeWordHelp.AtSpaces.lineEnd(text, start, 50);
            lines.add(text.substring(start, end));
            start = end;
            while (start < text.length() && text.charAt(start) == ' ') {
                start++;
            }
        }
        assertThat(lines).containsExactly("Default: $KUBECONFIG, then ~/.kube/config, and",
                "/var/lib/rancher/rke2/server/tls/server-ca.crt");
        // a word longer than the whole column is the one thing cut
        assertThat(WholeWordHelp.AtSpaces.lineEnd("abcdefghij", 0, 4)).isEqualTo(4);
    }

    @Test
    void noWordOfAnyDescriptionIsCutInAnyCommandsHelpAtAnyWidth() {
        for (int width : new int[]{60, 80, 100, 120}) {
            CommandLine root = Nodegate.newCommandLine();
            root.setUsageHelpWidth(width);
            List<CommandLine> all = new ArrayList<>();
            collect(root, all);
            for (CommandLine cl : all) {
                String usage = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
                // words as written: paths, flags, URLs; each must stand whole on one line of the help
                Set<String> words = new LinkedHashSet<>();
                for (OptionSpec o : cl.getCommandSpec().options()) {
                    if (!o.hidden()) {
                        for (String line : o.description()) {
                            words.addAll(List.of(line.split("\\s+")));
                        }
                    }
                }
                for (String line : cl.getCommandSpec().usageMessage().description()) {
                    words.addAll(List.of(line.split("\\s+")));
                }
                for (String word : words) {
                    if (word.length() < 3 || word.length() > width / 3 || word.contains("${") || word.contains("%")
                            || word.contains("@|")) {
                        continue;
                    }
                    assertThat(usage).as("'%s' whole in the help of %s at width %d", word,
                            cl.getCommandSpec().qualifiedName(), width).contains(word);
                }
            }
        }
    }

    @Test
    void theKubeconfigPathIsWholeInAuditsHelp() {
        CliRun run = CliRun.run("audit", "--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("~/.kube/config").doesNotContain("~/. kube").doesNotContain("~/.\n");
    }

    private static void collect(CommandLine cl, List<CommandLine> into) {
        into.add(cl);
        cl.getSubcommands().values().stream().distinct().forEach(sub -> collect(sub, into));
    }
}
