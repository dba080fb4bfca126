package io.nodegate.watch.informer;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.nodegate.testing.SeedCluster;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.source.kube.Kinds;
import io.nodegate.source.kube.FabricJson;
import io.nodegate.source.kube.StateAssembler;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.json.Plain;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What counts as a mere renewal of a Lease (a heartbeat, no pass), and what is a change. */
class LeaseRenewalTest {

    private static final Instant T0 = Instant.parse("2026-12-01T09:00:00Z");

    private static Lease lease(String name, Instant renew, String rv) {
        Lease l = SeedCluster.lease(name, renew);
        l.getMetadata().setResourceVersion(rv);
        return l;
    }

    private static ZonedDateTime utc(Instant t) {
        return ZonedDateTime.ofInstant(t, ZoneOffset.UTC);
    }

    /** As the watch holds an object: the plain JSON values KubeJson parses from the server's answer. */
    private static Map<String, Object> plain(io.fabric8.kubernetes.api.model.HasMetadata object) {
        return FabricJson.toPlain(object, KubeJson.MODEL);
    }

    private static boolean onlyRenewed(io.fabric8.kubernetes.api.model.HasMetadata before,
                                       io.fabric8.kubernetes.api.model.HasMetadata after) {
        return LeaseRenewal.onlyRenewed(plain(before), plain(after));
    }

    @Test
    void onlyRenewTimeResourceVersionAndManagedFieldsMakeARenewal() {
        Lease before = lease("w1", T0, "10");
        Lease renewed = lease("w1", T0.plusSeconds(10), "11");
        Map<String, Object> renewedWithManagedFields = plain(renewed);
        Plain.map(renewedWithManagedFields, "metadata").put("managedFields", List.of(Map.of("manager", "kubelet")));
        Plain.map(renewedWithManagedFields, "metadata").put("generation", 2L); // a server that counts spec changes
        assertThat(LeaseRenewal.onlyRenewed(plain(before), renewedWithManagedFields)).isTrue();

        assertThat(onlyRenewed(before, new LeaseBuilder(renewed).editSpec()
                .withHolderIdentity("other").endSpec().build())).as("holder").isFalse();
        assertThat(onlyRenewed(before, new LeaseBuilder(renewed).editSpec()
                .withLeaseDurationSeconds(15).endSpec().build())).as("duration").isFalse();
        assertThat(onlyRenewed(before, new LeaseBuilder(renewed).editSpec()
                .withRenewTime(null).endSpec().build())).as("renewTime gone").isFalse();
        assertThat(onlyRenewed(new LeaseBuilder(before).editSpec().withRenewTime(null).endSpec().build(),
                renewed)).as("renewTime appears").isFalse();
        assertThat(onlyRenewed(before, new LeaseBuilder(renewed).editMetadata()
                .withUid("recreated").endMetadata().build())).as("another object of the same name").isFalse();
        assertThat(onlyRenewed(before, new LeaseBuilder(renewed).editMetadata()
                .addToLabels("a", "b").endMetadata().build())).as("labels").isFalse();
        assertThat(onlyRenewed(before, new LeaseBuilder(renewed).editMetadata()
                .withDeletionTimestamp("2026-12-01T09:00:05Z").endMetadata().build())).as("being deleted").isFalse();
        assertThat(onlyRenewed(before, new LeaseBuilder(renewed).editSpec()
                .withAcquireTime(utc(T0.plusSeconds(10))).endSpec().build())).as("acquired again").isFalse();
        Node node = new NodeBuilder().withNewMetadata().withName("w1").endMetadata().build();
        assertThat(onlyRenewed(node, node)).as("no spec.renewTime: not a Lease renewal").isFalse();
        Map<String, Object> annotated = plain(renewed);
        annotated.put("status", Map.of("unexpected", true));
        assertThat(LeaseRenewal.onlyRenewed(plain(before), annotated)).as("a field nodegate does not know").isFalse();
    }
}
