package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.testing.Await;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static io.nodegate.testing.RealControlPlane.agent;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cascade that {@code remove} follows, done by the real garbage collector: a kubelet's Lease is owned by its
 * Node (as pkg/kubelet/nodelease sets it), so deleting the Node removes the Lease, and only the API's NotFound says so.
 */
@ExtendWith(RealControlPlane.Resolver.class)
class GarbageCollectorOnRealControlPlaneTest {

    @Test
    void deletingANodeLetsTheRealGarbageCollectorRemoveItsLease(RealControlPlane lab) {
        String host = "t-gc-probe";
        lab.lab("kubelet", "clone", agent(5), "--as", host).requireOk("start " + host);
        try (KubernetesClient admin = lab.client("admin")) {
            Await.until("the Lease of " + host, Duration.ofSeconds(30),
                    () -> admin.leases().inNamespace("kube-node-lease").withName(host).get() != null);
            Lease lease = admin.leases().inNamespace("kube-node-lease").withName(host).get();
            assertThat(lease.getMetadata().getOwnerReferences()).singleElement()
                    .satisfies(o -> assertThat(o.getKind()).isEqualTo("Node"))
                    .satisfies(o -> assertThat(o.getUid()).isEqualTo(admin.nodes().withName(host).get().getMetadata().getUid()));
            lab.lab("kubelet", "stop", host).requireOk("stop " + host);
            lab.kubectl(null, "delete", "node", host, "--as=lab-admin", "--as-group=system:masters",
                    "--as-group=nodegate:break-glass").requireOk("delete Node " + host);
            Duration took = Await.until("the garbage collector removes the Lease", Duration.ofSeconds(60),
                    () -> admin.leases().inNamespace("kube-node-lease").withName(host).get() == null);
            System.out.println("Lease gone " + took.toMillis() + " ms after the Node's delete");
        }
    }
}
