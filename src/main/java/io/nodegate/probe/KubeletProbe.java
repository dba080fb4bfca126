package io.nodegate.probe;

import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.KubeletAnswer.Outcome;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * Knocks on a kubelet's serving port: TCP connect, then a TLS handshake, then close. No request, no credentials
 * and no data go out; the only thing read is the serving certificate the kubelet presents in the handshake.
 * The certificate says which cluster's CA issued it, which tells "powered off" (no answer) from "alive here"
 * (this cluster's CA) from "alive for someone else" (another CA) without access to the host (seed 000: gpu-a07
 * answered on 10250 with cluster B's certificate while cluster A showed it Unknown for six days).
 */
public final class KubeletProbe {

    public static final int DEFAULT_PORT = 10250;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(3);
    /** The CN of the CA a kubelet makes for its own self-signed serving certificate: "&lt;host&gt;-ca@&lt;unix time&gt;". */
    private static final Pattern SELF_SIGNED_CA = Pattern.compile(".*CN=[^,]*-ca@\\d+.*");
    private static final int PARALLEL = 16;

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

    public record Target(String node, String address) {
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
                futures.add(pool.submit(() -> probe(t.node(), t.address())));
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
        if (address == null) {
            return new KubeletAnswer(node, null, port, Outcome.NO_ADDRESS, null, null, List.of(),
                    "the Node lists no InternalIP");
        }
        int millis = (int) Math.max(1, timeout.toMillis());
        AtomicReference<X509Certificate[]> seen = new AtomicReference<>();
        try (Socket raw = new Socket()) {
            try {
                raw.connect(new InetSocketAddress(address, port), millis);
            } catch (ConnectException | NoRouteToHostException e) {
                return noAnswer(node, address, e.getClass().getSimpleName() + ": " + e.getMessage());
            } catch (SocketTimeoutException e) {
                return noAnswer(node, address, "no answer within " + timeout.toMillis() + " ms");
            }
            raw.setSoTimeout(millis);
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, new TrustManager[]{new Recorder(seen)}, null);
            try (SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket(raw, address, port, true)) {
                s.startHandshake();
            } catch (SSLException | SocketTimeoutException e) {
                // a certificate we do not trust aborts the handshake on purpose: it was recorded first
                if (seen.get() == null) {
                    return new KubeletAnswer(node, address, port, Outcome.NOT_TLS, null, null, List.of(),
                            "the port accepted the connection but the TLS handshake failed: " + e.getMessage());
                }
            }
        } catch (IOException e) {
            if (seen.get() == null) {
                return noAnswer(node, address, e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("TLS is not available in this JVM: " + e.getMessage(), e);
        }
        return classify(node, address, seen.get());
    }

    private KubeletAnswer noAnswer(String node, String address, String detail) {
        return new KubeletAnswer(node, address, port, Outcome.NO_ANSWER, null, null, List.of(), detail);
    }

    private KubeletAnswer classify(String node, String address, X509Certificate[] chain) {
        X509Certificate leaf = chain[0];
        String issuer = leaf.getIssuerX500Principal().getName();
        String subject = leaf.getSubjectX500Principal().getName();
        List<String> sans = sans(leaf);
        X509Certificate ca = issuingCa(chain);
        if (ca != null) {
            return new KubeletAnswer(node, address, port, Outcome.THIS_CLUSTER, issuer, subject, sans,
                    "serving certificate issued by this cluster's CA " + ca.getSubjectX500Principal().getName());
        }
        if (SELF_SIGNED_CA.matcher(issuer).matches()) {
            return new KubeletAnswer(node, address, port, Outcome.SELF_SIGNED, issuer, subject, sans,
                    "the kubelet's own self-signed certificate: it is alive, but the certificate names no cluster");
        }
        return new KubeletAnswer(node, address, port, Outcome.OTHER_CA, issuer, subject, sans,
                "serving certificate issued by " + issuer + ", which is not this cluster's CA");
    }

    /** The cluster CA that signed any certificate of the presented chain, or null. */
    private X509Certificate issuingCa(X509Certificate[] chain) {
        for (X509Certificate cert : chain) {
            for (X509Certificate ca : clusterCas) {
                if (!cert.getIssuerX500Principal().equals(ca.getSubjectX500Principal())) {
                    continue;
                }
                try {
                    cert.verify(ca.getPublicKey());
                    return ca;
                } catch (GeneralSecurityException e) {
                    // same name, other key: a CA of the same name in another cluster (k3s names every CA alike)
                }
            }
        }
        return null;
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

    /** Records the server's chain, then refuses it unless this cluster's CA issued it: nothing is sent either way. */
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
            if (issuingCa(chain) == null) {
                throw new CertificateException("not issued by this cluster's CA (recorded, handshake stopped)");
            }
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
