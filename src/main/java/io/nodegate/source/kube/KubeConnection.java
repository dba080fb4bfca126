package io.nodegate.source.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.nodegate.InputException;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A live API server: where it is and how to talk to it ({@link ApiTarget}: fabric8's {@link Config}, resolved once
 * by {@link Kubeconfig}), the lean read layer over it ({@link #http()}, {@link ApiCalls}), and a fabric8 client built
 * <b>only when asked for</b> ({@link #client()}) by the paths that write (annotate, remove, readmit, policy --apply,
 * Events, leader election). Reads, the watch's included, never build it: a live audit, gate, baseline, verify-gone,
 * redundancy, views or fleet run costs no fabric8 client start-up (0.5-0.9 s measured in a fresh JVM).
 *
 * <p>The fabric8 client is built from the target's own {@link Config} (server, CA, tls-server-name, insecure flag,
 * token provider, client certificate, proxy) with the same key and trust managers as the reads, so reads and writes
 * use one resolution of the kubeconfig. Tuned for an interactive tool: no request retries and a 3 s connect timeout.
 */
public final class KubeConnection implements AutoCloseable {

    /** Connect timeout: long enough for a WAN round trip, short enough to fail fast on a dead address. */
    public static final int CONNECT_TIMEOUT_MILLIS = ApiHttp.CONNECT_TIMEOUT_MILLIS;

    private final ApiTarget target;
    private final Duration requestTimeout;
    private final boolean modelOnly;
    private final ApiHttp http;
    private final LastServerAsked lastAsked;
    private final boolean ownsClient;
    private volatile KubernetesClient client;

    private KubeConnection(ApiTarget target, Duration requestTimeout, boolean modelOnly, KubernetesClient given,
                           LastServerAsked lastAsked) {
        this.target = target;
        this.lastAsked = java.util.Objects.requireNonNull(lastAsked, "lastAsked");
        this.requestTimeout = requestTimeout;
        this.modelOnly = modelOnly;
        this.http = new ApiHttp(target, requestTimeout);
        this.client = given;
        this.ownsClient = given == null;
    }

    /**
     * @param kubeconfig     explicit kubeconfig file, or null for $KUBECONFIG / ~/.kube/config / in-cluster
     * @param context        context name, or null for the current context
     * @param requestTimeout each request's total deadline (connect, headers and body)
     * @throws InputException when the kubeconfig is missing or unreadable or the context does not exist
     */
    public static KubeConnection open(Path kubeconfig, String context, Duration requestTimeout) {
        return open(kubeconfig, context, requestTimeout, false, new LastServerAsked());
    }

    /**
     * Like {@link #open(Path, String, Duration)}; every call over it is recorded in {@code lastAsked} (the command's
     * own, for its overall deadline's message).
     */
    public static KubeConnection open(Path kubeconfig, String context, Duration requestTimeout,
                                      LastServerAsked lastAsked) {
        return open(kubeconfig, context, requestTimeout, false, lastAsked);
    }

    /**
     * Like {@link #open(Path, String, Duration)}, for reads into the model only: lists skip while parsing what the
     * model never reads (managedFields, images, Secret values); never for evidence on disk.
     */
    public static KubeConnection openForModel(Path kubeconfig, String context, Duration requestTimeout) {
        return open(kubeconfig, context, requestTimeout, true, new LastServerAsked());
    }

    /** Like {@link #openForModel(Path, String, Duration)}, recording every call in {@code lastAsked}. */
    public static KubeConnection openForModel(Path kubeconfig, String context, Duration requestTimeout,
                                              LastServerAsked lastAsked) {
        return open(kubeconfig, context, requestTimeout, true, lastAsked);
    }

    private static KubeConnection open(Path kubeconfig, String context, Duration requestTimeout, boolean modelOnly,
                                       LastServerAsked lastAsked) {
        requirePositive(requestTimeout);
        return new KubeConnection(Kubeconfig.resolve(kubeconfig, context), requestTimeout, modelOnly, null, lastAsked);
    }

    /** A connection to a target resolved elsewhere (tests, several views). */
    public static KubeConnection of(ApiTarget target, Duration requestTimeout, boolean modelOnly) {
        requirePositive(requestTimeout);
        return new KubeConnection(target, requestTimeout, modelOnly, null, new LastServerAsked());
    }

    /**
     * A connection around a fabric8 client built elsewhere (tests point commands at their server this way): reads
     * go through the lean layer to the client's server with its token, writes use the client itself. Closing the
     * connection does not close that client: its owner does.
     */
    public static KubeConnection wrapping(KubernetesClient client) {
        return wrapping(client, null);
    }

    /** Like {@link #wrapping(KubernetesClient)}; {@code requestTimeout} null means the client's own. */
    public static KubeConnection wrapping(KubernetesClient client, Duration requestTimeout) {
        return wrapping(client, requestTimeout, new LastServerAsked());
    }

    /** Like {@link #wrapping(KubernetesClient, Duration)}, recording every call in {@code lastAsked}. */
    public static KubeConnection wrapping(KubernetesClient client, Duration requestTimeout, LastServerAsked lastAsked) {
        Config c = client.getConfiguration();
        long millis = c.getRequestTimeout() > 0 ? c.getRequestTimeout() : 10_000;
        return new KubeConnection(ApiTarget.of(c, "a fabric8 client"),
                requestTimeout != null && !requestTimeout.isZero() && !requestTimeout.isNegative()
                        ? requestTimeout : Duration.ofMillis(millis), false, client, lastAsked);
    }

    private static void requirePositive(Duration requestTimeout) {
        if (requestTimeout == null || requestTimeout.isZero() || requestTimeout.isNegative()) {
            throw new InputException("--request-timeout must be longer than zero, got " + requestTimeout);
        }
    }

    public ApiTarget target() {
        return target;
    }

    /** The lean HTTP layer every read goes through. */
    public ApiHttp http() {
        return http;
    }

    /** True once a fabric8 client exists (tests assert that reads never build one). */
    public boolean clientBuilt() {
        return client != null && ownsClient;
    }

    /** The fabric8 client for writes, Events and leader election, built on first use from the target's config. */
    public KubernetesClient client() {
        KubernetesClient c = client;
        if (c == null) {
            synchronized (this) {
                if (client == null) {
                    // the one resolved config, tuned for an interactive tool: no request retries, a short connect
                    Config config = target.config();
                    config.setConnectionTimeout(CONNECT_TIMEOUT_MILLIS);
                    config.setRequestTimeout((int) Math.min(Integer.MAX_VALUE, requestTimeout.toMillis()));
                    config.setRequestRetryBackoffLimit(0);
                    KubernetesClientBuilder builder = new KubernetesClientBuilder()
                            .withConfig(config)
                            .withHttpClientFactory(new ServerNameJdkHttpClientFactory(target.tlsServerName(),
                                    config.getTlsVersions()));
                    if (target.https()) {
                        // the same key and trust managers as the reads (see ApiTarget: the kubeconfig's CA only)
                        builder.withHttpClientBuilderConsumer(http -> {
                            ApiTarget.TlsMaterial tls = target.tls();
                            http.sslContext(tls.keyManagers(), tls.trustManagers());
                        });
                    }
                    if (modelOnly) {
                        // a connection opened for the model: what its client reads is never written back
                        builder.withKubernetesSerialization(ModelOnlyParsing.serialization());
                    }
                    client = builder.build();
                }
                c = client;
            }
        }
        return c;
    }

    /**
     * fabric8's JDK HTTP client, also sending tls-server-name as the SNI name: fabric8's JDK client ignores
     * tls-server-name (it logs that it is not supported). The JDK's HttpClient keeps an SNI name given in its
     * SSLParameters only when the server URL's host is an IP address (otherwise it sends the host), and then checks
     * the certificate against that name first and the URL's host after it (the JDK's
     * {@code X509TrustManagerImpl.checkIdentity}). So writes to an apiserver reached by IP whose certificate names
     * tls-server-name work; through a server URL with a DNS name the certificate lacks, only the reads do.
     */
    private static final class ServerNameJdkHttpClientFactory extends JdkHttpClientFactory {
        private final String serverName;
        private final io.fabric8.kubernetes.client.http.TlsVersion[] versions;

        ServerNameJdkHttpClientFactory(String serverName, io.fabric8.kubernetes.client.http.TlsVersion[] versions) {
            this.serverName = serverName;
            this.versions = versions;
        }

        @Override
        protected void additionalConfig(java.net.http.HttpClient.Builder builder) {
            if (serverName == null) {
                return;
            }
            javax.net.ssl.SSLParameters parameters = new javax.net.ssl.SSLParameters();
            if (versions != null && versions.length > 0) {
                // what fabric8 set before this hook runs (its TLS versions), which these parameters replace
                parameters.setProtocols(java.util.Arrays.stream(versions)
                        .map(io.fabric8.kubernetes.client.http.TlsVersion::javaName).toArray(String[]::new));
            }
            try {
                parameters.setServerNames(java.util.List.of(new javax.net.ssl.SNIHostName(serverName)));
            } catch (IllegalArgumentException ipAddress) {
                return; // an IP address is no SNI name
            }
            builder.sslParameters(parameters);
        }
    }

    /** The context in use (null in-cluster). */
    public String context() {
        return target.context();
    }

    /** API server URL without trailing slash. */
    public String server() {
        return target.server();
    }

    /** True when reads skip, while parsing, what the model never reads ({@link #openForModel}). */
    public boolean modelOnly() {
        return modelOnly;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    /**
     * Where calls over this connection record their server: the command's own when it opened the connection, else
     * one of the connection's own (library callers and tests that have no overall deadline to feed).
     */
    public LastServerAsked lastAsked() {
        return lastAsked;
    }

    /** "context X (URL)" or "in-cluster (URL)", for messages and ClusterState.source. */
    public String describe() {
        return target.describe();
    }

    @Override
    public void close() {
        KubernetesClient c = client;
        if (c != null && ownsClient) {
            c.close();
        }
    }
}
