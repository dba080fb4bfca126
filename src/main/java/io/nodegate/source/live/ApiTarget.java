package io.nodegate.source.live;

import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.source.etcd.PemTls;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One API server and how to talk to it, resolved once from a kubeconfig (or the in-cluster service account) by
 * {@link Kubeconfig}: every read ({@link ApiHttp}) and every fabric8 client built for writes and watches
 * ({@link KubeConnection#client()}) uses this same interpretation, so the two can never disagree about which
 * server, which CA or which user.
 *
 * <p>Credentials from an exec plugin are fetched on first use and kept for the run ({@link #credentials()}); a
 * long-running process asks again once they expire.
 */
public final class ApiTarget {

    /** Where credentials that change come from: an exec plugin, or a fabric8 client's token provider. */
    interface CredentialSource {
        /** Fresh credentials; {@link Credentials#expires()} says when to ask again. */
        Credentials fetch(ApiTarget target);
    }

    /** Bearer token, basic auth or client certificate to present; any of them may be null. */
    public record Credentials(String token, String username, String password, String clientCertPem,
                              String clientKeyPem, String clientCertWhere, java.time.Instant expires) {
        static final Credentials NONE = new Credentials(null, null, null, null, null, null, null);

        boolean expired(java.time.Instant now) {
            return expires != null && !now.isBefore(expires.minusSeconds(10));
        }
    }

    private final String server;
    private final String context;
    private final String origin;
    private final String caPem;
    private final String caWhere;
    private final boolean insecure;
    private final String tlsServerName;
    private final Credentials staticCredentials;
    private final Path tokenFile;
    private final CredentialSource exec;
    private final ProxySetting proxy;
    private final String namespace;
    private String userName;

    private volatile Credentials cached;
    private volatile SSLContext sslContext;
    private volatile Credentials sslContextFor;

    ApiTarget(String server, String context, String origin, String caPem, String caWhere, boolean insecure,
              String tlsServerName, Credentials staticCredentials, Path tokenFile, CredentialSource exec,
              ProxySetting proxy, String namespace) {
        this.server = stripSlash(Objects.requireNonNull(server, "server"));
        this.context = context;
        this.origin = origin;
        this.caPem = caPem;
        this.caWhere = caWhere;
        this.insecure = insecure;
        this.tlsServerName = tlsServerName == null || tlsServerName.isBlank() ? null : tlsServerName;
        this.staticCredentials = staticCredentials == null ? Credentials.NONE : staticCredentials;
        this.tokenFile = tokenFile;
        this.exec = exec;
        this.proxy = proxy == null ? ProxySetting.NONE : proxy;
        this.namespace = namespace;
    }

    /** A target with no TLS material and at most a bearer token: tests and the plain-HTTP test server. */
    public static ApiTarget of(String server, String token) {
        return new ApiTarget(server, null, "given", null, null, false, null,
                new Credentials(token, null, null, null, null, null, null), null, null, null, null);
    }

    /** Same target, trusting any certificate (tests against a throw-away TLS server; kubeconfig's insecure flag). */
    public ApiTarget insecure() {
        return new ApiTarget(server, context, origin, null, null, true, tlsServerName, staticCredentials, tokenFile,
                exec, proxy, namespace);
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

    ApiTarget withUserName(String name) {
        this.userName = name; // set once, right after construction, by Kubeconfig
        return this;
    }

    /** The context's namespace, or null. */
    public String namespace() {
        return namespace;
    }

    public boolean insecureSkipTlsVerify() {
        return insecure;
    }

    public String tlsServerName() {
        return tlsServerName;
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

    /**
     * The credentials to present now: the kubeconfig's own, the token file's current content, or an exec plugin's
     * answer (run on first use and again after its expirationTimestamp).
     */
    public Credentials credentials() {
        Credentials c = cached;
        if (c != null && !c.expired(java.time.Instant.now())) {
            return c;
        }
        synchronized (this) {
            c = cached;
            if (c != null && !c.expired(java.time.Instant.now())) {
                return c;
            }
            if (exec != null) {
                c = exec.fetch(this);
            } else if (tokenFile != null && staticCredentials.token() == null) {
                c = new Credentials(readTokenFile(), staticCredentials.username(), staticCredentials.password(),
                        staticCredentials.clientCertPem(), staticCredentials.clientKeyPem(),
                        staticCredentials.clientCertWhere(), java.time.Instant.now().plusSeconds(70));
                // re-read a minute later: the kubelet rotates projected service-account tokens
            } else {
                c = staticCredentials;
            }
            cached = c;
            return c;
        }
    }

    private String readTokenFile() {
        return io.nodegate.source.InputFiles.readString(tokenFile, "the token file named by " + origin,
                io.nodegate.source.InputFiles.SMALL).trim();
    }

    /** The Authorization header value, or null when the user has no token and no password. */
    public String authorization() {
        Credentials c = credentials();
        if (c.token() != null && !c.token().isEmpty()) {
            return "Bearer " + c.token();
        }
        if (c.username() != null && !c.username().isEmpty()) {
            String pair = c.username() + ":" + (c.password() == null ? "" : c.password());
            return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
        }
        return null;
    }

    /**
     * TLS settings: the kubeconfig's CA (else the JDK's trust store), or no verification when
     * insecure-skip-tls-verify is set; the server's certificate is checked against tls-server-name when set,
     * else against the URL's host; the client certificate when the user has one.
     */
    public SSLContext sslContext() {
        Credentials c = credentials();
        SSLContext ctx = sslContext;
        if (ctx != null && sslContextFor == c) {
            return ctx;
        }
        synchronized (this) {
            if (sslContext != null && sslContextFor == c) {
                return sslContext;
            }
            ctx = buildSslContext(c);
            sslContext = ctx;
            sslContextFor = c;
            return ctx;
        }
    }

    /** The host name the server's certificate must carry: tls-server-name, else the URL's host. */
    public String expectedServerName() {
        if (tlsServerName != null) {
            return tlsServerName;
        }
        String host = java.net.URI.create(server).getHost();
        if (host != null && host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return host;
    }

    private SSLContext buildSslContext(Credentials c) {
        try {
            TrustManager[] trust;
            if (insecure) {
                trust = new TrustManager[]{new TrustAll()};
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
                X509TrustManager delegate = null;
                for (TrustManager tm : tmf.getTrustManagers()) {
                    if (tm instanceof X509TrustManager x) {
                        delegate = x;
                    }
                }
                trust = new TrustManager[]{new VerifyingTrust(delegate, expectedServerName())};
            }
            KeyManagerFactory kmf = null;
            if (c.clientCertPem() != null) {
                List<X509Certificate> chain = PemTls.certificates(c.clientCertPem(), c.clientCertWhere());
                PrivateKey key = PemTls.privateKey(c.clientKeyPem(), c.clientCertWhere() + " (client key)");
                PemTls.requireMatch(key, chain.get(0), c.clientCertWhere() + " (client key)", c.clientCertWhere());
                char[] password = new char[0];
                KeyStore identity = KeyStore.getInstance("PKCS12");
                identity.load(null, null);
                identity.setKeyEntry("client", key, password, chain.toArray(new Certificate[0]));
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(identity, password);
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), trust, new SecureRandom());
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new InputException("cannot build TLS settings for " + server + " from " + origin + ": "
                    + e.getMessage(), e);
        }
    }

    /** kubeconfig's insecure-skip-tls-verify: any certificate, any name (as kubectl does with that flag). */
    private static final class TrustAll extends X509ExtendedTrustManager {
        @Override public void checkClientTrusted(X509Certificate[] chain, String authType) { }
        @Override public void checkServerTrusted(X509Certificate[] chain, String authType) { }
        @Override public void checkClientTrusted(X509Certificate[] chain, String authType, Socket s) { }
        @Override public void checkServerTrusted(X509Certificate[] chain, String authType, Socket s) { }
        @Override public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine e) { }
        @Override public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine e) { }
        @Override public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }

    /**
     * Chain validation by the JDK against the chosen CAs, then the name check against one expected name: the
     * kubeconfig's tls-server-name when set (an apiserver reached by IP or through a tunnel whose certificate names
     * "kubernetes.default"), else the URL's host. Doing the name check here, with one name, is what makes
     * tls-server-name exact: HttpsURLConnection's own check would compare with the URL's host.
     */
    private static final class VerifyingTrust extends X509ExtendedTrustManager {
        private final X509TrustManager delegate;
        private final String expectedName;

        VerifyingTrust(X509TrustManager delegate, String expectedName) {
            this.delegate = delegate;
            this.expectedName = expectedName;
        }

        private void check(X509Certificate[] chain, String authType) throws CertificateException {
            delegate.checkServerTrusted(chain, authType);
            if (chain == null || chain.length == 0 || !HostNames.matches(chain[0], expectedName)) {
                throw new CertificateException("the API server's certificate is not valid for '" + expectedName
                        + "' (it names " + HostNames.names(chain == null || chain.length == 0 ? null : chain[0])
                        + ")" + " — set tls-server-name in the kubeconfig cluster if the server is reached under "
                        + "another name");
            }
        }

        @Override public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            delegate.checkClientTrusted(chain, authType);
        }
        @Override public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain, authType);
        }
        @Override public void checkClientTrusted(X509Certificate[] chain, String authType, Socket s) throws CertificateException {
            delegate.checkClientTrusted(chain, authType);
        }
        @Override public void checkServerTrusted(X509Certificate[] chain, String authType, Socket s) throws CertificateException {
            check(chain, authType);
        }
        @Override public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine e) throws CertificateException {
            delegate.checkClientTrusted(chain, authType);
        }
        @Override public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine e) throws CertificateException {
            check(chain, authType);
        }
        @Override public X509Certificate[] getAcceptedIssuers() {
            return delegate.getAcceptedIssuers();
        }
    }

    /** RFC 6125 name matching (subjectAltName DNS and IP entries; one leftmost wildcard label), as Go's crypto/tls. */
    static final class HostNames {
        private HostNames() {
        }

        static boolean matches(X509Certificate cert, String name) {
            if (name == null) {
                return false;
            }
            Collection<List<?>> sans;
            try {
                sans = cert.getSubjectAlternativeNames();
            } catch (CertificateParsingException e) {
                return false;
            }
            if (sans == null) {
                return false; // Go (and so kubectl) ignores the Common Name since 1.15
            }
            boolean ip = isIpLiteral(name);
            for (List<?> san : sans) {
                int type = (Integer) san.get(0);
                String value = String.valueOf(san.get(1));
                if (ip && type == 7 && sameAddress(value, name)) {
                    return true;
                }
                if (!ip && type == 2 && dnsMatches(value, name)) {
                    return true;
                }
            }
            return false;
        }

        static String names(X509Certificate cert) {
            if (cert == null) {
                return "nothing";
            }
            try {
                var sans = cert.getSubjectAlternativeNames();
                return sans == null ? "no subjectAltName" : sans.stream().map(s -> String.valueOf(s.get(1))).toList()
                        .toString();
            } catch (CertificateParsingException e) {
                return "an unreadable subjectAltName";
            }
        }

        private static boolean isIpLiteral(String name) {
            return name.contains(":") || name.matches("[0-9.]+");
        }

        private static boolean sameAddress(String a, String b) {
            try {
                return InetAddress.getByName(a).equals(InetAddress.getByName(b)); // literals only: no lookup
            } catch (IOException e) {
                return false;
            }
        }

        private static boolean dnsMatches(String pattern, String host) {
            String p = pattern.toLowerCase(Locale.ROOT);
            String h = host.toLowerCase(Locale.ROOT);
            if (p.endsWith(".")) {
                p = p.substring(0, p.length() - 1);
            }
            if (h.endsWith(".")) {
                h = h.substring(0, h.length() - 1);
            }
            if (p.startsWith("*.")) {
                int dot = h.indexOf('.');
                return dot > 0 && h.substring(dot).equals(p.substring(1));
            }
            return p.equals(h);
        }
    }

    /** For fabric8's config (writes, watches): base64 of PEM text, as kubeconfig's *-data fields carry it. */
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

    static CollectionException credentialFailure(String message) {
        return new CollectionException(message);
    }

    @Override
    public String toString() {
        return describe(); // never the credentials
    }
}
