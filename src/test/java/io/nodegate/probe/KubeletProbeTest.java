package io.nodegate.probe;

import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.KubeletAnswer.Outcome;
import io.nodegate.source.tls.PemTls;
import io.nodegate.testing.KubeletTlsServer;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kubelet probe against real TLS servers on loopback addresses, with certificates shaped as the field makes
 * them (TestCerts cites the upstream code): RKE2 kubelets whose serving certificates come from
 * {@code rke2-server-ca@<unix>} (this cluster's, and another cluster's CA of the very same name), a k3s cluster's
 * {@code k3s-server-ca@<unix>}, a kubeadm kubelet's own self-signed pair {@code gpu-74-ca@<unix>}/{@code
 * gpu-74@<unix>} (the near miss: its CA name has the same shape as RKE2's), and ports that do not answer as a
 * kubelet at all.
 */
class KubeletProbeTest {

    @TempDir
    static Path dir;
    static TestCerts certs;
    static TestCerts.Authority clusterA;
    static final List<KubeletTlsServer> servers = new ArrayList<>();
    static int port;

    /** The unix time in the CA names (2025-10-09, when these clusters were installed). */
    static final long INSTALLED = 1760000000L;

    @BeforeAll
    static void servers() {
        certs = TestCerts.create(dir);
        clusterA = certs.authority("cluster-a-server-ca", "rke2-server-ca@" + INSTALLED);
        // another RKE2 cluster installed in the same second: the same CA name, another key
        TestCerts.Authority clusterB = certs.authority("cluster-b-server-ca", "rke2-server-ca@" + INSTALLED);
        TestCerts.Authority k3s = certs.authority("k3s-server-ca", "k3s-server-ca@" + (INSTALLED + 86400));
        TestCerts.Serving a05 = certs.kubeletServing(clusterA, "kubelet-a05", "gpu-a05", "127.0.0.2");
        KubeletTlsServer ours = KubeletTlsServer.start("127.0.0.2", 0, a05.chain(), a05.key());
        servers.add(ours);
        port = ours.port();
        serve("127.0.0.3", certs.kubeletServing(clusterB, "kubelet-a07", "gpu-a07", "127.0.0.3"));
        serve("127.0.0.6", certs.kubeletServing(k3s, "kubelet-a08", "gpu-a08", "127.0.0.6"));
        serve("127.0.0.7", certs.kubeletSelfSigned("kubelet-gpu-74", "gpu-74", INSTALLED + 123));
        serve("127.0.0.8", certs.kubeletSelfSigned("kubelet-gpu-75", "gpu-75", INSTALLED + 456));
        serve("127.0.0.9", certs.forgedSelfSigned("kubelet-forged", "gpu-74", INSTALLED + 789));
        servers.add(KubeletTlsServer.plainTcp("127.0.0.5", port));
        servers.add(KubeletTlsServer.resetting("127.0.0.10", port));
        servers.add(KubeletTlsServer.dripping("127.0.0.11", port));
        servers.add(KubeletTlsServer.unanswering("127.0.0.12", port));
    }

    static void serve(String address, TestCerts.Serving cert) {
        servers.add(KubeletTlsServer.start(address, port, cert.chain(), cert.key()));
    }

    @AfterAll
    static void stop() {
        servers.forEach(KubeletTlsServer::close);
    }

    static KubeletTlsServer at(int i) {
        return servers.get(i);
    }

    private static KubeletProbe probe(Duration timeout) {
        return new KubeletProbe(port, timeout, PemTls.certificates(clusterA.cert()));
    }

    @Test
    void verdictsGoBySignatureNeverByName() {
        List<KubeletAnswer> answers = probe(Duration.ofSeconds(2)).probeAll(List.of(
                new KubeletProbe.Target("gpu-a05", "127.0.0.2"),
                new KubeletProbe.Target("gpu-a07", "127.0.0.3"),
                new KubeletProbe.Target("gpu-a08", "127.0.0.6"),
                new KubeletProbe.Target("gpu-74", "127.0.0.7"),
                new KubeletProbe.Target("gpu-74", "127.0.0.8"),
                new KubeletProbe.Target("gpu-74", "127.0.0.9"),
                new KubeletProbe.Target("gpu-a06", null)));
        assertThat(answers).extracting(KubeletAnswer::outcome).containsExactly(
                Outcome.THIS_CLUSTER, Outcome.OTHER_CA, Outcome.OTHER_CA, Outcome.SELF_SIGNED,
                Outcome.SELF_SIGNED_OTHER_HOST, Outcome.OTHER_CA, Outcome.NO_ADDRESS);

        KubeletAnswer a05 = answers.get(0);
        assertThat(a05.issuer()).isEqualTo("CN=rke2-server-ca@" + INSTALLED);
        assertThat(a05.detail()).contains("chains to this cluster's CA", "signature verified");

        // cluster B's CA has this cluster's CA's name: the signature tells them apart
        KubeletAnswer a07 = answers.get(1);
        assertThat(a07.issuer()).isEqualTo("CN=rke2-server-ca@" + INSTALLED);
        assertThat(a07.subject()).isEqualTo("CN=gpu-a07");
        assertThat(a07.sans()).contains("DNS:gpu-a07", "DNS:localhost", "IP:127.0.0.3");
        assertThat(a07.detail()).contains("an RKE2/k3s cluster CA", "it has the name of this cluster's CA, but another key");
        assertThat(a07.target()).isEqualTo("127.0.0.3:" + port);
        assertThat(answers.get(2).issuer()).isEqualTo("CN=k3s-server-ca@" + (INSTALLED + 86400));

        // the kubeadm kubelet's own pair ends in -ca@<digits> like RKE2's CA: self-signed, not another cluster
        KubeletAnswer gpu74 = answers.get(3);
        assertThat(gpu74.issuer()).isEqualTo("CN=gpu-74-ca@" + (INSTALLED + 123));
        assertThat(gpu74.subject()).isEqualTo("CN=gpu-74@" + (INSTALLED + 123));
        assertThat(gpu74.detail()).contains("self-signed certificate for gpu-74", "was presented and signed it");
        assertThat(answers.get(4).detail()).contains("for host gpu-75, not gpu-74");
        // the self-signed names with a CA that did not sign the leaf: the names lie, so it is someone else's
        assertThat(answers.get(5).detail()).doesNotContain("self-signed");
    }

    @Test
    void theNodesHostnameAddressCountsAsItsName() {
        KubeletAnswer a = probe(Duration.ofSeconds(2)).probe(new KubeletProbe.Target("gpu-74.lab.example", "127.0.0.7",
                List.of("gpu-74.lab.example", "gpu-74")));
        assertThat(a.outcome()).isEqualTo(Outcome.SELF_SIGNED);
    }

    @Test
    void onlySilenceAndARefusedConnectAreConsistentWithCleanup() {
        KubeletProbe p = probe(Duration.ofMillis(1500));
        KubeletAnswer silent = p.probe("gpu-a04", "127.0.0.12");
        assertThat(silent.outcome()).as(silent.detail()).isEqualTo(Outcome.NO_ANSWER);
        assertThat(silent.detail()).contains("no answer from the kubelet port at 127.0.0.12:" + port + " within 1500 ms");

        KubeletAnswer refused = p.probe("gpu-a01", "127.0.0.4");
        assertThat(refused.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(refused.detail()).contains("refused the connection: nothing listens");

        KubeletAnswer reset = p.probe("gpu-a02", "127.0.0.10");
        assertThat(reset.outcome()).as(reset.detail()).isEqualTo(Outcome.RESET);
        assertThat(reset.detail()).contains("127.0.0.10:" + port + " accepted the connection, then reset");

        KubeletAnswer silentTcp = p.probe("odd-host", "127.0.0.5");
        assertThat(silentTcp.outcome()).isEqualTo(Outcome.NOT_TLS);
        assertThat(silentTcp.detail()).contains("the kubelet port at 127.0.0.5:" + port + " accepted the connection");
    }

    @Test
    void theTimeoutIsOneDeadlineForConnectAndHandshake() {
        // one byte a second: each read would be within a per-read timeout, the handshake never ends
        long start = System.nanoTime();
        KubeletAnswer a = probe(Duration.ofSeconds(2)).probe("gpu-a03", "127.0.0.11");
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(a.outcome()).isEqualTo(Outcome.NOT_TLS);
        assertThat(a.detail()).contains("the kubelet port at 127.0.0.11:" + port, "did not finish within 2s");
        assertThat(took).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void nothingIsSentBeyondTheHandshake() throws Exception {
        KubeletTlsServer ours = at(0);
        KubeletTlsServer theirs = at(1);
        int ourHandshakes = ours.handshakes.get();
        int theirConnections = theirs.connections.get();
        int theirHandshakes = theirs.handshakes.get();
        KubeletProbe p = probe(Duration.ofSeconds(2));
        p.probe("gpu-a05", "127.0.0.2");
        p.probe("gpu-a07", "127.0.0.3");
        Thread.sleep(200); // let the servers finish reading the closed connections
        assertThat(ours.handshakes.get()).isEqualTo(ourHandshakes + 1);
        assertThat(ours.applicationBytes.get()).as("bytes sent after the handshake").isZero();
        assertThat(theirs.connections.get()).isEqualTo(theirConnections + 1);
        assertThat(theirs.handshakes.get()).as("the other CA's handshake is stopped by the probe")
                .isEqualTo(theirHandshakes);
        assertThat(theirs.applicationBytes.get()).isZero();
    }

    @Test
    void theOtherClustersViewIsTheMirrorImage() {
        // k3s and RKE2 name every cluster's CA alike: from cluster B, cluster A's kubelet is the other one
        TestCerts.Authority clusterB = new TestCerts.Authority("rke2-server-ca@" + INSTALLED,
                dir.resolve("cluster-b-server-ca.crt"), dir.resolve("cluster-b-server-ca.key"));
        KubeletProbe fromB = new KubeletProbe(port, Duration.ofSeconds(2), PemTls.certificates(clusterB.cert()));
        assertThat(fromB.probe("gpu-a05", "127.0.0.2").outcome()).isEqualTo(Outcome.OTHER_CA);
        assertThat(fromB.probe("gpu-a07", "127.0.0.3").outcome()).isEqualTo(Outcome.THIS_CLUSTER);
    }
}
