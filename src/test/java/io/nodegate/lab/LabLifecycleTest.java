package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.testing.Await;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bin/lab itself: a second lab runs beside the run's shared one (its own ports), its contexts work, and
 * {@code bin/lab down} leaves no process behind; a host moved to another lab registers there and goes silent here.
 */
@ExtendWith(RealControlPlane.Resolver.class)
class LabLifecycleTest {

    /** Every process whose command line names the lab's directory (all of them do: data dir, certificates, kubeconfigs). */
    private static List<ProcessHandle> processesOf(RealControlPlane lab) {
        String dir = lab.dir() + "/";
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().map(c -> c.contains(dir)).orElse(false))
                .filter(p -> p.pid() != ProcessHandle.current().pid())
                .toList();
    }

    @Test
    void aSecondLabRunsBesideTheSharedOneAndDownLeavesNothingRunning(RealControlPlane shared) throws IOException {
        RealControlPlane solo = RealControlPlane.start(1, 1, "solo");
        try {
            assertThat(solo.kubectl(null, "get", "nodes", "-o", "name").requireOk("get nodes").output().trim())
                    .isEqualTo("node/solo-server-1");
            assertThat(shared.kubectl(null, "get", "node", RealControlPlane.server(1), "-o", "name").requireOk("shared")
                    .output().trim()).isEqualTo("node/" + RealControlPlane.server(1));
            RealControlPlane.Result viewerWrite = solo.kubectl(null, "--context", "viewer", "label", "node",
                    "solo-server-1", "x=y");
            assertThat(viewerWrite.code()).isNotZero();
            assertThat(viewerWrite.output()).contains("forbidden");
            String status = solo.status().requireOk("status").output();
            assertThat(status).contains("running  etcd").contains("running  kube-apiserver")
                    .contains("running  kube-controller-manager").contains("running  kubelet-solo-server-1");
            assertThat(processesOf(solo)).hasSize(4);
        } finally {
            solo.down().requireOk("bin/lab down");
        }
        assertThat(processesOf(solo)).as("processes left after bin/lab down").isEmpty();
        solo.deleteDirectory(); // its keys and etcd data: nothing of a test's lab is left in the temp directory
        assertThat(solo.dir()).doesNotExist();
    }

    /**
     * {@code bin/lab kubelet DIR move NODE --to DIR2}: the host restarted against another cluster. The second cluster
     * admits its kubelet (a node certificate from that cluster's CA) with the same systemUUID and machineID and a
     * new bootID; the first cluster's Node stays as last reported and its Lease is renewed no more.
     */
    @Test
    void aHostMovedToAnotherLabRegistersThereAndStopsRenewingHere(RealControlPlane shared) {
        String host = "t-traveller";
        shared.lab("kubelet", "clone", RealControlPlane.agent(5), "--as", host).requireOk("start " + host);
        RealControlPlane other = RealControlPlane.start(1, 1, "other");
        try (KubernetesClient one = shared.client("admin"); KubernetesClient two = other.client("admin")) {
            Await.until("the Lease of " + host + " in the first lab", Duration.ofSeconds(30),
                    () -> lease(one, host) != null && lease(one, host).getSpec().getRenewTime() != null);
            Node before = one.nodes().withName(host).get();

            RealControlPlane.Result move = shared.lab("kubelet", "move", host, "--to", other.dir().toString());
            move.requireOk("move " + host);
            assertThat(move.output()).contains("host " + host + " moved to other");
            ZonedDateTime frozen = lease(one, host).getSpec().getRenewTime();

            Await.until(host + " registered in the second lab", Duration.ofSeconds(30),
                    () -> two.nodes().withName(host).get() != null);
            Node after = two.nodes().withName(host).get();
            assertThat(after.getStatus().getNodeInfo().getSystemUUID()).isEqualTo(before.getStatus().getNodeInfo().getSystemUUID());
            assertThat(after.getStatus().getNodeInfo().getMachineID()).isEqualTo(before.getStatus().getNodeInfo().getMachineID());
            assertThat(after.getStatus().getNodeInfo().getBootID()).as("a restart is a new boot")
                    .isNotEqualTo(before.getStatus().getNodeInfo().getBootID());
            assertThat(after.getMetadata().getUid()).isNotEqualTo(before.getMetadata().getUid());

            // The second cluster sees renewals for more than one renewal interval past the first's last one; the
            // first's Lease has not moved meanwhile.
            Await.until("the second lab's Lease renewed 15 s past the first's last renewal", Duration.ofSeconds(60),
                    () -> {
                        Lease l = lease(two, host);
                        return l != null && l.getSpec().getRenewTime() != null
                                && l.getSpec().getRenewTime().isAfter(frozen.plusSeconds(15));
                    });
            assertThat(lease(one, host).getSpec().getRenewTime()).as("the first lab's Lease").isEqualTo(frozen);
            assertThat(one.nodes().withName(host).get().getMetadata().getUid()).as("the first lab keeps its Node")
                    .isEqualTo(before.getMetadata().getUid());

            assertThat(shared.status().requireOk("status").output()).contains("moved    " + host + " to " + other.dir());
            assertThat(other.status().requireOk("status").output()).contains("running  kubelet-" + host);
            RealControlPlane.Result startHere = shared.lab("kubelet", "start", host);
            assertThat(startHere.code()).isNotZero();
            assertThat(startHere.output()).contains("host " + host + " moved to the lab in " + other.dir());
        } finally {
            other.close();
            shared.kubectl(null, "delete", "node", host, "--ignore-not-found", "--as=lab-admin",
                    "--as-group=system:masters", "--as-group=nodegate:break-glass");
        }
    }

    private static Lease lease(KubernetesClient client, String node) {
        return client.leases().inNamespace("kube-node-lease").withName(node).get();
    }
}
