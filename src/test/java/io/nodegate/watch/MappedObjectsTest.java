package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.nodegate.lifecycle.SeedCluster;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.source.Kinds;
import io.nodegate.source.FabricJson;
import io.nodegate.source.StateAssembler;
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

/** What counts as a mere renewal, and the per-object model cache that lets a pass map only what changed. */
class MappedObjectsTest {

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

    @Test
    void aRenewedLeaseIsMappedAgainAndEqualsAFreshMapping() {
        MappedObjects cache = new MappedObjects();
        List<String> notes = new ArrayList<>();
        cache.map(Kinds.NODE_LEASES, List.of(plain(lease("w1", T0, "10")), plain(lease("w2", T0, "12"))), notes);
        assertThat(cache.counts()).isEqualTo(new MappedObjects.Counts(2, 0));

        Lease renewed = lease("w1", T0.plusSeconds(10), "20");
        Map<String, Object> unchanged = plain(lease("w2", T0, "12"));
        List<LeaseInfo> out = cache.map(Kinds.NODE_LEASES, List.of(plain(renewed), unchanged), notes);
        assertThat(cache.counts()).as("w1 mapped again, w2 reused").isEqualTo(new MappedObjects.Counts(3, 1));
        assertThat(out.get(0)).isEqualTo(Kinds.NODE_LEASES.fromJson(StateAssembler.incremental(), plain(renewed)))
                .extracting(LeaseInfo::renewTime).isEqualTo(T0.plusSeconds(10));
        assertThat(notes).isEmpty();
    }

    @Test
    void anUnchangedObjectIsReusedWithItsNotesAndAChangedOneIsMappedAgain() {
        MappedObjects cache = new MappedObjects();
        Node bare = new NodeBuilder().withNewMetadata().withName("bare").withUid("u-bare").withResourceVersion("5")
                .endMetadata().build();
        Node w1 = SeedCluster.node("w1", "10.0.0.1", "True", false, Map.of(), "boot-w1", "uuid-w1", 0, T0, T0);
        w1.getMetadata().setResourceVersion("6");

        List<String> first = new ArrayList<>();
        List<NodeInfo> mapped = cache.map(Kinds.NODES, List.of(plain(bare), plain(w1)), first);
        assertThat(first).singleElement().asString().contains("Node bare has no status");

        // the watch replaced w1 by an equal copy at the same resourceVersion (a re-list): reused, not mapped
        List<String> second = new ArrayList<>();
        List<NodeInfo> again = cache.map(Kinds.NODES, List.of(plain(bare), plain(w1)), second);
        assertThat(second).as("a reused object says its notes again").isEqualTo(first);
        assertThat(again.get(0)).isSameAs(mapped.get(0));
        assertThat(again.get(1)).isSameAs(mapped.get(1));
        assertThat(cache.counts()).isEqualTo(new MappedObjects.Counts(2, 2));

        // cordoned: a new resourceVersion, mapped again
        Node cordoned = new NodeBuilder(w1).editMetadata().withResourceVersion("7").endMetadata().editSpec()
                .withUnschedulable(true).endSpec().build();
        List<NodeInfo> third = cache.map(Kinds.NODES, List.of(plain(cordoned)), new ArrayList<>());
        assertThat(third).singleElement().extracting(NodeInfo::unschedulable).isEqualTo(true);
        assertThat(cache.counts().mapped()).isEqualTo(3);

        // "bare" was not held in the last call: forgotten, so a later one maps it afresh
        cache.map(Kinds.NODES, List.of(plain(bare)), new ArrayList<>());
        assertThat(cache.counts().mapped()).isEqualTo(4);
    }
}
