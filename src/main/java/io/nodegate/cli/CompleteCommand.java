package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.source.kube.Kinds;
import io.nodegate.source.kube.ApiCalls;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.source.kube.Kubeconfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * `nodegate __complete WORD... PARTIAL`: what the shell scripts of `nodegate completion` ask while the user presses
 * Tab, as kubectl's (cobra's) hidden __complete command answers: one candidate per line, then a line
 * {@code :DIRECTIVE} (4: no file names; 0: the shell may offer files too). It completes subcommands, options, the
 * formats of -o, context names from the kubeconfig kubectl would read for --context (and --fleet-context,
 * --machine-context, --rancher), and the Nodes of the cluster the line names for a NODE argument.
 *
 * <p>A cluster that cannot be read offers no Node names: the completion prints nothing rather than an error into
 * the user's prompt (kubectl does the same). It never changes anything.
 */
@Command(name = "__complete", hidden = true, description = "Shell completion's helper (see 'nodegate completion').")
public final class CompleteCommand implements Callable<Integer> {

    /**
     * Every word after __complete is a word of the line being completed, even one that looks like an option
     * ({@code nodegate __complete gate --re}); applied once the command is in the tree, whose parser settings
     * picocli gives every subcommand when it is added. The scripts also pass "--" first.
     */
    static void takeEveryWord(CommandLine root) {
        CommandLine complete = root.getSubcommands().get(NAME);
        if (complete != null) {
            complete.setStopAtPositional(true);
            complete.setUnmatchedOptionsArePositionalParams(true);
        }
    }

    static final String NAME = "__complete";

    /** cobra's ShellCompDirectiveNoFileComp and ShellCompDirectiveDefault. */
    static final int NO_FILES = 4;
    static final int DEFAULT = 0;

    /** Options whose value is a kubeconfig context. */
    private static final List<String> CONTEXT_OPTIONS = List.of("--context", "--fleet-context", "--machine-context",
            "--rancher");

    /** A Tab must answer quickly: one short LIST of the Nodes. */
    private static final Duration NODE_LIST_TIMEOUT = Duration.ofSeconds(5);

    private final Environment env;

    public CompleteCommand() {
        this(Environment.system());
    }

    CompleteCommand(Environment env) {
        this.env = env;
    }

    @CommandLine.Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "WORD", description = "The words after 'nodegate', the last one the one "
            + "being completed (empty for a new word).")
    List<String> words = new ArrayList<>();

    @Override
    public Integer call() {
        List<String> line = words.isEmpty() ? List.of("") : words;
        String partial = line.get(line.size() - 1);
        List<String> before = line.subList(0, line.size() - 1);
        // the tree of the command the line names (all of them while the first word is being typed)
        CommandSpec command = Nodegate.newCommandLine(before.toArray(String[]::new), env).getCommandSpec();
        int positionals = 0;
        String pendingOption = null;
        Path kubeconfig = null;
        String context = null;
        for (String w : before) {
            if (pendingOption != null) {
                if (pendingOption.equals("--kubeconfig")) {
                    kubeconfig = Path.of(w);
                } else if (pendingOption.equals("--context")) {
                    context = w;
                }
                pendingOption = null;
                continue;
            }
            if (w.startsWith("-")) {
                String name = w.contains("=") ? w.substring(0, w.indexOf('=')) : w;
                OptionSpec o = command.findOption(name);
                if (o != null && !w.contains("=") && o.arity().min() > 0) {
                    pendingOption = o.longestName();
                } else if (w.contains("=") && o != null) {
                    String value = w.substring(w.indexOf('=') + 1);
                    if (o.longestName().equals("--kubeconfig")) {
                        kubeconfig = Path.of(value);
                    } else if (o.longestName().equals("--context")) {
                        context = value;
                    }
                }
                continue;
            }
            CommandLine sub = positionals == 0 ? command.subcommands().get(w) : null;
            if (sub != null) {
                command = sub.getCommandSpec();
            } else {
                positionals++;
            }
        }
        List<String> candidates = new ArrayList<>();
        int directive = NO_FILES;
        if (pendingOption != null) {
            OptionSpec o = command.findOption(pendingOption);
            if (CONTEXT_OPTIONS.contains(pendingOption)) {
                candidates.addAll(contexts(kubeconfig));
            } else if (o != null && o.completionCandidates() != null) {
                o.completionCandidates().forEach(candidates::add);
            } else {
                directive = DEFAULT; // a file, a time, a URL: the shell's own completion
            }
        } else if (partial.startsWith("-")) {
            for (OptionSpec o : command.options()) {
                if (!o.hidden()) {
                    candidates.addAll(List.of(o.names()));
                }
            }
        } else if (positionals == 0 && !visibleSubcommands(command).isEmpty()) {
            candidates.addAll(visibleSubcommands(command));
        } else if (takesNodes(command, positionals)) {
            candidates.addAll(nodes(kubeconfig, context));
        } else {
            directive = DEFAULT;
        }
        PrintWriter out = spec.commandLine().getOut();
        // one candidate a line: a name holding a line break or another control character cannot be offered as
        // one line, nor typed back, so it is left out rather than split into pieces
        candidates.stream().filter(c -> c.startsWith(partial)).filter(CompleteCommand::printable).distinct()
                .forEach(out::println);
        out.println(":" + directive);
        out.flush();
        return ExitCode.OK;
    }

    private static boolean printable(String candidate) {
        return !candidate.isEmpty() && candidate.chars().noneMatch(Character::isISOControl);
    }

    private static List<String> visibleSubcommands(CommandSpec command) {
        return command.subcommands().entrySet().stream()
                .filter(e -> !e.getValue().getCommandSpec().usageMessage().hidden() && !e.getKey().equals("help"))
                .map(java.util.Map.Entry::getKey).toList();
    }

    /** True when the next positional argument of {@code command} is a Node name (paramLabel NODE). */
    private static boolean takesNodes(CommandSpec command, int positionals) {
        for (PositionalParamSpec p : command.positionalParameters()) {
            if (p.index().contains(positionals) && p.paramLabel().startsWith("NODE")) {
                return true;
            }
        }
        return false;
    }

    private static List<String> contexts(Path kubeconfig) {
        try {
            return Kubeconfig.contextNames(kubeconfig);
        } catch (RuntimeException e) {
            return List.of(); // a broken kubeconfig: the command itself will say what is wrong with it
        }
    }

    private List<String> nodes(Path kubeconfig, String context) {
        LiveOptions live = new LiveOptions();
        live.kubeconfig = kubeconfig;
        live.context = context;
        live.requestTimeout = NODE_LIST_TIMEOUT;
        try (KubeConnection connection = env.connect().apply(live)) {
            return new ApiCalls(connection).list(Kinds.NODES, node -> node.getMetadata().getName());
        } catch (RuntimeException e) {
            return List.of(); // unreadable: no names offered, never made-up ones
        }
    }
}
