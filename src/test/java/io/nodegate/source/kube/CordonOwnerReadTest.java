package io.nodegate.source.kube;

import io.nodegate.model.CordonOwner;
import io.nodegate.model.NodeInfo;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.json.Plain;
import io.nodegate.testing.CordonedNodeJson;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Who cordoned a Node, read from its managedFields: the model keeps only the entry that owns spec.unschedulable,
 * cut to its manager, operation and time; the evidence reader keeps every entry as the server sent it.
 */
class CordonOwnerReadTest {

    @Test
    void theModelKeepsOnlyTheEntryThatOwnsTheCordon() throws IOException {
        byte[] bytes = CordonedNodeJson.nori("kubectl", "Update", "2026-11-30T08:15:00Z");

        Map<String, Object> trimmed = only(KubeJson.MODEL, bytes);
        List<Object> managed = Plain.list(Plain.map(trimmed, "metadata"), "managedFields");
        assertThat(managed).as("kubelet's, rke2's and kube-controller-manager's entries are dropped").hasSize(1);
        @SuppressWarnings("unchecked")
        Map<String, Object> entry = (Map<String, Object>) managed.get(0);
        assertThat(entry).containsOnlyKeys("manager", "operation", "time", "fieldsV1")
                .containsEntry("manager", "kubectl").containsEntry("time", "2026-11-30T08:15:00Z");

        NodeInfo node = StateAssembler.incremental().node(trimmed);
        assertThat(node.unschedulable()).isTrue();
        assertThat(node.cordonOwner()).isEqualTo(
                new CordonOwner("kubectl", "Update", Instant.parse("2026-11-30T08:15:00Z")));
        assertThat(node.cordonReason()).isNull();

        // collect's evidence keeps every entry; mapped, it names the same owner
        Map<String, Object> whole = only(KubeJson.EVIDENCE, bytes);
        assertThat(Plain.list(Plain.map(whole, "metadata"), "managedFields")).hasSize(4);
        assertThat(StateAssembler.incremental().node(whole).cordonOwner()).isEqualTo(node.cordonOwner());
    }

    @Test
    void rancherAndTheReasonAnnotation() throws IOException {
        byte[] bytes = CordonedNodeJson.withReason(
                CordonedNodeJson.nori("rancher", "Update", "2026-11-02T01:00:00Z"), "RMA ticket 4411: bad DIMM");
        NodeInfo node = StateAssembler.incremental().node(only(KubeJson.MODEL, bytes));
        assertThat(node.cordonOwner().manager()).isEqualTo("rancher");
        assertThat(node.cordonReason()).isEqualTo("RMA ticket 4411: bad DIMM");
    }

    @Test
    void theUnschedulableTaintsOwnerIsNotTheCordoner() throws IOException {
        // not cordoned: kube-controller-manager owns f:spec.f:taints, nobody owns f:unschedulable
        byte[] bytes = CordonedNodeJson.nori(null, null, null);
        Map<String, Object> trimmed = only(KubeJson.MODEL, bytes);
        assertThat(Plain.map(trimmed, "metadata")).doesNotContainKey("managedFields");
        assertThat(StateAssembler.incremental().node(trimmed).cordonOwner()).isNull();
    }

    @Test
    void appliersThatShareTheFieldNameTheLatest() {
        String node = "{'kind':'Node','metadata':{'name':'w1','managedFields':["
                + "{'manager':'fleet-agent','operation':'Apply','time':'2026-11-01T00:00:00Z',"
                + "'fieldsV1':{'f:spec':{'f:unschedulable':{}}}},"
                + "{'manager':'ops-cordoner','operation':'Apply','time':'2026-11-03T00:00:00Z',"
                + "'fieldsV1':{'f:spec':{'f:unschedulable':{}}}},"
                + "{'manager':'kubelet','operation':'Update','time':'2026-11-04T00:00:00Z','subresource':'status',"
                + "'fieldsV1':{'f:status':{'f:unschedulable':{}}}}]},'spec':{'unschedulable':true}}";
        Map<String, Object> read = KubeJson.MODEL.readObject(body(node), "test", null);
        assertThat(StateAssembler.incremental().node(read).cordonOwner())
                .isEqualTo(new CordonOwner("ops-cordoner", "Apply", Instant.parse("2026-11-03T00:00:00Z")));
    }

    @Test
    void otherKindsKeepNoManagedFieldsWhateverOrderTheirFieldsComeIn() {
        String lease = "{'metadata':{'name':'l','managedFields':[{'manager':'x','fieldsV1':"
                + "{'f:spec':{'f:unschedulable':{}}}}]},'kind':'Lease'}";
        assertThat(Plain.map(KubeJson.MODEL.readObject(body(lease), "test", null), "metadata"))
                .doesNotContainKey("managedFields");
    }

    private static ByteArrayInputStream body(String singleQuoted) {
        return new ByteArrayInputStream(singleQuoted.replace('\'', '"').getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static Map<String, Object> only(KubeJson json, byte[] bytes) {
        List<Object> items = new ArrayList<>();
        json.readDocuments(KubeJson.parser(new ByteArrayInputStream(bytes)), "nodes.json",
                new KubeJson.DocumentHandler() {
                    public void item(int document, Object item, String listKind) {
                        items.add(item);
                    }

                    public void listEnd(int document, KubeJson.ListEnvelope envelope) {
                    }

                    public void value(int document, Object value) {
                        items.add(value);
                    }
                });
        assertThat(items).hasSize(1);
        @SuppressWarnings("unchecked")
        Map<String, Object> node = (Map<String, Object>) items.get(0);
        return node;
    }
}
