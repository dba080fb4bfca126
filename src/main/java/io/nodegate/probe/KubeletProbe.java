package io.nodegate.probe;

import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.KubeletAnswer.Outcome;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Knocks on a kubelet's serving port: TCP connect, then a TLS handshake, then close. No request, no credentials
 * and no data go out; the only thing read is the serving certificate the kubelet presents in the handshake.
 * The certificate says which cluster's CA issued it, which tells "powered off" (no answer) from "alive here"
 * (this cluster's CA) from "alive for someone else" (another CA) without access to the host (seed 000: gpu-a07
 * answered on 10250 with cluster B's certificate while cluster A showed it Unknown for six days).
 *
 * <p>Verdicts go by signature, never by name. RKE2 and k3s name every cluster's CAs alike: k3s
 * {@code pkg/daemons/control/deps/deps.go} (createSigningCertKey) names them {@code <prefix>-ca@<unix time>} with
 * prefixes {@code <prog>-server}, {@code <prog>-client}, {@code <prog>-request-header}, {@code etcd-server},
 * {@code etcd-peer}; rke2 builds k3s with {@code version.Program=rke2} (rke2 {@code scripts/build-binary}), so
 * an RKE2 kubelet's serving certificate, signed by the server CA in k3s {@code pkg/server/handlers/handlers.go}
 * (ServingKubeletCert), comes from {@code rke2-server-ca@<unix time>} in every RKE2 cluster. A kubelet without a
 * serving certificate makes its own (kubernetes {@code cmd/kubelet/app/server.go}, InitializeTLS:
 * {@code certutil.GenerateSelfSignedCertKey(hostName, nil, nil)} with the hostname from
 * {@code nodeutil.GetHostname(--hostname-override)}); client-go {@code util/cert/cert.go}
 * (GenerateSelfSignedCertKeyWithFixtures) names its CA {@code <host>-ca@<unix>} and the leaf {@code <host>@<unix>},
 * and writes the leaf followed by that CA, which the kubelet presents as its chain. Both shapes end in
 * {@code -ca@<digits>}, so the name alone cannot tell them apart:
 * <ul>
 *   <li>this cluster: the chain leads, signature by signature, to a CA certificate of this cluster, and the peer
 *   completes the handshake (it holds the key);</li>
 *   <li>self-signed: the issuer is {@code <host>-ca@<unix>} and the leaf {@code <host>@<unix>} for the same host,
 *   and, when the peer presents that CA (the kubelet does), the CA signed the leaf and itself. It is this node's
 *   own when the host is the Node's name (or its Hostname address);</li>
 *   <li>anything else that is not ours (an RKE2/k3s cluster CA of the same name with another key included) is
 *   another cluster's CA.</li>
 * </ul>
 * A port that answers is never "no answer": a refused connect (nothing listens) and silence are what a cleaned-up
 * host gives; a port that accepts and then resets, or never finishes the handshake, is something else. The
 * timeout is one deadline for connect and handshake together: a port that drips a byte a second never keeps the
 * probe longer.
 */
public final class KubeletProbe {

    public static final int DEFAULT_PORT = 10250;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(3);
    /** client-go's self-signed CA name: "&lt;host&gt;-ca@&lt;unix time&gt;". */
    private static final Pattern SELF_SIGNED_CA_CN = Pattern.compile("(.+)-ca@(\\d+)");
    /** client-go's self-signed leaf name: "&lt;host&gt;@&lt;unix time&gt;". */
    private static final Pattern SELF_SIGNED_LEAF_CN = Pattern.compile("(.+)@(\\d+)");
    /** k3s/RKE2 cluster CA names (deps.go createSigningCertKey). */
    private static final Pattern DISTRIBUTION_CA_CN =
            Pattern.compile("(rke2|k3s)-(server|client|request-header)-ca@\\d+|etcd-(server|peer)-ca@\\d+");
    private static final int PARALLEL = 16;
    private static final int MAX_CHAIN = 10;
    private static final ScheduledExecutorService DEADLINES = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kubelet-probe-deadline");
        t.setDaemon(true);
        return t;
    });

    private final int port;
    private final Duration timeout;
    private final List<X509Certificate> clusterCas;

    /** @param clusterCas this cluster's CA certificates (kubeconfig and kube-root-ca.crt); must not be empty */
    public KubeletProbe(int port, Duration timeout, List<X509Certificate> clusterCas) {
        if (clusterCas.isEmpty()) {
            throw new IllegalArgumentException("no CA certificate of this cluster to compare kubelet certificates with");
        }
        this.port = port;
        this.timeout = timeout;
        this.clusterCas = List.copyOf(clusterCas);
    }

    /**
     * A Node to probe at one address.
     *
     * @param hostnames the names this Node's kubelet calls its host (the Node's name, its Hostname addresses): a
     *                  self-signed certificate for one of them is this node's kubelet's own
     */
    public record Target(String node, String address, List<String> hostnames) {
        public Target {
            hostnames = hostnames == null ? List.of(node) : List.copyOf(hostnames);
        }

        public Target(String node, String address) {
            this(node, address, List.of(node));
        }
    }

    /** Probes every target, {@value #PARALLEL} at a time, in the targets' order. */
    public List<KubeletAnswer> probeAll(List<Target> targets) {
        if (targets.isEmpty()) {
            return List.of();
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(PARALLEL, targets.size()), r -> {
            Thread t = new Thread(r, "kubelet-probe");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<KubeletAnswer>> futures = new ArrayList<>();
            for (Target t : targets) {
                futures.add(pool.submit(() -> probe(t)));
            }
            List<KubeletAnswer> out = new ArrayList<>();
            for (Future<KubeletAnswer> f : futures) {
                out.add(f.get());
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("kubelet probe interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("kubelet probe failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    public KubeletAnswer probe(String node, String address) {
        return probe(new Target(node, address));
    }

    public KubeletAnswer probe(Target target) {
        String node = target.node();
        String address = target.address();
        if (address == null) {
            return new KubeletAnswer(node, null, port, Outcome.NO_ADDRESS, null, null, List.of(),
                    "the Node lists no InternalIP");
        }
        String where = "the kubelet port at " + (address.contains(":") ? "[" + address + "]" : address) + ":" + port;
        long start = System.nanoTime();
        AtomicReference<X509Certificate[]> seen = new AtomicReference<>();
        AtomicBoolean expired = new AtomicBoolean();
        Socket raw = new Socket();
        // one deadline for connect and handshake: a read timeout alone restarts with every byte that arrives
        ScheduledFuture<?> deadline = DEADLINES.schedule(() -> {
            expired.set(true);
            closeQuietly(raw);
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        try {
            try {
                raw.connect(new InetSocketAddress(address, port), (int) Math.max(1, timeout.toMillis()));
            } catch (ConnectException e) {
                if (String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("refused")) {
                    return answer(target, Outcome.REFUSED, null, where + " refused the connection: nothing listens "
                            + "there (the host answers, the kubelet does not)");
                }
                return answer(target, Outcome.NO_ANSWER, null, where + ": " + e.getMessage());
            } catch (NoRouteToHostException e) {
                return answer(target, Outcome.NO_ANSWER, null, where + ": no route to host (" + e.getMessage() + ")");
            } catch (SocketTimeoutException e) {
                return answer(target, Outcome.NO_ANSWER, null, "no answer from " + where + " within " + millis());
            } catch (IOException e) {
                if (expired.get()) {
                    return answer(target, Outcome.NO_ANSWER, null, "no answer from " + where + " within " + millis());
                }
                if (isReset(e)) {
                    // the TCP handshake completed (a refusal is ECONNREFUSED), then the peer reset it
                    return answer(target, Outcome.RESET, null, where + " accepted the connection, then reset it ("
                            + describe(e) + "): something listens there");
                }
                return answer(target, Outcome.NO_ANSWER, null, where + ": " + e.getClass().getSimpleName() + ": "
                        + e.getMessage());
            }
            boolean completed = false;
            IOException failure = null;
            try {
                long left = timeout.toMillis() - Duration.ofNanos(System.nanoTime() - start).toMillis();
                raw.setSoTimeout((int) Math.max(1, left));
                SSLContext tls = SSLContext.getInstance("TLS");
                tls.init(null, new TrustManager[]{new Recorder(seen)}, null);
                try (SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket(raw, address, port, true)) {
                    s.startHandshake();
                    completed = !expired.get();
                }
            } catch (IOException e) {
                failure = e;
            }
            X509Certificate[] chain = seen.get();
            if (chain == null) {
                if (expired.get() || isTimeout(failure)) {
                    return answer(target, Outcome.NOT_TLS, null, where + " accepted the connection, but the TLS "
                            + "handshake did not finish within " + millis() + " (one deadline for connect and "
                            + "handshake): something holds the port without answering as a kubelet");
                }
                if (isReset(failure)) {
                    return answer(target, Outcome.RESET, null, where + " accepted the connection, then reset or "
                            + "closed it without a certificate (" + describe(failure) + "): something listens there");
                }
                return answer(target, Outcome.NOT_TLS, null, where + " accepted the connection, but the TLS "
                        + "handshake failed: " + describe(failure));
            }
            return classify(target, where, chain, completed, failure);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("TLS is not available in this JVM: " + e.getMessage(), e);
        } finally {
            deadline.cancel(false);
            closeQuietly(raw);
        }
    }

    private String millis() {
        return timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + "s" : timeout.toMillis() + " ms";
    }

    private KubeletAnswer answer(Target t, Outcome outcome, X509Certificate[] chain, String detail) {
        if (chain == null) {
            return new KubeletAnswer(t.node(), t.address(), port, outcome, null, null, List.of(), detail);
        }
        X509Certificate leaf = chain[0];
        return new KubeletAnswer(t.node(), t.address(), port, outcome, leaf.getIssuerX500Principal().getName(),
                leaf.getSubjectX500Principal().getName(), sans(leaf), detail);
    }

    private KubeletAnswer classify(Target target, String where, X509Certificate[] chain, boolean completed,
                                   IOException failure) {
        X509Certificate leaf = chain[0];
        String issuer = leaf.getIssuerX500Principal().getName();
        X509Certificate ca = chainsToCluster(chain);
        if (ca != null) {
            if (!completed) {
                // a certificate is public; only finishing the handshake shows the peer holds its key
                return answer(target, Outcome.NOT_TLS, chain, where + " presented a certificate of this cluster's CA "
                        + "but did not finish the handshake" + (failure == null ? "" : " (" + describe(failure) + ")")
                        + ": it did not show it holds the key");
            }
            return answer(target, Outcome.THIS_CLUSTER, chain, "serving certificate chains to this cluster's CA "
                    + ca.getSubjectX500Principal().getName() + " (signature verified)");
        }
        SelfSigned self = selfSigned(chain);
        if (self != null) {
            String basis = self.verified() ? "its CA " + self.caName() + " was presented and signed it"
                    : "judged by name: the peer did not present the CA " + self.caName();
            boolean ours = target.hostnames().stream().anyMatch(h -> h.equalsIgnoreCase(self.host()));
            if (ours) {
                return answer(target, Outcome.SELF_SIGNED, chain, "the kubelet's own self-signed certificate for "
                        + self.host() + " (" + basis + "): it is alive, but the certificate names no cluster");
            }
            return answer(target, Outcome.SELF_SIGNED_OTHER_HOST, chain, "a kubelet's self-signed certificate for "
                    + "host " + self.host() + ", not " + String.join("/", target.hostnames()) + " (" + basis + "): the "
                    + "host was renamed, or the address now belongs to another machine");
        }
        String issuerCn = commonName(leaf.getIssuerX500Principal().getName());
        boolean sameNameAsOurs = clusterCas.stream()
                .anyMatch(c -> c.getSubjectX500Principal().equals(leaf.getIssuerX500Principal()));
        String kind = issuerCn != null && DISTRIBUTION_CA_CN.matcher(issuerCn).matches()
                ? "an RKE2/k3s cluster CA" : "a CA";
        return answer(target, Outcome.OTHER_CA, chain, "serving certificate issued by " + issuer + ", " + kind
                + " that is not this cluster's" + (sameNameAsOurs ? " (it has the name of this cluster's CA, but "
                + "another key: k3s and RKE2 name every cluster's CA alike)" : "") + ": a kubelet of another cluster");
    }

    /** The cluster CA the chain leads to, checking every signature on the way; null when it leads to none. */
    private X509Certificate chainsToCluster(X509Certificate[] chain) {
        X509Certificate current = chain[0];
        List<X509Certificate> used = new ArrayList<>();
        for (int step = 0; step < Math.min(chain.length, MAX_CHAIN); step++) {
            for (X509Certificate ca : clusterCas) {
                if (current.getIssuerX500Principal().equals(ca.getSubjectX500Principal()) && signedBy(current, ca)) {
                    return ca;
                }
            }
            used.add(current);
            X509Certificate next = null;
            for (X509Certificate c : chain) {
                if (!used.contains(c) && c.getBasicConstraints() >= 0
                        && current.getIssuerX500Principal().equals(c.getSubjectX500Principal()) && signedBy(current, c)) {
                    next = c;
                    break;
                }
            }
            if (next == null) {
                return null;
            }
            current = next;
        }
        return null;
    }

    private record SelfSigned(String host, String caName, boolean verified) {
    }

    /**
     * client-go's self-signed pair: issuer {@code <host>-ca@<unix>}, leaf {@code <host>@<unix>} for the same host.
     * When the peer presents the CA, the CA must have signed the leaf and itself; else it is not that pair.
     */
    private static SelfSigned selfSigned(X509Certificate[] chain) {
        X509Certificate leaf = chain[0];
        String issuerCn = commonName(leaf.getIssuerX500Principal().getName());
        String subjectCn = commonName(leaf.getSubjectX500Principal().getName());
        if (issuerCn == null || subjectCn == null) {
            return null;
        }
        Matcher ca = SELF_SIGNED_CA_CN.matcher(issuerCn);
        Matcher self = SELF_SIGNED_LEAF_CN.matcher(subjectCn);
        if (!ca.matches() || !self.matches() || !ca.group(1).equals(self.group(1))) {
            return null;
        }
        for (X509Certificate c : chain) {
            if (c != leaf && c.getSubjectX500Principal().equals(leaf.getIssuerX500Principal())) {
                boolean verified = signedBy(leaf, c) && signedBy(c, c);
                return verified ? new SelfSigned(ca.group(1), issuerCn, true) : null;
            }
        }
        return new SelfSigned(ca.group(1), issuerCn, false);
    }

    private static boolean signedBy(X509Certificate cert, X509Certificate issuer) {
        try {
            cert.verify(issuer.getPublicKey());
            return true;
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    static String commonName(String dn) {
        try {
            for (Rdn rdn : new LdapName(dn).getRdns()) {
                if ("CN".equalsIgnoreCase(rdn.getType())) {
                    return String.valueOf(rdn.getValue());
                }
            }
        } catch (InvalidNameException e) {
            return null;
        }
        return null;
    }

    private static boolean isTimeout(Throwable t) {
        for (; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    /** A reset (RST) or a close (FIN) by the peer before any certificate. */
    private static boolean isReset(Throwable t) {
        for (; t != null; t = t.getCause()) {
            String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
            if (t instanceof EOFException || (t instanceof SocketException && (m.contains("reset")
                    || m.contains("broken pipe"))) || m.contains("remote host terminated the handshake")
                    || m.contains("connection reset")) {
                return true;
            }
        }
        return false;
    }

    private static String describe(Throwable t) {
        if (t == null) {
            return "no detail";
        }
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    static List<String> sans(X509Certificate cert) {
        List<String> out = new ArrayList<>();
        try {
            Collection<List<?>> names = cert.getSubjectAlternativeNames();
            if (names == null) {
                return out;
            }
            for (List<?> n : names) {
                Object type = n.get(0);
                String prefix = Integer.valueOf(2).equals(type) ? "DNS:" : Integer.valueOf(7).equals(type) ? "IP:" : type + ":";
                out.add(prefix + n.get(1));
            }
        } catch (CertificateParsingException e) {
            out.add("(unparsable subjectAltName: " + e.getMessage() + ")");
        }
        return out;
    }

    /** Records the server's chain, then refuses it unless it chains to this cluster's CA: nothing is sent either way. */
    private final class Recorder implements X509TrustManager {
        private final AtomicReference<X509Certificate[]> seen;

        Recorder(AtomicReference<X509Certificate[]> seen) {
            this.seen = seen;
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("not a server");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            if (chain == null || chain.length == 0) {
                throw new CertificateException("no certificate presented");
            }
            seen.set(chain.clone());
            if (chainsToCluster(chain) == null) {
                throw new CertificateException("not issued by this cluster's CA (recorded, handshake stopped)");
            }
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
