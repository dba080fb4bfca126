package io.nodegate.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.model.ClusterState;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where cluster state comes from: a live API server (kubectl's flags and rules) or kubectl/etcdctl dumps
 * given with -f. Shared by every command that reads a cluster.
 */
public final class SourceOptions {

    @Option(names = "--kubeconfig", paramLabel = "FILE",
            description = "Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster).")
    Path kubeconfig;

    @Option(names = "--context", paramLabel = "NAME", description = "Kubeconfig context to use.")
    String context;

    @Option(names = {"-f", "--filename"}, paramLabel = "PATH",
            description = "Read kubectl JSON/YAML dumps (file or directory; repeatable) instead of a live cluster. "
                    + "Also accepts `etcdctl member list -w json` and `etcdctl endpoint status -w json` output.")
    List<Path> files = new ArrayList<>();

    @Option(names = "--now", paramLabel = "TIME",
            description = "Offline only: the time ages are computed against (ISO-8601, e.g. 2026-10-19T06:10:00Z). "
                    + "Default: the time recorded by 'nodegate collect'.")
    String now;

    @Option(names = "--request-timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "Per-request timeout against the API server (default: ${DEFAULT-VALUE}).")
    int requestTimeoutSeconds;

    public boolean offline() {
        return !files.isEmpty();
    }

    /** Reads the cluster (live or from files) into one snapshot. Pods are read only when asked. */
    public ClusterState load(boolean withPods) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** A live client honouring --kubeconfig/--context, failing fast when the server is unreachable. */
    public KubernetesClient connect() {
        throw new UnsupportedOperationException("not implemented yet");
    }
}
