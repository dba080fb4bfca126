package io.nodegate.lifecycle;

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
        pollInterval = Duration.ofSeconds(5);
        CliRun saved = seedAndSaveBaseline();
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        clock.set(seed.gateTime);
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
        assertThat(g.out()).contains("[fleet]      not checked host not serving another cluster",
                "no --fleet-context or --fleet-kubeconfig given");
    }

    @Test
    void theHostReadyInClusterBFailsTheGate() {
        gpuA11JoinsClusterB("True");

        CliRun g = gate("--fleet-kubeconfig", kubeconfigB.toString());

        assertThat(g.exitCode()).as(g.all()).isEqualTo(5);
        assertThat(g.out()).contains("gate gpu-a11: FAIL", "[fleet]      FAIL", "host now serves cluster-b as b-gpu-11 since ",
                "(Ready; same machineID)");
        assertThat(clusterB.requests("GET", "/api/v1/nodes")).isEqualTo(1);
    }

    @Test
    void theHostSeenButNotReadyInClusterBHolds() {
        gpuA11JoinsClusterB("Unknown");

        CliRun g = gate("--fleet-kubeconfig", kubeconfigB.toString());

        assertThat(g.exitCode()).as(g.all()).isEqualTo(4);
        assertThat(g.out()).contains("[fleet]      HOLD", "also Node b-gpu-11 in cluster-b (Ready=Unknown");
    }

    @Test
    void aFleetClusterThatCannotBeReadMakesTheRunInvalid() {
        clusterB.failOn("GET", "/api/v1/nodes", 403);

        CliRun g = gate("--fleet-kubeconfig", kubeconfigB.toString());

        assertThat(g.exitCode()).as(g.all()).isEqualTo(3);
        assertThat(g.out()).contains("gate gpu-a11: INVALID", "fleet cluster --fleet-kubeconfig");
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

        assertThat(v.out()).contains("where removed hosts went", "gpu-a11: now b-gpu-11 in cluster-b (Ready=True");
        CliRun without = cli("verify-gone", "--baseline", baseline.toString());
        assertThat(without.out()).contains("not checked: where removed hosts went (no --fleet-context");
        assertThat(without.exitCode()).isEqualTo(v.exitCode());
    }
}
