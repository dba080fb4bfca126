package io.nodegate.source.live;

import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.nodegate.InputException;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Resolves where to talk to the way kubectl does: --kubeconfig, else $KUBECONFIG, else ~/.kube/config, else
 * the in-cluster service account; --context picks a context, else the file's current-context.
 *
 * <p>Tuned for an interactive tool: no request retries and a 3 s connect timeout, so an unreachable API
 * server fails within seconds with its URL in the message instead of after 20 s of silent back-off.
 */
public final class KubeConnection implements AutoCloseable {

    /** Connect timeout: long enough for a WAN round trip, short enough to fail fast on a dead address. */
    public static final int CONNECT_TIMEOUT_MILLIS = 3_000;

    private final KubernetesClient client;
    private final String context;
    private final String server;
    private final Duration requestTimeout;
    private final boolean modelOnly;

    private KubeConnection(KubernetesClient client, String context, String server, Duration requestTimeout,
                           boolean modelOnly) {
        this.client = client;
        this.context = context;
        this.server = server;
        this.requestTimeout = requestTimeout;
        this.modelOnly = modelOnly;
    }

    /**
     * @param kubeconfig            explicit kubeconfig file, or null for $KUBECONFIG / ~/.kube/config / in-cluster
     * @param context               context name, or null for the current context
     * @param requestTimeout        per-request timeout
     * @throws InputException when the kubeconfig is missing or unreadable or the context does not exist
     */
    public static KubeConnection open(Path kubeconfig, String context, Duration requestTimeout) {
        return open(kubeconfig, context, requestTimeout, false);
    }

    /**
     * Like {@link #open(Path, String, Duration)}, but the client skips what the model never reads while parsing
     * ({@link ModelOnlyParsing}): its objects are incomplete, fit for mapping into the model and nothing else
     * (never to write back, never as evidence on disk).
     */
    public static KubeConnection openForModel(Path kubeconfig, String context, Duration requestTimeout) {
        return open(kubeconfig, context, requestTimeout, true);
    }

    private static KubeConnection open(Path kubeconfig, String context, Duration requestTimeout,
                                       boolean modelOnly) {
        if (requestTimeout == null || requestTimeout.isZero() || requestTimeout.isNegative()) {
            throw new InputException("--request-timeout must be longer than zero, got " + requestTimeout);
        }
        Config config = resolve(kubeconfig, context);
        config.setConnectionTimeout(CONNECT_TIMEOUT_MILLIS);
        config.setRequestTimeout((int) Math.min(Integer.MAX_VALUE, requestTimeout.toMillis()));
        config.setRequestRetryBackoffLimit(0);
        String contextName = config.getCurrentContext() == null ? null : config.getCurrentContext().getName();
        String server = stripSlash(config.getMasterUrl());
        KubernetesClientBuilder builder = new KubernetesClientBuilder().withConfig(config)
                .withHttpClientFactory(new JdkHttpClientFactory());
        if (modelOnly) {
            builder.withKubernetesSerialization(ModelOnlyParsing.serialization());
        }
        return new KubeConnection(builder.build(), contextName, server, requestTimeout, modelOnly);
    }

    private static Config resolve(Path kubeconfig, String context) {
        if (kubeconfig != null) {
            if (!Files.isRegularFile(kubeconfig)) {
                throw new InputException("kubeconfig " + kubeconfig + " does not exist or is not a file");
            }
            File file = kubeconfig.toFile();
            Config probe = parse(() -> Config.fromKubeconfig(null, file), kubeconfig.toString());
            requireContext(probe, context, kubeconfig.toString());
            return context == null ? probe : parse(() -> Config.fromKubeconfig(context, file), kubeconfig.toString());
        }
        Collection<String> files = Config.getKubeconfigFilenames();
        boolean anyFile = files != null && files.stream().filter(Objects::nonNull)
                .anyMatch(f -> Files.isRegularFile(Path.of(f)));
        String where = files == null || files.isEmpty() ? "~/.kube/config" : String.join(File.pathSeparator, files);
        if (!anyFile) {
            if (context != null) {
                throw new InputException("--context " + context + " given but no kubeconfig found (" + where
                        + "); pass --kubeconfig FILE");
            }
            if (System.getenv("KUBERNETES_SERVICE_HOST") == null) {
                throw new InputException("no kubeconfig found (" + where + ") and not running inside a cluster; "
                        + "pass --kubeconfig FILE, set $KUBECONFIG, or read dumps with -f PATH");
            }
            return Config.autoConfigure(null);
        }
        Config probe = parse(() -> Config.autoConfigure(null), where);
        requireContext(probe, context, where);
        return context == null ? probe : parse(() -> Config.autoConfigure(context), where);
    }

    private static Config parse(java.util.function.Supplier<Config> loader, String where) {
        try {
            return loader.get();
        } catch (InputException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new InputException("cannot read kubeconfig " + where + ": " + e.getMessage(), e);
        }
    }

    private static void requireContext(Config config, String context, String where) {
        List<String> names = config.getContexts() == null ? List.of()
                : config.getContexts().stream().map(NamedContext::getName).filter(Objects::nonNull).sorted().toList();
        if (context == null) {
            if (config.getCurrentContext() == null && !names.isEmpty()) {
                throw new InputException("kubeconfig " + where + " has no current-context; pass --context NAME "
                        + "(available contexts: " + String.join(", ", names) + ")");
            }
            return;
        }
        if (!names.contains(context)) {
            throw new InputException("context '" + context + "' not found in kubeconfig " + where
                    + "; available contexts: " + (names.isEmpty() ? "(none)" : String.join(", ", names)));
        }
    }

    private static String stripSlash(String url) {
        if (url == null) {
            return null;
        }
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    public KubernetesClient client() {
        return client;
    }

    /** The context in use (null in-cluster). */
    public String context() {
        return context;
    }

    /** API server URL without trailing slash. */
    public String server() {
        return server;
    }

    /** True when the client skips fields while parsing ({@link #openForModel}). */
    public boolean modelOnly() {
        return modelOnly;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** "context X (URL)" or "in-cluster (URL)", for messages and ClusterState.source. */
    public String describe() {
        return (context == null ? "in-cluster" : "context " + context) + " (" + server + ")";
    }

    @Override
    public void close() {
        client.close();
    }
}
