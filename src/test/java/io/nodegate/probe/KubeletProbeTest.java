package io.nodegate.probe;

import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.KubeletAnswer.Outcome;
import io.nodegate.source.etcd.PemTls;
import io.nodegate.testing.KubeletTlsServer;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kubelet probe against real TLS servers on loopback addresses: one presenting a serving certificate from
 * this cluster's CA, one from another CA (as gpu-a07's kubelet did after it joined cluster B), one that accepts
 * TCP but never speaks TLS, and an address where nothing listens.
 */
class KubeletProbeTest {

    @TempDir
    static Path dir;
    static TestCerts certs;
    static KubeletTlsServer ours;
    static KubeletTlsServer theirs;
    static KubeletTlsServer silent;
    static int port;

    @BeforeAll
    static void servers() {
        certs = TestCerts.create(dir);
        Path ourCert = certs.serverCertificate("kubelet-a05", "/CN=gpu-a05", "DNS:gpu-a05,IP:127.0.0.2");
        Path theirCert = certs.otherCaServerCertificate("kubelet-a07", "/CN=gpu-a07", "DNS:gpu-a07,IP:127.0.0.3");
        ours = KubeletTlsServer.start("127.0.0.2", 0, ourCert, dir.resolve("kubelet-a05.key"));
        port = ours.port();
        theirs = KubeletTlsServer.start("127.0.0.3", port, theirCert, dir.resolve("kubelet-a07.key"));
        silent = KubeletTlsServer.plainTcp("127.0.0.5", port);
    }

    @AfterAll
    static void stop() {
        ours.close();
        theirs.close();
        silent.close();
    }

    private static KubeletProbe probe(Duration timeout) {
        return new KubeletProbe(port, timeout, PemTls.certificates(certs.caCert));
    }

    @Test
    void classifiesEachAnswerAndSendsNothingBeyondTheHandshake() throws Exception {
        int ourHandshakes = ours.handshakes.get();
        int theirConnections = theirs.connections.get();
        int theirHandshakes = theirs.handshakes.get();
        List<KubeletAnswer> answers = probe(Duration.ofSeconds(2)).probeAll(List.of(
                new KubeletProbe.Target("gpu-a05", "127.0.0.2"),
                new KubeletProbe.Target("gpu-a07", "127.0.0.3"),
                new KubeletProbe.Target("gpu-a01", "127.0.0.4"),
                new KubeletProbe.Target("gpu-a06", null)));
        assertThat(answers).extracting(KubeletAnswer::outcome)
                .containsExactly(Outcome.THIS_CLUSTER, Outcome.OTHER_CA, Outcome.NO_ANSWER, Outcome.NO_ADDRESS);

        KubeletAnswer a05 = answers.get(0);
        assertThat(a05.issuer()).contains("CN=nodegate-test-etcd-ca");
        assertThat(a05.detail()).contains("this cluster's CA");

        KubeletAnswer a07 = answers.get(1);
        assertThat(a07.issuer()).isEqualTo("CN=someone-else");
        assertThat(a07.subject()).isEqualTo("CN=gpu-a07");
        assertThat(a07.sans()).containsExactlyInAnyOrder("DNS:gpu-a07", "IP:127.0.0.3");
        assertThat(a07.target()).isEqualTo("127.0.0.3:" + port);

        assertThat(answers.get(2).detail()).contains("ConnectException");

        Thread.sleep(200); // let the servers finish reading the closed connections
        assertThat(ours.handshakes.get()).isEqualTo(ourHandshakes + 1);
        assertThat(ours.applicationBytes.get()).as("bytes sent after the handshake").isZero();
        assertThat(theirs.connections.get()).isEqualTo(theirConnections + 1);
        assertThat(theirs.handshakes.get()).as("the other CA's handshake is stopped by the probe")
                .isEqualTo(theirHandshakes);
        assertThat(theirs.applicationBytes.get()).isZero();
    }

    @Test
    void anOpenPortWithoutTlsIsNotNoAnswer() {
        KubeletAnswer a = probe(Duration.ofMillis(500)).probe("odd-host", "127.0.0.5");
        assertThat(a.outcome()).isEqualTo(Outcome.NOT_TLS);
        assertThat(a.detail()).contains("accepted the connection");
    }

    @Test
    void aCaOfTheSameNameButAnotherKeyIsAnotherCa() {
        // k3s names every cluster's CA alike ("k3s-server-ca@..."): the name alone must not make it ours
        KubeletProbe sameNameOtherKey = new KubeletProbe(port, Duration.ofSeconds(2),
                PemTls.certificates(certs.otherCaCert));
        assertThat(sameNameOtherKey.probe("gpu-a05", "127.0.0.2").outcome()).isEqualTo(Outcome.OTHER_CA);
        assertThat(sameNameOtherKey.probe("gpu-a07", "127.0.0.3").outcome()).isEqualTo(Outcome.THIS_CLUSTER);
    }
}
