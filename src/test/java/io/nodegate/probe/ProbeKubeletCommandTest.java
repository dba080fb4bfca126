package io.nodegate.probe;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.KubeletTlsServer;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `nodegate probe kubelet` end to end: Nodes and the kube-root-ca.crt ConfigMap on the test API server, kubelets
 * as TLS servers on loopback addresses (each Node's InternalIP), the probe port given with --port.
 */
class ProbeKubeletCommandTest {

    @TempDir
    static Path dir;
    static TestCerts certs;
    static TestCerts.Authority clusterA;
    static KubeletTlsServer ours;
    static KubeletTlsServer theirs;
    static KubeletTlsServer selfSigned;
    static KubeletTlsServer dripping;
    static int port;
    ApiTestServer api;
    Path kubeconfig;

    @BeforeAll
    static void kubelets() {
        // RKE2 names every cluster's server CA "rke2-server-ca@<unix time>" (see TestCerts.authority); cluster B's
        // was made in the same second as ours
        certs = TestCerts.create(dir);
        clusterA = certs.authority("a-server-ca", "rke2-server-ca@1760000000");
        TestCerts.Authority clusterB = certs.authority("b-server-ca", "rke2-server-ca@1760000000");
        TestCerts.Serving a05 = certs.kubeletServing(clusterA, "kubelet-a05", "gpu-a05", "127.0.0.2");
        ours = KubeletTlsServer.start("127.0.0.2", 0, a05.chain(), a05.key());
        port = ours.port();
        TestCerts.Serving a07 = certs.kubeletServing(clusterB, "kubelet-a07", "gpu-a07", "127.0.0.3");
        theirs = KubeletTlsServer.start("127.0.0.3", port, a07.chain(), a07.key());
        // the near miss: a kubeadm-style kubelet's own certificate, its CA named "gpu-74-ca@<unix>"
        TestCerts.Serving gpu74 = certs.kubeletSelfSigned("kubelet-gpu-74", "gpu-74", 1760000123L);
        selfSigned = KubeletTlsServer.start("127.0.0.7", port, gpu74.chain(), gpu74.key());
        dripping = KubeletTlsServer.dripping("127.0.0.11", port);
    }

    @AfterAll
    static void stop() {
        ours.close();
        theirs.close();
        selfSigned.close();
        dripping.close();
    }

    @BeforeEach
    void cluster(@TempDir Path tmp) throws Exception {
        api = ApiTestServer.start();
        api.create(node("gpu-a05", "True", "127.0.0.2"), node("gpu-a07", "Unknown", "127.0.0.3"),
                node("gpu-a01", "Unknown", "127.0.0.4"), node("gpu-a06", "True", "127.0.0.3"),
                node("gpu-74", "Unknown", "127.0.0.7"));
        api.create(new ConfigMapBuilder().withNewMetadata().withName("kube-root-ca.crt").withNamespace("kube-system")
                .endMetadata().addToData("ca.crt", Files.readString(clusterA.cert())).build());
        kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));
    }

    @org.junit.jupiter.api.AfterEach
    void close() {
        api.close();
    }

    static Node node(String name, String ready, String ip) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().addNewAddress().withType("InternalIP").withAddress(ip).endAddress()
                .addNewCondition().withType("Ready").withStatus(ready)
                .withReason("True".equals(ready) ? "KubeletReady" : "NodeStatusUnknown")
                .withLastHeartbeatTime("2026-10-19T05:23:24Z").withLastTransitionTime("2026-10-19T05:24:35Z")
                .endCondition().withNewNodeInfo().withBootID("b71434d8").endNodeInfo().endStatus().build();
    }

    private CliRun probe(String... args) {
        String[] base = {"probe", "kubelet", "--kubeconfig", kubeconfig.toString(), "--kubelet-port",
                String.valueOf(port), "--probe-timeout", "2s"};
        String[] all = new String[base.length + args.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(args, 0, all, base.length, args.length);
        return CliRun.run(all);
    }

    @Test
    void anotherCaAnsweringForAnUnknownNodeIsNg303() {
        CliRun run = probe("gpu-a05", "gpu-a07", "gpu-a01", "gpu-a06");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
        assertThat(run.out()).containsPattern("gpu-a05 +True +127.0.0.2:\\d+ +this cluster's CA")
                .containsPattern("gpu-a07 +Unknown +127.0.0.3:\\d+ +another cluster's CA +CN=rke2-server-ca@1760000000")
                .containsPattern("gpu-a01 +Unknown +127.0.0.4:\\d+ +refused \\(nothing listens\\)")
                .contains("NG303 critical  kubelet-answers-for-another-cluster  gpu-a07")
                .contains("this cluster's CA from: ConfigMap kube-system/kube-root-ca.crt");
        // gpu-a06 also reaches the other CA's kubelet, but it is Ready here: not departure evidence
        assertThat(run.out()).doesNotContain("kubelet-answers-for-another-cluster  gpu-a06");
    }

    @Test
    void jsonPipes() {
        CliRun run = probe("gpu-a07", "-o", "json");
        assertThat(run.exitCode()).isEqualTo(1);
        JsonNode r = JsonMapper.builder().build().readTree(run.out());
        assertThat(r.path("answers").get(0).path("outcome").asString()).isEqualTo("OTHER_CA");
        assertThat(r.path("answers").get(0).path("subjectAltNames").toString()).contains("IP:127.0.0.3");
        assertThat(r.path("findings").get(0).path("code").asString()).isEqualTo("NG303");
        assertThat(r.path("findings").get(0).path("severity").asString()).isEqualTo("critical");
    }

    @Test
    void ourCaSilenceAndASelfSignedKubeletAreNoFinding() {
        CliRun run = probe("gpu-a05", "gpu-a01", "gpu-74");
        assertThat(run.exitCode()).as(run.all()).isZero();
        assertThat(run.out()).contains("FINDINGS (0)")
                .containsPattern("gpu-74 +Unknown +127.0.0.7:\\d+ +self-signed by this node's kubelet +CN=gpu-74-ca@1760000123");
    }

    @Test
    void aKubeletThatDripsABytePerSecondMeetsTheDeadline() {
        api.create(node("gpu-a09", "Unknown", "127.0.0.11"));
        long start = System.nanoTime();
        CliRun run = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "--probe-kubelets",
                "--kubelet-port", String.valueOf(port), "--probe-timeout", "2s", "-o", "json");
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).isLessThan(java.time.Duration.ofSeconds(20));
        assertThat(run.out()).contains("1 port open, no TLS answer");
        CliRun one = probe("gpu-a09");
        assertThat(one.out()).contains("the kubelet port at 127.0.0.11:" + port, "did not finish within 2s");
    }

    @Test
    void aFailedCaReadIsAnErrorNotAnotherCa() {
        api.failOn("GET", "/api/v1/namespaces/kube-system/configmaps/kube-root-ca.crt", 403);
        CliRun run = probe("gpu-a07");
        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(run.err()).contains("ConfigMap kube-system/kube-root-ca.crt").contains("403");
        assertThat(run.out()).doesNotContain("NG303");
    }

    @Test
    void noCaAnywhereIsAnError() {
        api.delete(new ConfigMapBuilder().withNewMetadata().withName("kube-root-ca.crt").withNamespace("kube-system")
                .endMetadata().build());
        CliRun run = probe("gpu-a07");
        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(run.err()).contains("no CA of this cluster").contains("NotFound");
    }

    @Test
    void auditProbesTheUnknownNodesKubeletPorts() {
        CliRun run = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "--probe-kubelets",
                "--kubelet-port", String.valueOf(port), "--probe-timeout", "2s", "-o", "json");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
        JsonNode r = JsonMapper.builder().build().readTree(run.out());
        List<String> ng303 = new ArrayList<>();
        r.path("findings").forEach(f -> {
            if ("NG303".equals(f.path("code").asString())) {
                ng303.add(f.path("nodes").get(0).asString());
            }
        });
        // gpu-a07 (Unknown, another cluster's CA) only: gpu-a01 refuses, gpu-74 is self-signed (not another
        // cluster), gpu-a05 and gpu-a06 are Ready and not probed
        assertThat(ng303).containsExactly("gpu-a07");
        assertThat(r.path("notes").toString()).contains("kubelet ports probed for 3 Unknown Node(s): 1 refused "
                + "(nothing listens), 1 another cluster's CA, 1 self-signed by this node's kubelet");

        assertThat(r.path("notes").toString()).contains("control: Ready Node(s) knocked on as the control: gpu-a05, "
                + "gpu-a06; this cluster's CA verifies the kubelet of Ready Node gpu-a05");

        CliRun offline = CliRun.run("audit", "-f", "examples/healthy", "--probe-kubelets");
        assertThat(offline.exitCode()).isEqualTo(2);
        assertThat(offline.err()).contains("--probe-kubelets knocks on live Nodes' kubelet ports");
    }

    /** The control knocks on Ready Nodes the user did not name: they may choose which, or none. */
    @Test
    void theControlNodesCanBeChosenOrTurnedOff() {
        CliRun chosen = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "--probe-kubelets",
                "--probe-control", "gpu-a05", "--kubelet-port", String.valueOf(port), "--probe-timeout", "2s", "-o", "json");
        assertThat(chosen.exitCode()).as(chosen.all()).isEqualTo(1);
        assertThat(chosen.out()).contains("knocked on as the control (--probe-control): gpu-a05;")
                .doesNotContain("gpu-a05, gpu-a06");
        // gpu-a06's kubelet presents another CA: chosen alone, the control shows the CA read verifies no live kubelet
        CliRun misread = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "--probe-kubelets",
                "--probe-control", "gpu-a06", "--kubelet-port", String.valueOf(port), "--probe-timeout", "2s");
        assertThat(misread.exitCode()).as(misread.all()).isEqualTo(3);
        assertThat(misread.err()).contains("does not verify the kubelet of Ready Node gpu-a06");

        CliRun off = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "--probe-kubelets",
                "--probe-control", "none", "--kubelet-port", String.valueOf(port), "--probe-timeout", "2s", "-o", "json");
        assertThat(off.exitCode()).as(off.all()).isEqualTo(1);
        assertThat(off.out()).contains("no control (--probe-control none)").doesNotContain("knocked on as the control");

        CliRun notReady = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "--probe-kubelets",
                "--probe-control", "gpu-a07", "--kubelet-port", String.valueOf(port));
        assertThat(notReady.exitCode()).isEqualTo(2);
        assertThat(notReady.err()).contains("--probe-control gpu-a07: the Node is Ready=Unknown");
        CliRun alone = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "--probe-control", "gpu-a05");
        assertThat(alone.exitCode()).isEqualTo(2);
        assertThat(alone.err()).contains("--probe-control goes with --probe-kubelets");
        assertThat(CliRun.run("audit", "--help").out()).contains("positive control", "--probe-control");
    }

    @Test
    void aCaThatVerifiesNoLiveKubeletIsAnErrorNotAFinding() throws Exception {
        // kube-root-ca.crt holding a CA that signs none of this cluster's kubelets: the Ready control says so
        api.client().configMaps().inNamespace("kube-system").withName("kube-root-ca.crt").edit(cm -> {
            cm.getData().put("ca.crt", readQuietly(certs.otherCaCert));
            return cm;
        });
        CliRun run = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "--probe-kubelets",
                "--kubelet-port", String.valueOf(port), "--probe-timeout", "2s");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.err()).contains("does not verify the kubelet of Ready Node gpu-a0");
        assertThat(run.out()).doesNotContain("NG303");
    }

    static String readQuietly(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void unknownNodeAndBadFlagsAreUsageErrors() {
        CliRun missing = probe("gpu-zz");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("Node gpu-zz not found");
        CliRun badPort = CliRun.run("probe", "kubelet", "gpu-a07", "--kubeconfig", kubeconfig.toString(),
                "--kubelet-port", "0");
        assertThat(badPort.exitCode()).isEqualTo(2);
        assertThat(badPort.err()).contains("--kubelet-port must be between 1 and 65535");
        assertThat(CliRun.run("probe", "kubelet", "--help").exitCode()).isZero();
        assertThat(CliRun.run("probe", "kubelet").exitCode()).isEqualTo(2);
    }

    /** The names documented before 0.1.0 still work for one release, hidden, with a note naming the new ones. */
    @Test
    void theOldFlagNamesStillWorkWithANote() {
        CliRun old = CliRun.run("probe", "kubelet", "gpu-a05", "--kubeconfig", kubeconfig.toString(), "--port",
                String.valueOf(port), "--timeout", "2s");
        assertThat(old.exitCode()).as(old.all()).isZero();
        assertThat(old.out()).containsPattern("gpu-a05 +True +127.0.0.2:\\d+ +this cluster's CA");
        assertThat(old.err()).contains("--port is deprecated", "use --kubelet-port " + port)
                .contains("--timeout is deprecated", "use --probe-timeout 2s");
        CliRun both = CliRun.run("probe", "kubelet", "gpu-a05", "--kubeconfig", kubeconfig.toString(), "--port", "1",
                "--kubelet-port", "2");
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.err()).contains("give the port once");
        CliRun help = CliRun.run("probe", "kubelet", "--help");
        assertThat(help.out()).contains("--kubelet-port", "--probe-timeout").doesNotContain("--port=", "--timeout=");
    }
}
