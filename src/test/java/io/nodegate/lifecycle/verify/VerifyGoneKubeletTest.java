package io.nodegate.lifecycle.verify;

import io.nodegate.testing.SeededClusterTest;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.KubeletTlsServer;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * verify-gone --probe-kubelets: gpu-a11 was removed from cluster A, but its host kept RKE2 running. Its kubelet
 * port, at the address the baseline recorded (a loopback address here), still answers with cluster A's CA.
 */
class VerifyGoneKubeletTest extends SeededClusterTest {

    @Test
    void aRemovedTargetWhoseKubeletStillAnswersForThisClusterFails() throws Exception {
        assertThat(seedAndSaveBaseline().exitCode()).isZero();
        // the baseline as if gpu-a11 had been registered at 127.0.0.2
        Files.writeString(baseline, Files.readString(baseline).replace("\"192.0.2.11\"", "\"127.0.0.2\""));
        // a baseline is sealed when saved; this one stands for a save made with that address
        io.nodegate.lifecycle.baseline.BaselineSeal.record(new io.nodegate.lifecycle.evidence.EvidenceStore(evidence),
                baseline, io.nodegate.lifecycle.evidence.EvidenceStore.readJson(baseline,
                        io.nodegate.lifecycle.baseline.Baseline.class));
        TestCerts certs = TestCerts.create(Files.createDirectories(tmp.resolve("certs")));
        api.create(new ConfigMapBuilder().withNewMetadata().withName("kube-root-ca.crt").withNamespace("kube-system")
                .endMetadata().addToData("ca.crt", Files.readString(certs.caCert)).build());
        clock.set(seed.gateTime);
        api.client().nodes().withName("gpu-a11").delete();
        api.client().leases().inNamespace("kube-node-lease").withName("gpu-a11").delete();
        api.client().storage().v1().csiNodes().withName("gpu-a11").delete();
        api.client().secrets().inNamespace("kube-system").withName("gpu-a11.node-password.rke2").delete();

        try (KubeletTlsServer stillRunning = KubeletTlsServer.start("127.0.0.2", 0,
                certs.serverCertificate("kubelet-a11", "/CN=gpu-a11", "DNS:gpu-a11,IP:127.0.0.2"),
                certs.dir.resolve("kubelet-a11.key"))) {
            CliRun v = cli("verify-gone", "--baseline", baseline.toString(), "--probe-kubelets",
                    "--kubelet-port", String.valueOf(stillRunning.port()), "--probe-timeout", "2s");
            assertThat(v.exitCode()).as(v.all()).isEqualTo(5);
            assertThat(v.out()).contains("FAIL     removed targets' kubelet ports do not answer for this cluster",
                    "removed target gpu-a11: a kubelet with this cluster's certificate answers at 127.0.0.2:"
                            + stillRunning.port());
            assertThat(stillRunning.applicationBytes.get()).isZero();

            stillRunning.close();
            CliRun quiet = cli("verify-gone", "--baseline", baseline.toString(), "--probe-kubelets",
                    "--kubelet-port", String.valueOf(stillRunning.port()), "--probe-timeout", "2s");
            assertThat(quiet.out()).as(quiet.all())
                    .contains("PASS     removed targets' kubelet ports do not answer for this cluster")
                    .contains("gpu-a11: 127.0.0.2:" + stillRunning.port() + ": refused (nothing listens)");
        }
    }
}
