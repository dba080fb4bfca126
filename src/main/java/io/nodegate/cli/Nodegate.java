package io.nodegate.cli;

import io.nodegate.NodegateException;
import io.nodegate.render.output.TerminalText;
import io.nodegate.ExitCode;
import io.nodegate.source.kube.LastServerAsked;
import io.nodegate.time.Durations;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/** Entry point: parses the command line and maps exceptions to exit codes (see {@link ExitCode}). */
@Command(name = "nodegate",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {
                "Evidence before you touch a Kubernetes node.%n",
                "A Node object is only the kubelet's last report. nodegate shows where Node objects and hosts "
                        + "disagree, gates node removal on evidence, and reads every etcd endpoint and API view "
                        + "to find split brain.",
                "Every command reads a live cluster (--kubeconfig/--context, as kubectl) or saved kubectl/etcdctl "
                        + "JSON (-f). Findings are explained in docs/findings.md."},
        footer = {"",
                "Exit codes: 0 ok/PASS, 1 findings at warning or above, 2 usage or input error,",
                "            3 collection failed/INVALID, 4 HOLD, 5 FAIL."})
public final class Nodegate implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        throw missingSubcommand(spec);
    }

    public static void main(String[] args) {
        if (args.length == 1 && ("--version".equals(args[0]) || "-V".equals(args[0]))) {
            // picocli reflects over every subcommand's options before it answers --version; answering here keeps
            // `nodegate --version` at JVM start-up time (same text as `execute("--version")`)
            printVersion(System.out);
            return;
        }
        Duration deadline;
        try {
            String configured = System.getenv(DEADLINE_ENV);
            deadline = configured == null || configured.isBlank() ? DEFAULT_DEADLINE
                    : Durations.parsePositive(configured, DEADLINE_ENV);
        } catch (NodegateException e) {
            System.err.println("nodegate: " + e.getMessage());
            System.exit(ExitCode.USAGE);
            return;
        }
        Environment env = Environment.system();
        startDeadline(deadline, args.length > 0 ? args[0] : "nodegate", env.lastAsked());
        System.exit(execute(env, args));
    }

    /** Environment variable that sets the overall deadline of one command (e.g. 45m). */
    static final String DEADLINE_ENV = "NODEGATE_DEADLINE";
    /** Longer than any command needs on a healthy cluster (remove follows the cascade for 3 min by default). */
    static final Duration DEFAULT_DEADLINE = Duration.ofMinutes(30);

    /**
     * Every command gets an overall deadline on top of each request's own: whatever hangs (a server trickling an
     * answer, a call outside the API layer), the command ends with exit 3 and says which server it last asked.
     */
    static void startDeadline(Duration deadline, String command, LastServerAsked lastAsked) {
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(deadline.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            System.out.flush();
            System.err.println(deadlineMessage(command, deadline, lastAsked.server()));
            System.err.flush();
            Runtime.getRuntime().halt(ExitCode.COLLECTION);
        }, "nodegate-deadline");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    /** What the overall deadline prints when it stops a command; {@code server} null when none was asked. */
    static String deadlineMessage(String command, Duration deadline, String server) {
        return "nodegate: " + command + " did not finish within its overall deadline of "
                + Durations.format(deadline) + (server == null ? "" : " (last API server asked: " + server + ")")
                + "; the result is INVALID. " + DEADLINE_ENV + " sets the deadline";
    }

    static void printVersion(java.io.PrintStream out) {
        for (String line : new VersionProvider().getVersion()) {
            out.println(line);
        }
        out.flush();
    }

    /** Runs a command line and returns its exit code; used by main and by tests. */
    public static int execute(String... args) {
        return execute(Environment.system(), args);
    }

    /** Runs a command line in {@code env} (main gives the one whose last-asked server its deadline reports). */
    static int execute(Environment env, String... args) {
        CommandLine cl = newCommandLine(args, env);
        helpWidth(cl, System.getenv("COLUMNS"));
        try {
            return cl.execute(args);
        } catch (Throwable t) {
            // picocli hands only Exceptions to the handler: an Error (OutOfMemoryError, StackOverflowError) thrown by
            // a command comes out here, and must still end in a code a script understands, not the JVM's 1
            return failed(t, commandOf(cl));
        }
    }

    /**
     * The one handler: every command ends here when it throws. A {@link NodegateException} carries its message and
     * exit code; anything else is unexpected, and its run proves nothing, so it is exit 3 (like INVALID) with the
     * command named and the cause in words, never a bare Java class name.
     */
    static int failed(Throwable t, CommandLine command) {
        java.io.PrintWriter err = command.getErr();
        if (t instanceof NodegateException ne) {
            // messages name what was read (Node names, kubeconfig contexts, a server's answer): data, escaped
            err.println("nodegate: " + TerminalText.escape(ne.userMessage()));
        } else {
            String what = t instanceof OutOfMemoryError
                    ? "ran out of memory (give the JVM more, e.g. JAVA_TOOL_OPTIONS=-Xmx4g)"
                    : "failed unexpectedly: " + TerminalText.escape(describe(t));
            err.println(command.getCommandSpec().qualifiedName() + ": " + what
                    + "; nothing this run saw can be trusted, and nothing was changed after the failure");
        }
        err.flush();
        return t instanceof NodegateException ne ? ne.exitCode() : ExitCode.COLLECTION;
    }

    /**
     * A usage error the way kubectl prints one: the message on one line, then where help is, and exit 2. picocli's
     * default would print the whole usage help (about 50 lines) after the message, burying it.
     */
    static int usageError(CommandLine.ParameterException ex, String[] args) {
        CommandLine command = ex.getCommandLine();
        java.io.PrintWriter err = command.getErr();
        err.println(usageLine(ex));
        err.println("See '" + command.getCommandSpec().qualifiedName() + " --help'.");
        err.flush();
        return ExitCode.USAGE;
    }

    /**
     * An unknown command is a usage error whatever follows it, as in kubectl: picocli, seeing --help among the
     * words, would print the help of the last command it knew and exit 0, so `nodegate NOSUCH --help` looked like a
     * command that exists. The words up to the first option are followed down the commands that only group others
     * (no arguments of their own); the first that names none of their subcommands is the error.
     */
    static CommandLine.ParameterException unknownCommand(CommandLine root, String[] args) {
        CommandLine current = root;
        for (String word : args) {
            if (word.startsWith("-") || current.getSubcommands().isEmpty()
                    || !current.getCommandSpec().positionalParameters().isEmpty()) {
                return null;
            }
            CommandLine sub = current.getSubcommands().get(word);
            if (sub == null) {
                return new CommandLine.UnmatchedArgumentException(current, List.of(word));
            }
            current = sub;
        }
        return null;
    }

    /** For a command that only groups others: "missing subcommand (one of: save)" (exit 2). */
    static CommandLine.ParameterException missingSubcommand(CommandLine.Model.CommandSpec spec) {
        List<String> names = spec.subcommands().entrySet().stream()
                .filter(e -> e.getKey().equals(e.getValue().getCommandName()) && !e.getValue().getCommandSpec().usageMessage().hidden())
                .map(java.util.Map.Entry::getKey).filter(n -> !n.equals("help")).toList();
        return new CommandLine.ParameterException(spec.commandLine(), "missing " + (spec.parent() == null ? "command"
                : "subcommand") + " (one of: " + String.join(", ", names) + ")");
    }

    /** "nodegate gate: Missing required parameter: 'NODE'", with picocli's suggestions on the same line. */
    static String usageLine(CommandLine.ParameterException ex) {
        String message = ex.getMessage() == null ? "invalid command line" : ex.getMessage();
        if (ex instanceof CommandLine.UnmatchedArgumentException unmatched) {
            List<String> words = unmatched.getUnmatched();
            String first = words.isEmpty() ? "" : words.get(0);
            if (!first.startsWith("-") && !ex.getCommandLine().getSubcommands().isEmpty()) {
                // picocli says "Unmatched argument at index 0: 'audti'"; kubectl says what it is
                message = "unknown command '" + first + "'";
            }
            if (!unmatched.getSuggestions().isEmpty()) {
                message += " (did you mean " + String.join(" or ", unmatched.getSuggestions()) + "?)";
            }
        }
        return ex.getCommandLine().getCommandSpec().qualifiedName() + ": "
                + message.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    private static String describe(Throwable t) {
        String message = t.getMessage();
        String kind = t.getClass().getSimpleName();
        return message == null || message.isBlank() ? "internal error (" + kind + ")" : message + " (" + kind + ")";
    }

    /** The deepest command the line named (e.g. `baseline save`), for the failure message. */
    private static CommandLine commandOf(CommandLine root) {
        CommandLine.ParseResult pr = root.getParseResult();
        if (pr == null) {
            return root;
        }
        while (pr.hasSubcommand()) {
            pr = pr.subcommand();
        }
        return pr.commandSpec().commandLine();
    }

    /**
     * Every command and subcommand answers --help and -h (exit 0), and its footer (the examples) is printed as
     * written: picocli would wrap a long example inside a value ("--removed-at 2026-10-19T15:09+09:" / "00"), and
     * a command line broken that way cannot be pasted.
     */
    static void helpEverywhere(CommandLine cl) {
        CommandLine.Model.CommandSpec spec = cl.getCommandSpec();
        if (!spec.mixinStandardHelpOptions() && spec.findOption("--help") == null && spec.findOption("-h") == null) {
            spec.mixinStandardHelpOptions(true);
        }
        cl.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER, help -> {
            StringBuilder out = new StringBuilder();
            for (String line : help.commandSpec().usageMessage().footer()) {
                out.append(line.replace("%n", System.lineSeparator())).append(System.lineSeparator());
            }
            return out.toString();
        });
        cl.getSubcommands().values().stream().distinct().forEach(Nodegate::helpEverywhere);
    }

    /**
     * The help width: $COLUMNS when it is a number (as the shell sets it), else the terminal's width when picocli
     * can find it, else 80. Never below 60, where option descriptions stop being readable.
     */
    static void helpWidth(CommandLine cl, String columns) {
        if (columns != null && columns.trim().matches("\\d{1,4}")) {
            cl.setUsageHelpWidth(Math.max(60, Integer.parseInt(columns.trim())));
        } else {
            cl.setUsageHelpAutoWidth(true);
        }
    }

    /** Every command, in the order `nodegate --help` lists them. */
    static final List<Class<?>> COMMANDS = List.of(
            AuditCommand.class,
            CollectCommand.class,
            BaselineCommand.class,
            GateCommand.class,
            RemoveCommand.class,
            VerifyGoneCommand.class,
            ReadmitCommand.class,
            AcceptCommand.class,
            InventoryCommand.class,
            RejoinRiskCommand.class,
            HandoverCommand.class,
            PolicyCommand.class,
            EtcdCommand.class,
            ViewsCommand.class,
            FleetCommand.class,
            RedundancyCommand.class,
            ProbeCommand.class,
            HostCommand.class,
            BmcCommand.class,
            WatchCommand.class,
            AlertsCommand.class,
            InstallCommand.class,
            CompletionCommand.class,
            VersionCommand.class,
            CompleteCommand.class);

    /** The full command tree, as help and tests see it. */
    public static CommandLine newCommandLine() {
        return newCommandLine(Environment.system());
    }

    /** The full command tree, every command built with {@code env} (its client, clock and sleeper). */
    public static CommandLine newCommandLine(Environment env) {
        return newCommandLine(new String[0], env);
    }

    /**
     * The command tree for one command line. picocli reflects over every option of every command it is given,
     * which costs a 5,000-node audit a tenth of its time; a line that names a command gets only that command.
     */
    public static CommandLine newCommandLine(String[] args, Environment env) {
        CommandLine cl = new CommandLine(new Nodegate(), new EnvironmentFactory(env));
        String first = args.length > 0 ? args[0] : null;
        List<Class<?>> named = COMMANDS.stream()
                .filter(c -> c.getAnnotation(Command.class).name().equals(first)).toList();
        for (Class<?> command : named.isEmpty() ? COMMANDS : named) {
            cl.addSubcommand(command);
        }
        if (named.isEmpty()) {
            cl.addSubcommand(new CommandLine.HelpCommand());
        }
        helpEverywhere(cl);
        WholeWordHelp.install(cl);
        OutputOptions.describeEverywhere(cl);
        CompleteCommand.takeEveryWord(cl);
        // help is coloured by the same rule as tables: never into a pipe or a file, never under NO_COLOR
        cl.setColorScheme(CommandLine.Help.defaultColorScheme(Terminal.colour()
                ? CommandLine.Help.Ansi.ON : CommandLine.Help.Ansi.OFF));
        handLastAskedToOptions(cl.getCommandSpec(), env.lastAsked());
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> failed(ex, commandLine));
        cl.setParameterExceptionHandler(Nodegate::usageError);
        // picocli prints help for "NOSUCH --help" (help wins over an unmatched word): refuse the unknown command first
        CommandLine.IExecutionStrategy run = new CommandLine.RunLast();
        cl.setExecutionStrategy(parseResult -> {
            CommandLine.ParameterException unknown = unknownCommand(cl,
                    parseResult.originalArgs().toArray(String[]::new));
            if (unknown != null) {
                throw unknown;
            }
            return run.execute(parseResult);
        });
        cl.setExitCodeExceptionMapper(t -> t instanceof CommandLine.ParameterException ? ExitCode.USAGE : ExitCode.COLLECTION);
        return cl;
    }

    /**
     * Every --kubeconfig/--context option set in the tree ({@link LiveOptions}, also inside {@link SourceOptions})
     * opens its connections recording into this invocation's {@link Environment#lastAsked()}: commands that open
     * them from their options rather than through {@link Environment#connect()} (audit, collect, probe, policy,
     * redundancy, the gate's --fleet-context) feed the overall deadline's message too.
     */
    private static void handLastAskedToOptions(CommandLine.Model.CommandSpec spec,
                                               LastServerAsked lastAsked) {
        if (spec.userObject() instanceof LiveOptions live) {
            live.lastAsked = lastAsked;
        }
        spec.mixins().values().forEach(mixin -> handLastAskedToOptions(mixin, lastAsked));
        spec.subcommands().values().stream().map(CommandLine::getCommandSpec).distinct()
                .forEach(sub -> handLastAskedToOptions(sub, lastAsked));
    }

    /** Builds commands (and their subcommands and mixins) with the environment when they take one. */
    private record EnvironmentFactory(Environment env) implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> type) throws Exception {
            try {
                var constructor = type.getDeclaredConstructor(Environment.class);
                constructor.setAccessible(true);
                return constructor.newInstance(env);
            } catch (NoSuchMethodException takesNone) {
                return CommandLine.defaultFactory().create(type);
            }
        }
    }
}
