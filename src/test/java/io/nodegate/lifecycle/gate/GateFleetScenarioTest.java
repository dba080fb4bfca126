package io.nodegate.lifecycle.gate;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.SeedCluster;
import io.fabric8.kubernetes.api.model.Node;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** gate and verify-gone with --fleet-kubeconfig: cluster A on one API test server, cluster B on another, over HTTP. */
class GateFleetScenarioTest extends SeededClusterTest {

    private ApiTestServer clusterB;
    private Path kubeconfigB;

    @BeforeEach
    void setUp() {
        seedAtGateTime();
        clusterB = ApiTestServer.start();
        kubeconfigB = clusterB.writeKubeconfig(tmp.resolve("b.yaml"), "cluster-b");
    }

    @AfterEach
    void stopB() {
        clusterB.close();
    }

    /** gpu-a11's host (same systemUUID and machineID) registered in cluster B as b-gpu-11. */
    private void gpuA11JoinsClusterB(String ready) {
        Node n = SeedCluster.node("b-gpu-11", "198.51.100.71", ready, false, Map.of(), "boot-b11", "uuid-a11", 8,
                Instant.now(), null);
        n.getStatus().getNodeInfo().setMachineID("machine-gpu-a11");
        clusterB.create(n);
    }

    private CliRun gate(String... extra) {
        String[] base = {"gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", seed.a11Reply};
        String[] args = java.util.Arrays.copyOf(base, base.length + extra.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return cli(args);
    }

    @Test
    void withoutAFleetTheGatePassesButSaysTheFleetWasNotChecked() {
        CliRun g = gate();
        assertThat(g.exitCode()).as(g.all()).isZero();
        assertThat(g.out()).containsIgnoringWhitespaces("[fleet]      not checked host not serving another cluster",
                "no --fleet-context or --fleet-kubeconfig given")
                .startsWith("gate gpu-a11: PASS (not checked: host, bmc, fleet)\n");
    }

    @Test
    void theRecordAndTheAnnotationNameTheChecksThatWereNotRun() throws Exception {
        CliRun alone = gate("--annotate", "-o", "json");
        assertThat(alone.exitCode()).as(alone.all()).isZero();
        assertThat(new tools.jackson.databind.json.JsonMapper().readTree(alone.out()).path("notChecked").toString())
                .isEqualTo("[\"host\",\"bmc\",\"fleet\"]");
        assertThat(api.client().nodes().withName("gpu-a11").get().getMetadata().getAnnotations())
                .containsEntry("nodegate.io/gate-verdict", "PASS").containsEntry("nodegate.io/gate-not-checked", "host,bmc,fleet");

        // with a fleet that does not hold the host, only the host evidence and the BMC are left unchecked
        clusterB.create(SeedCluster.node("b-other", "198.51.100.80", "True", false, Map.of(), "boot-b", "uuid-b", 0,
                Instant.now(), null));
        CliRun withFleet = gate("--annotate", "--fleet-kubeconfig", kubeconfigB.toString());
        assertThat(withFleet.exitCode()).as(withFleet.all()).isZero();
        assertThat(withFleet.out()).startsWith("gate gpu-a11: PASS (not checked: host, bmc)\n").containsIgnoringWhitespaces("[fleet]      PASS");
        assertThat(api.client().nodes().withName("gpu-a11").get().getMetadata().getAnnotations())
                .containsEntry("nodegate.io/gate-not-checked", "host,bmc");
    }

    @Test
    void theHostReadyInClusterBFailsTheGate() {
        gpuA11JoinsClusterB("True");

        CliRun g = gate("--fleet-kubeconfig", kubeconfigB.toString());

        assertThat(g.exitCode()).as(g.all()).isEqualTo(5);
        assertThat(g.out()).containsIgnoringWhitespaces("gate gpu-a11: FAIL", "[fleet]      FAIL", "host now serves cluster-b as b-gpu-11 since ",
                "(Ready; same machineID)");
        assertThat(clusterB.requests("GET", "/api/v1/nodes")).isEqualTo(1);
    }

    @Test
    void nodesOfClusterBBuiltFromTheSameImageAreNotTheHost() {
        // cluster B's VMs were cloned from the template gpu-a11 was (siderolabs/talos#4759: one machineID on every
        // Node, distinct systemUUIDs): the same /etc/machine-id under their own firmware UUIDs is two machines
        for (int i = 1; i <= 2; i++) {
            Node n = SeedCluster.node("b-clone-" + i, "198.51.100.8" + i, "True", false, Map.of(), "boot-c" + i,
                    "uuid-clone-" + i, 0, Instant.now(), null);
            n.getStatus().getNodeInfo().setMachineID("machine-gpu-a11");
            clusterB.create(n);
        }

        CliRun g = gate("--fleet-kubeconfig", kubeconfigB.toString());

        assertThat(g.exitCode()).as(g.all()).isZero();
        assertThat(g.out()).startsWith("gate gpu-a11: PASS (not checked: host, bmc)\n").containsIgnoringWhitespaces("[fleet]      PASS")
                .doesNotContain("same machineID");
    }

    @Test
    void theHostSeenButNotReadyInClusterBHolds() {
        gpuA11JoinsClusterB("Unknown");

        CliRun g = gate("--fleet-kubeconfig", kubeconfigB.toString());

        assertThat(g.exitCode()).as(g.all()).isEqualTo(4);
        assertThat(g.out()).containsIgnoringWhitespaces("[fleet]      HOLD", "also Node b-gpu-11 in cluster-b (Ready=Unknown");
    }

    @Test
    void aFleetClusterThatCannotBeReadMakesTheRunInvalid() {
        clusterB.failOn("GET", "/api/v1/nodes", 403);

        CliRun g = gate("--fleet-kubeconfig", kubeconfigB.toString());

        assertThat(g.exitCode()).as(g.all()).isEqualTo(3);
        assertThat(g.out()).containsIgnoringWhitespaces("gate gpu-a11: INVALID", "fleet cluster --fleet-kubeconfig");
    }

    @Test
    void aFleetClusterWhoseNodeListLiesMakesTheRunInvalidNotAPass() throws Exception {
        // the field case: FAIL (the host Ready in B) became PASS when B's Node LIST answered an empty 200
        gpuA11JoinsClusterB("True");
        try (io.nodegate.testing.FaultProxy proxy = new io.nodegate.testing.FaultProxy(clusterB.url())) {
            Path viaProxy = ApiTestServer.writeKubeconfig(tmp.resolve("b-proxy.yaml"), "cluster-b", proxy.url());
            for (io.nodegate.testing.FaultProxy.Fault lie : io.nodegate.testing.FaultProxy.Fault.lyingListFaults("")) {
                proxy.breakCall(call -> call.startsWith("GET /api/v1/nodes?"), lie);
                CliRun g = gate("--fleet-kubeconfig", viaProxy.toString());
                assertThat(g.exitCode()).as(lie + ": " + g.all()).isEqualTo(3);
                assertThat(g.out()).as(lie + ": " + g.all()).containsIgnoringWhitespaces("gate gpu-a11: INVALID",
                        "fleet cluster --fleet-kubeconfig", "LIST nodes");
            }
        }
    }

    @Test
    void aFleetClusterThatListsNoNodeCannotShowWhereTheHostIs() {
        // well formed and empty: "not there" would be unproven, so the fleet check cannot pass on it
        CliRun g = gate("--fleet-kubeconfig", kubeconfigB.toString());
        assertThat(g.exitCode()).as(g.all()).isEqualTo(3);
        assertThat(g.out()).containsIgnoringWhitespaces("gate gpu-a11: INVALID", "answered no Node at all");
    }

    @Test
    void verifyGoneSaysWhereTheRemovedHostWent() {
        clock.schedule(Duration.ofSeconds(3), () -> {
            api.client().leases().inNamespace("kube-node-lease").withName("gpu-a11").delete();
            api.client().storage().v1().csiNodes().withName("gpu-a11").delete();
            api.client().secrets().inNamespace("kube-system").withName("gpu-a11.node-password.rke2").delete();
            api.client().pods().inNamespace("kube-system").withName("rke2-canal-gpu-a11").delete();
            api.client().pods().inNamespace("gpu-operator").withName("nvidia-dcgm-exporter-gpu-a11").delete();
        });
        assertThat(cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--override", "kim: test").exitCode())
                .isZero();
        gpuA11JoinsClusterB("True");

        CliRun v = cli("verify-gone", "--baseline", baseline.toString(), "--fleet-kubeconfig", kubeconfigB.toString());

        assertThat(v.out()).containsIgnoringWhitespaces("where removed hosts went", "gpu-a11: now b-gpu-11 in cluster-b (Ready=True");
        CliRun without = cli("verify-gone", "--baseline", baseline.toString());
        assertThat(without.out()).containsIgnoringWhitespaces("not checked where removed hosts went",
                "no --fleet-context or --fleet-kubeconfig given");
        assertThat(without.exitCode()).isEqualTo(v.exitCode());
        CliRun json = cli("verify-gone", "--baseline", baseline.toString(), "-o", "json");
        assertThat(new tools.jackson.databind.json.JsonMapper().readTree(json.out()).path("notChecked").toString())
                .isEqualTo("[\"etcd\",\"kubelet-ports\",\"fleet\",\"bmc\"]");
    }
}
