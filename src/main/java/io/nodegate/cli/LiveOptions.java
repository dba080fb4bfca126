package io.nodegate.cli;

import io.nodegate.source.kube.KubeConnection;
import io.nodegate.source.kube.LastServerAsked;
import io.nodegate.source.kube.LiveSource;
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

    /**
     * Where connections opened from these options record the server they ask: the command's own
     * ({@link Environment#lastAsked()}), handed in when the command line is built ({@link Nodegate#newCommandLine});
     * options built by hand (views, tests) keep one of their own.
     */
    LastServerAsked lastAsked = new LastServerAsked();

    /**
     * Whether a kubeconfig is named outside the command line: $KUBECONFIG, or the {@code kubeconfig} system property
     * that the client library reads before it (the same list kubectl's rules take before ~/.kube/config).
     */
    static boolean kubeconfigExported() {
        String named = System.getProperty("kubeconfig", System.getenv("KUBECONFIG"));
        return named != null && !named.isBlank();
    }

    /** True when the user named a cluster explicitly (a default kubeconfig may still be used without this). */
    boolean named() {
        return kubeconfig != null || context != null;
    }

    /**
     * A live connection honouring --kubeconfig/--context (kubectl's rules, {@link KubeConnection#open}); its fabric8
     * client is built only when a write asks for it. Close it.
     */
    public KubeConnection connect() {
        return KubeConnection.open(kubeconfig, context, requestTimeout, lastAsked);
    }

    /** Like {@link #connect()}, with the model-only parsing of {@link KubeConnection#openForModel}. Close it. */
    public KubeConnection connectForModel() {
        return KubeConnection.openForModel(kubeconfig, context, requestTimeout, lastAsked);
    }

    /**
     * The live source itself, for callers that need more than a snapshot (e.g.
     * {@link LiveSource#podsOnNode(String)}). Close it when done; closing closes its client.
     */
    public LiveSource liveSource() {
        return LiveSource.open(kubeconfig, context, requestTimeout, lastAsked);
    }
}
