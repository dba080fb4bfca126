package io.nodegate.source.live;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.nodegate.InputException;
import io.nodegate.source.etcd.PemTls;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;

/**
 * A live API server: where it is and how to talk to it ({@link ApiTarget}, resolved by kubectl's rules in
 * {@link Kubeconfig}), the lean read layer over it ({@link #http()}, {@link ApiCalls}), and a fabric8 client built
 * <b>only when asked for</b> ({@link #client()}) by the paths that write (annotate, remove, readmit, policy --apply,
 * Events, leader election). Reads, the watch's included, never build it: a live audit, gate, baseline, verify-gone,
 * redundancy, views or fleet run costs no fabric8 start-up (0.5-0.9 s measured in a fresh JVM).
 *
 * <p>The fabric8 client is configured from the same {@link ApiTarget} (server, CA, tls-server-name, insecure flag,
 * token or exec-plugin credentials, client certificate, proxy), so reads and writes use one interpretation of the
 * kubeconfig. Tuned for an interactive tool: no request retries and a 3 s connect timeout.
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
        return new KubeConnection(targetOf(c, client.getMasterUrl().toString()),
                requestTimeout != null && !requestTimeout.isZero() && !requestTimeout.isNegative()
                        ? requestTimeout : Duration.ofMillis(millis), false, client, lastAsked);
    }

    /**
     * The same server, TLS settings and credentials as a fabric8 config (the reverse of {@link #fabric8Config}), so
     * reads next to a client built elsewhere authenticate as that client does.
     */
    static ApiTarget targetOf(Config c, String masterUrl) {
        String caPem = pem(c.getCaCertData(), c.getCaCertFile());
        String certPem = pem(c.getClientCertData(), c.getClientCertFile());
        String keyPem = pem(c.getClientKeyData(), c.getClientKeyFile());
        ApiTarget.Credentials fixed = new ApiTarget.Credentials(null, c.getUsername(), c.getPassword(),
                certPem != null && keyPem != null ? certPem : null, certPem != null && keyPem != null ? keyPem : null,
                "the fabric8 client's client certificate", null);
        boolean insecure = Boolean.TRUE.equals(c.isTrustCerts());
        ApiTarget target = new ApiTarget(masterUrl, null, "a fabric8 client", insecure ? null : caPem,
                "the fabric8 client's CA", insecure, c.getTlsServerName(), fixed, null,
                new TokenFrom(c), ProxySetting.NONE, c.getNamespace());
        return target;
    }

    private static String pem(String data, String file) {
        if (data != null && !data.isBlank()) {
            String decoded = new String(Base64.getMimeDecoder().decode(data.trim()), StandardCharsets.ISO_8859_1);
            return decoded.contains("-----BEGIN") ? decoded : data; // fabric8 also accepts PEM text as "data"
        }
        return file == null || file.isBlank() ? null : readQuietly(Path.of(file));
    }

    /** The fabric8 config's bearer token, asked each time (a provider may refresh it). */
    private record TokenFrom(Config config) implements ApiTarget.CredentialSource {
        @Override
        public ApiTarget.Credentials fetch(ApiTarget target) {
            String token = config.getOauthTokenProvider() != null ? config.getOauthTokenProvider().getToken()
                    : config.getAutoOAuthToken() != null ? config.getAutoOAuthToken() : config.getOauthToken();
            String certPem = pem(config.getClientCertData(), config.getClientCertFile());
            String keyPem = pem(config.getClientKeyData(), config.getClientKeyFile());
            boolean cert = certPem != null && keyPem != null;
            return new ApiTarget.Credentials(token, config.getUsername(), config.getPassword(), cert ? certPem : null,
                    cert ? keyPem : null, "the fabric8 client's client certificate",
                    java.time.Instant.now().plusSeconds(60));
        }
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

    /** The fabric8 client for writes and watches, built on first use from the same {@link ApiTarget}. */
    public KubernetesClient client() {
        KubernetesClient c = client;
        if (c == null) {
            synchronized (this) {
                if (client == null) {
                    KubernetesClientBuilder builder = new KubernetesClientBuilder()
                            .withConfig(fabric8Config(target, requestTimeout))
                            .withHttpClientFactory(new JdkHttpClientFactory());
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

    /** fabric8's view of the target: the same server, TLS settings and credentials as the lean reads use. */
    static Config fabric8Config(ApiTarget target, Duration requestTimeout) {
        ConfigBuilder b = new ConfigBuilder(Config.empty())
                .withMasterUrl(target.server())
                .withConnectionTimeout(CONNECT_TIMEOUT_MILLIS)
                .withRequestTimeout((int) Math.min(Integer.MAX_VALUE, requestTimeout.toMillis()))
                .withRequestRetryBackoffLimit(0)
                .withTrustCerts(target.insecureSkipTlsVerify())
                .withDisableHostnameVerification(target.insecureSkipTlsVerify());
        if (target.namespace() != null) {
            b.withNamespace(target.namespace());
        }
        if (target.caPem() != null) {
            b.withCaCertData(ApiTarget.base64(target.caPem()));
        }
        if (target.tlsServerName() != null) {
            b.withTlsServerName(target.tlsServerName());
        }
        ApiTarget.Credentials creds = target.credentials();
        if (creds.clientCertPem() != null) {
            var key = PemTls.privateKey(creds.clientKeyPem(), creds.clientCertWhere() + " (client key)");
            String pkcs8 = "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
                    + "\n-----END PRIVATE KEY-----\n";
            b.withClientCertData(ApiTarget.base64(creds.clientCertPem()))
                    .withClientKeyData(ApiTarget.base64(pkcs8))
                    .withClientKeyAlgo(key.getAlgorithm());
        }
        if (creds.username() != null) {
            b.withUsername(creds.username()).withPassword(creds.password());
        }
        if (creds.token() != null) {
            // through a provider: an exec plugin's or a rotated token file's token is fetched again once expired
            b.withOauthTokenProvider(() -> target.credentials().token());
        }
        if (target.proxy().url() != null) {
            String url = target.proxy().url().contains("://") ? target.proxy().url() : "http://" + target.proxy().url();
            b.withHttpProxy(url).withHttpsProxy(url);
        }
        return b.build();
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

    static String readQuietly(Path p) {
        try {
            return io.nodegate.source.InputFiles.readString(p, "file", io.nodegate.source.InputFiles.SMALL);
        } catch (io.nodegate.NodegateException e) {
            return null;
        }
    }
}
