package io.nodegate.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.source.live.LiveSource;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How to reach a live API server, as kubectl does. Commands that act on a cluster (collect, the removal
 * lifecycle, policy --apply) take only these; commands that can also read dumps take {@link SourceOptions}.
 */
public final class LiveOptions {

    @Option(names = "--kubeconfig", paramLabel = "FILE",
            description = "Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster).")
    Path kubeconfig;

    @Option(names = "--context", paramLabel = "NAME", description = "Kubeconfig context to use.")
    String context;

    @Option(names = "--request-timeout", paramLabel = "DURATION", defaultValue = "10s",
            converter = DurationConverter.Positive.class,
            description = "Per-request timeout against the API server, as kubectl's: 30s, 1m (default: ${DEFAULT-VALUE}).")
    Duration requestTimeout = Duration.ofSeconds(10);

    /** True when the user named a cluster explicitly (a default kubeconfig may still be used without this). */
    boolean named() {
        return kubeconfig != null || context != null;
    }

    /** A live client honouring --kubeconfig/--context, failing fast when the server is unreachable. Close it. */
    public KubernetesClient connect() {
        return liveSource().client();
    }

    /** Like {@link #connect()}, with the model-only parsing of {@link LiveSource#openForModel}. Close it. */
    public KubernetesClient connectForModel() {
        return LiveSource.openForModel(kubeconfig, context, requestTimeout).client();
    }

    /**
     * The live source itself, for callers that need more than a snapshot (e.g.
     * {@link LiveSource#podsOnNode(String)}). Close it when done; closing closes its client.
     */
    public LiveSource liveSource() {
        return LiveSource.open(kubeconfig, context, requestTimeout);
    }
}
