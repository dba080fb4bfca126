package io.nodegate.watch.informer;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.nodegate.testing.SeedCluster;
import io.nodegate.source.kube.FabricJson;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.json.Plain;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What counts as a kubelet's mere status heartbeat on a Node (stored, no pass), and what is a change. The heartbeat
 * is the field shape of kubelet's periodic status post (kubernetes pkg/kubelet/nodestatus/setters.go sets every
 * condition's LastHeartbeatTime to now on each update; LastTransitionTime moves only when the status does).
 */
class NodeHeartbeatTest {

    private static final Instant T0 = Instant.parse("2026-12-01T09:00:00Z");
    private static final Map<String, String> WORKER = Map.of("node-role.kubernetes.io/worker", "true");

    /** A Ready worker as a kubelet reports it, with the pressure conditions a real kubelet posts beside Ready. */
    private static Node node(Instant heartbeat, String resourceVersion) {
        Node n = SeedCluster.node("w1", "10.0.1.10", "True", false, WORKER, "boot-1", "uuid-1", 0, heartbeat, T0);
        n.getMetadata().setResourceVersion(resourceVersion);
        List<NodeCondition> conditions = new java.util.ArrayList<>();
        for (String type : List.of("MemoryPressure", "DiskPressure", "PIDPressure")) {
            conditions.add(new NodeConditionBuilder().withType(type).withStatus("False")
                    .withReason("KubeletHasSufficient" + type.replace("Pressure", "")).withMessage("kubelet has no " + type)
                    .withLastHeartbeatTime(heartbeat.toString()).withLastTransitionTime(T0.toString()).build());
        }
        conditions.addAll(n.getStatus().getConditions());
        n.getStatus().setConditions(conditions);
        return n;
    }

    /** As the watch holds an object: the plain JSON values KubeJson parses from the server's answer. */
    private static Map<String, Object> plain(Node node) {
        return FabricJson.toPlain(node, KubeJson.MODEL);
    }

    private static boolean onlyHeartbeat(Node before, Node after) {
        return NodeHeartbeat.onlyHeartbeat(plain(before), plain(after));
    }

    private static Node posted(UnaryOperator<NodeBuilder> edit) {
        return edit.apply(new NodeBuilder(node(T0.plusSeconds(300), "11"))).build();
    }

    @Test
    void aStatusPostThatMovesOnlyHeartbeatTimesIsAHeartbeat() {
        Node before = node(T0, "10");
        Node fiveMinutesLater = node(T0.plusSeconds(300), "11");
        assertThat(onlyHeartbeat(before, fiveMinutesLater)).isTrue();

        Map<String, Object> withManagedFields = plain(fiveMinutesLater);
        Plain.map(withManagedFields, "metadata").put("managedFields", List.of(Map.of("manager", "kubelet")));
        assertThat(NodeHeartbeat.onlyHeartbeat(plain(before), withManagedFields)).isTrue();
        // nothing at all but the version moved: no change either
        assertThat(onlyHeartbeat(before, node(T0, "12"))).isTrue();
    }

    @Test
    void aConditionThatChangesIsAChange() {
        Node before = node(T0, "10");
        // the node going NotReady: status, reason and transition time move with the heartbeat
        Node notReady = SeedCluster.node("w1", "10.0.1.10", "Unknown", false, WORKER, "boot-1", "uuid-1", 0,
                T0.plusSeconds(300), T0.plusSeconds(300));
        notReady.getMetadata().setResourceVersion("11");
        assertThat(onlyHeartbeat(before, notReady)).isFalse();

        // near misses: one field of one condition beside the heartbeat
        assertThat(onlyHeartbeat(before, posted(b -> b.editStatus().editFirstCondition().withStatus("True")
                .endCondition().endStatus()))).as("status").isFalse();
        assertThat(onlyHeartbeat(before, posted(b -> b.editStatus().editFirstCondition()
                .withMessage("kubelet has memory pressure").endCondition().endStatus()))).as("message").isFalse();
        assertThat(onlyHeartbeat(before, posted(b -> b.editStatus().editLastCondition()
                .withLastTransitionTime(T0.plusSeconds(1).toString()).endCondition().endStatus())))
                .as("transition time").isFalse();
        assertThat(onlyHeartbeat(before, posted(b -> b.editStatus().removeFromConditions(
                node(T0.plusSeconds(300), "11").getStatus().getConditions().get(0)).endStatus())))
                .as("a condition gone").isFalse();
    }

    @Test
    void anythingElseOnTheNodeIsAChange() {
        Node before = node(T0, "10");
        assertThat(onlyHeartbeat(before, posted(b -> b.editStatus().editNodeInfo().withBootID("boot-2").endNodeInfo()
                .endStatus()))).as("a reboot (bootID)").isFalse();
        assertThat(onlyHeartbeat(before, posted(b -> b.editStatus().editFirstAddress().withAddress("10.0.1.99")
                .endAddress().endStatus()))).as("an address").isFalse();
        assertThat(onlyHeartbeat(before, posted(b -> b.editMetadata().addToLabels("node-role.kubernetes.io/gpu", "true")
                .endMetadata()))).as("a label a check reads").isFalse();
        // a label no check reads is dropped while parsing (KeptNodeMetadata): the post moved nothing the watch holds
        assertThat(onlyHeartbeat(before, posted(b -> b.editMetadata()
                .addToLabels("feature.node.kubernetes.io/cpu-cpuid.AVX2", "true").endMetadata())))
                .as("a feature-discovery label").isTrue();
        assertThat(onlyHeartbeat(before, posted(b -> b.editSpec().withUnschedulable(true).endSpec())))
                .as("a cordon").isFalse();
        assertThat(onlyHeartbeat(before, posted(b -> b.editMetadata().withDeletionTimestamp(T0.toString())
                .endMetadata()))).as("a deletion under way").isFalse();
        Map<String, Object> unknownField = plain(node(T0.plusSeconds(300), "11"));
        unknownField.put("somethingNew", Map.of("a", 1));
        assertThat(NodeHeartbeat.onlyHeartbeat(plain(before), unknownField)).as("a field nodegate does not know")
                .isFalse();
    }

    @Test
    void aNodeWithoutConditionsIsNeverAHeartbeat() {
        Map<String, Object> bare = plain(node(T0, "10"));
        Plain.map(bare, "status").remove("conditions");
        Map<String, Object> bareLater = plain(node(T0.plusSeconds(300), "11"));
        Plain.map(bareLater, "status").remove("conditions");
        assertThat(NodeHeartbeat.onlyHeartbeat(bare, bareLater)).isFalse();
    }
}
