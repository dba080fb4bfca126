package io.nodegate.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The options of a command that reads several clusters or API servers side by side (`fleet`, `views`): several
 * --context of one kubeconfig, several --kubeconfig (one each, its current context), or offline several -f DIR.
 * One place for their names, help, and the checks every such command makes: contexts and several kubeconfigs not
 * mixed (which file would a context come from?), no context named twice, --now only with -f.
 */
public class ClusterSetOptions {

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--context", paramLabel = "NAME",
            description = "Kubeconfig context of one cluster (fleet) or API server (views); repeat for each.")
    List<String> contexts = new ArrayList<>();

    @Option(names = "--kubeconfig", paramLabel = "FILE",
            description = "Kubeconfig file: with --context, the file the contexts come from; repeated without "
                    + "--context, one each (its current context). Default: $KUBECONFIG, then ~/.kube/config.")
    List<Path> kubeconfigs = new ArrayList<>();

    @Option(names = {"-f", "--filename"}, paramLabel = "DIR",
            description = "Offline: a directory (or file) of kubectl dumps (e.g. `nodegate collect` output) of one "
                    + "cluster or API server; repeat for each. Named after the context in its collected.json (fleet) "
                    + "or the directory.")
    List<Path> dirs = new ArrayList<>();

    @Option(names = "--now", paramLabel = "TIME",
            description = "Offline only: the time ages are computed against (ISO-8601). "
                    + "Default: the time recorded by 'nodegate collect'.")
    String now;

    @Option(names = "--request-timeout", paramLabel = "DURATION", defaultValue = "10s",
            converter = DurationConverter.Positive.class,
            description = "Per-request timeout against each API server, as kubectl's: 30s, 1m (default: ${DEFAULT-VALUE}).")
    Duration requestTimeout = Duration.ofSeconds(10);

    /**
     * The checks every multi-cluster command makes before reading anything; {@code each} names one of them in the
     * message ("view", "cluster").
     */
    void check(String each) {
        if (!contexts.isEmpty() && kubeconfigs.size() > 1) {
            throw usage("give several --context (of one kubeconfig) or several --kubeconfig, not both: "
                    + contexts.size() + " --context and " + kubeconfigs.size() + " --kubeconfig given");
        }
        if (now != null && dirs.isEmpty()) {
            throw usage("--now applies to offline " + each + "s (-f DIR) only");
        }
        Set<String> seen = new HashSet<>();
        for (String c : contexts) {
            if (!seen.add(c)) {
                throw usage("--context " + c + " given twice: each " + each + " must be a different API server");
            }
        }
    }

    /** The kubeconfig the --context names come from: the one --kubeconfig given, else null (the default one). */
    Path contextsKubeconfig() {
        return kubeconfigs.size() == 1 ? kubeconfigs.get(0) : null;
    }

    /** A usage error of the command these options belong to (exit 2, one line). */
    CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(command.commandLine(), message);
    }
}
