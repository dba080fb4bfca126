package io.nodegate.cli;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Every command and subcommand answers --help and -h with exit 0, and help follows the width it is given. */
class HelpEverywhereTest {

    static List<List<String>> commandPaths() {
        List<List<String>> out = new ArrayList<>();
        walk(Nodegate.newCommandLine(), new ArrayList<>(), out);
        return out;
    }

    private static void walk(CommandLine cl, List<String> path, List<List<String>> out) {
        out.add(List.copyOf(path));
        cl.getSubcommands().forEach((name, sub) -> {
            if (!name.equals("help") && sub.getCommandName().equals(name)) {
                List<String> next = new ArrayList<>(path);
                next.add(name);
                walk(sub, next, out);
            }
        });
    }

    @Test
    void everyCommandAnswersHelpAndH() {
        List<List<String>> paths = commandPaths();
        assertThat(paths).contains(List.of("baseline"), List.of("baseline", "save"), List.of("probe", "apiservers"),
                List.of("gate"), List.of());
        for (List<String> path : paths) {
            for (String flag : List.of("--help", "-h")) {
                List<String> args = new ArrayList<>(path);
                args.add(flag);
                CliRun run = CliRun.run(args.toArray(String[]::new));
                assertThat(run.exitCode()).as(args + ": " + run.err()).isZero();
                assertThat(run.out()).as(args.toString()).contains("Usage: nodegate" + (path.isEmpty() ? "" : " " + String.join(" ", path)));
            }
        }
    }

    private static String help(String columns, String... args) {
        CommandLine cl = Nodegate.newCommandLine(args, Environment.system());
        Nodegate.helpWidth(cl, columns);
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        assertThat(cl.execute(args)).isZero();
        return out.toString();
    }

    @Test
    void examplesAreNeverWrappedInsideAValue() {
        String help = help("60", "gate", "--help");
        String[] footer = GateCommand.class.getAnnotation(CommandLine.Command.class).footer();
        for (String line : footer) {
            assertThat(help).contains(line);
        }
        assertThat(help).contains("--removed-at 2026-10-19T15:09+09:00 --reply-from infra-kim");
    }

    @Test
    void helpFollowsColumns() {
        String narrow = help("60", "audit", "--help");
        String wide = help("160", "audit", "--help");
        String[] footer = AuditCommand.class.getAnnotation(CommandLine.Command.class).footer();
        List<String> footerLines = Arrays.asList(footer);
        assertThat(narrow.lines().filter(l -> !footerLines.contains(l))).allMatch(l -> l.length() <= 60);
        assertThat(wide.lines().mapToInt(String::length).max().orElse(0)).isGreaterThan(100);
        // not a number: the terminal's width, or picocli's 80
        assertThat(help("wide", "audit", "--help")).contains("Usage: nodegate audit");
    }
}
