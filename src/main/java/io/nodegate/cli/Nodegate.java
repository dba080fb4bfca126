package io.nodegate.cli;

import io.nodegate.source.CollectionException;
import io.nodegate.source.InputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.List;

/** Entry point: parses the command line and maps exceptions to exit codes (see {@link ExitCodes}). */
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
public final class Nodegate implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing command. See 'nodegate --help'.");
    }

    public static void main(String[] args) {
        if (args.length == 1 && ("--version".equals(args[0]) || "-V".equals(args[0]))) {
            // picocli reflects over every subcommand's options before it answers --version; answering here keeps
            // `nodegate --version` at JVM start-up time (same text as `execute("--version")`)
            printVersion(System.out);
            return;
        }
        System.exit(execute(args));
    }

    static void printVersion(java.io.PrintStream out) {
        for (String line : new VersionProvider().getVersion()) {
            out.println(line);
        }
        out.flush();
    }

    /** Runs a command line and returns its exit code; used by main and by tests. */
    public static int execute(String... args) {
        return newCommandLine(args, Environment.SYSTEM).execute(args);
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
            PolicyCommand.class,
            EtcdCommand.class,
            ViewsCommand.class,
            RedundancyCommand.class,
            ProbeCommand.class,
            HostCommand.class,
            AlertsCommand.class,
            InstallCommand.class);

    /** The full command tree, as help and tests see it. */
    public static CommandLine newCommandLine() {
        return newCommandLine(Environment.SYSTEM);
    }

    /** The full command tree, every command built with {@code env} (its client, clock and sleeper). */
    public static CommandLine newCommandLine(Environment env) {
        return newCommandLine(new String[0], env);
    }

    /**
     * The command tree for one command line. picocli reflects over every option of every command it is given,
     * which costs a 5,000-node audit a tenth of its time; a line that names a command gets only that command.
     */
    static CommandLine newCommandLine(String[] args, Environment env) {
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
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            Throwable e = ex;
            if (e instanceof NodegateException ne) {
                commandLine.getErr().println("nodegate: " + ne.getMessage());
                return ne.exitCode();
            }
            if (e instanceof InputException) {
                commandLine.getErr().println("nodegate: " + e.getMessage());
                return ExitCodes.USAGE;
            }
            if (e instanceof CollectionException) {
                commandLine.getErr().println("nodegate: collection failed: " + e.getMessage());
                return ExitCodes.COLLECTION;
            }
            throw ex;
        });
        cl.setExitCodeExceptionMapper(t -> t instanceof CommandLine.ParameterException ? ExitCodes.USAGE : 70);
        return cl;
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
