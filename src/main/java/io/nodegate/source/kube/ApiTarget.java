package io.nodegate.source.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import io.fabric8.kubernetes.client.utils.TokenRefreshInterceptor;
import io.nodegate.InputException;
import io.nodegate.source.tls.PemTls;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * One API server and how to talk to it: fabric8's {@link Config}, resolved once per run ({@link Kubeconfig}), and
 * what the lean read path ({@link ApiHttp}) takes from it. The fabric8 client for writes and the watch's Events and
 * leader election is built from the same {@link #config()} with the same key and trust managers
 * ({@link KubeConnection#client()}), so reads and writes cannot disagree about the server, the CA, the user or the
 * proxy.
 *
 * <ul>
 *   <li>Authorization: fabric8's own {@link TokenRefreshInterceptor} decides the header, exactly as for its client:
 *       basic auth when a username and password are set, else the bearer token from the config's token provider (an
 *       exec plugin's answer, a tokenFile), the token, or the service account's token, which it reads again every
 *       minute (the kubelet rotates projected tokens).</li>
 *   <li>TLS: the JDK checks the chain against the kubeconfig's CA only (not the JDK's public CAs besides it, which
 *       fabric8's {@code SSLUtils.trustManagers} would add; kubectl trusts only the kubeconfig's CA), or against the
 *       JDK's trust store when no CA is set; insecure-skip-tls-verify trusts anything (fabric8's trust-all manager).
 *       The client certificate is loaded by fabric8's {@code SSLUtils.keyManagers} (the key already in PKCS#8:
 *       {@link Kubeconfig}). The server's name is checked by the JDK ({@link ApiHttp}).</li>
 *   <li>Proxy: decided once by {@link ProxySetting} and written back into the config, so fabric8's client goes the
 *       same way.</li>
 * </ul>
 *
 * <p>An exec plugin's credentials are fetched on first use and kept until their expirationTimestamp; a token goes
 * to both clients through the config's token provider, a client certificate makes a new TLS context here (fabric8's
 * client takes the one current when it is built).
 */
public final class ApiTarget {

    /** What an exec plugin answered: a bearer token or a client certificate (PEM), and until when. */
    public record Credentials(String token, String clientCertPem, String clientKeyPem, String clientCertWhere,
                              Instant expires) {
        boolean expired(Instant now) {
            return expires != null && !now.isBefore(expires.minusSeconds(10));
        }
    }

    private final Config config;
    private final String server;
    private final String context;
    private final String origin;
    private final String userName;
    private final String caPem;
    private final String caWhere;
    private final ExecPlugin exec;
    private final ProxySetting proxy;
    private final TokenRefreshInterceptor authorization;

    private volatile Credentials execAnswer;
    private volatile TlsMaterial tls;

    /** Key and trust managers for one client identity; both clients use them. */
    record TlsMaterial(KeyManager[] keyManagers, TrustManager[] trustManagers, SSLContext context, Credentials forExec) {
    }

    ApiTarget(Config config, String context, String origin, String userName, String caPem, String caWhere,
              ExecPlugin exec, ProxySetting proxy) {
        this.config = Objects.requireNonNull(config, "config");
        this.server = stripSlash(Objects.requireNonNull(config.getMasterUrl(), "server"));
        this.context = context;
        this.origin = origin;
        this.userName = userName;
        this.caPem = caPem;
        this.caWhere = caWhere;
        this.exec = exec;
        this.proxy = proxy == null ? ProxySetting.NONE : proxy;
        if (exec != null) {
            config.setOauthTokenProvider(() -> execCredentials().token());
        }
        // the interceptor re-reads an auto-configured (in-cluster) token once a minute, as it does for fabric8's client
        this.authorization = new TokenRefreshInterceptor(config, Instant.now(),
                refreshed -> CompletableFuture.completedFuture(null));
    }

    /**
     * The target a fabric8 config describes as it is (a client built elsewhere, tests): its server, CA, user and
     * proxy; {@code origin} names it in messages.
     */
    public static ApiTarget of(Config config, String origin) {
        String ca = Kubeconfig.caPem(config, origin);
        String context = config.getCurrentContext() == null ? null : config.getCurrentContext().getName();
        return new ApiTarget(config, context, origin, null, ca, origin + " (certificate authority)", null,
                ProxySetting.of(config, origin));
    }

    /** A target with no TLS material and at most a bearer token: tests and the plain-HTTP test server. */
    public static ApiTarget of(String server, String token) {
        Config config = Config.empty();
        config.setMasterUrl(server);
        config.setOauthToken(token);
        return new ApiTarget(config, null, "given", null, null, null, null, ProxySetting.NONE);
    }

    /** The resolved fabric8 configuration: what fabric8's client is built from. */
    public Config config() {
        return config;
    }

    /** API server URL without trailing slash. */
    public String server() {
        return server;
    }

    /** The context in use; null in-cluster (and for targets built directly). */
    public String context() {
        return context;
    }

    /** Where this target came from, for messages: "kubeconfig /home/op/.kube/config" or "in-cluster". */
    public String origin() {
        return origin;
    }

    /** The kubeconfig user's name (never a credential), or null in-cluster. */
    public String userName() {
        return userName;
    }

    /** The context's namespace, or null. */
    public String namespace() {
        return config.getNamespace();
    }

    public boolean insecureSkipTlsVerify() {
        return config.isTrustCerts();
    }

    public String tlsServerName() {
        String name = config.getTlsServerName();
        return name == null || name.isBlank() ? null : name;
    }

    /** The CA bundle (PEM) to trust, or null for the JDK's default trust store. */
    public String caPem() {
        return caPem;
    }

    public ProxySetting proxy() {
        return proxy;
    }

    public boolean https() {
        return server.regionMatches(true, 0, "https:", 0, 6);
    }

    /** True when credentials come from an exec plugin (they may expire and be fetched again). */
    public boolean usesExecPlugin() {
        return exec != null;
    }

    /** The exec plugin's current answer, run on first use and again after its expirationTimestamp. */
    Credentials execCredentials() {
        Credentials c = execAnswer;
        if (c != null && !c.expired(Instant.now())) {
            return c;
        }
        synchronized (this) {
            c = execAnswer;
            if (c == null || c.expired(Instant.now())) {
                c = exec.fetch(this);
                execAnswer = c;
            }
            return c;
        }
    }

    /** The Authorization header value fabric8's client would send now, or null for none. */
    public String authorization() {
        String[] header = new String[1];
        authorization.before(new BasicBuilder() {
            @Override
            public BasicBuilder uri(URI uri) {
                return this;
            }

            @Override
            public BasicBuilder header(String name, String value) {
                return setHeader(name, value);
            }

            @Override
            public BasicBuilder setHeader(String name, String value) {
                if (TokenRefreshInterceptor.AUTHORIZATION.equalsIgnoreCase(name)) {
                    header[0] = value;
                }
                return this;
            }
        }, null, null);
        return header[0];
    }

    /** The TLS context for the current identity (a new one when an exec plugin's certificate was renewed). */
    public SSLContext sslContext() {
        return tls().context();
    }

    /** The key and trust managers of {@link #sslContext()}, for fabric8's client. */
    TlsMaterial tls() {
        Credentials identity = exec == null ? null : execCredentials();
        TlsMaterial t = tls;
        if (t != null && t.forExec() == identity) {
            return t;
        }
        synchronized (this) {
            if (tls == null || tls.forExec() != identity) {
                tls = buildTls(identity);
            }
            return tls;
        }
    }

    private TlsMaterial buildTls(Credentials identity) {
        try {
            TrustManager[] trust;
            if (config.isTrustCerts()) {
                trust = SSLUtils.trustManagers(null, null, true, null, null);
            } else {
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                if (caPem != null) {
                    KeyStore store = KeyStore.getInstance("PKCS12");
                    store.load(null, null);
                    int i = 0;
                    for (X509Certificate ca : PemTls.certificates(caPem, caWhere)) {
                        store.setCertificateEntry("ca-" + i++, ca);
                    }
                    tmf.init(store);
                } else {
                    tmf.init((KeyStore) null);
                }
                trust = tmf.getTrustManagers();
            }
            KeyManager[] keys;
            if (identity != null && identity.clientCertPem() != null) {
                Kubeconfig.ClientKey key = Kubeconfig.clientKey(identity.clientCertPem(), identity.clientKeyPem(),
                        identity.clientCertWhere());
                keys = SSLUtils.keyManagers(base64(identity.clientCertPem()), null, key.pkcs8Base64(), null,
                        key.algorithm(), config.getClientKeyPassphrase(), null, null);
            } else {
                keys = SSLUtils.keyManagers(config);
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(keys, trust, new SecureRandom());
            return new TlsMaterial(keys, trust, ctx, identity);
        } catch (GeneralSecurityException | IOException e) {
            throw new InputException("cannot build TLS settings for " + server + " from " + origin + ": "
                    + e.getMessage(), e);
        }
    }

    /** base64 of PEM text, as kubeconfig's *-data fields carry it. */
    static String base64(String pem) {
        return pem == null ? null : Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.ISO_8859_1));
    }

    static String stripSlash(String url) {
        String u = url.trim();
        while (u.endsWith("/")) {
            u = u.substring(0, u.length() - 1);
        }
        return u;
    }

    /** "context X (URL)" or "in-cluster (URL)", for messages and ClusterState.source. */
    public String describe() {
        return (context == null ? "in-cluster" : "context " + context) + " (" + server + ")";
    }

    @Override
    public String toString() {
        return describe(); // never the credentials
    }
}
