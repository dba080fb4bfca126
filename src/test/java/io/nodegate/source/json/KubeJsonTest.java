package io.nodegate.source.json;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KubeJsonTest {

    private static final String SECRET_VALUE = "c2VjcmV0LXBhc3N3b3Jk"; // base64 of a password
    private static final String PLAIN_SECRET = "hunter2-plain";

    private static InputStream body(String json) {
        return new ByteArrayInputStream(json.replace('\'', '"').getBytes(StandardCharsets.UTF_8));
    }

    private static List<Map<String, Object>> list(KubeJson json, String text, String itemKind) {
        List<Map<String, Object>> items = new ArrayList<>();
        json.readList(body(text), "test", itemKind, items::add);
        return items;
    }

    /** An API LIST page of Nodes as the apiserver writes it: kind first, items without kind. */
    private static final String NODE_PAGE = "{'kind':'NodeList','apiVersion':'v1','metadata':{'resourceVersion':'4711',"
            + "'continue':'tok-2','remainingItemCount':3},'items':[{'metadata':{'name':'n1','uid':'u1',"
            + "'managedFields':[{'manager':'kubelet','fieldsV1':{'f:status':{}}}],'labels':{'a':'b'}},"
            + "'spec':{'unschedulable':true},'status':{'images':[{'names':['registry/x@sha256:1'],'sizeBytes':12}],"
            + "'capacity':{'cpu':'4'},'daemonEndpoints':{'kubeletEndpoint':{'Port':10250}}}},"
            + "{'metadata':{'name':'n2'},'status':{'nodeInfo':{'bootID':'b2'}}}]}";

    @Test
    void modelModeSkipsManagedFieldsAndImagesAndReturnsThePagingFields() {
        List<Map<String, Object>> items = new ArrayList<>();
        KubeJson.ListEnvelope page = KubeJson.MODEL.readList(body(NODE_PAGE), "LIST nodes", "Node", items::add);

        assertThat(page.kind()).isEqualTo("NodeList");
        assertThat(page.apiVersion()).isEqualTo("v1");
        assertThat(page.resourceVersion()).isEqualTo("4711");
        assertThat(page.continueToken()).isEqualTo("tok-2");
        assertThat(page.itemCount()).isEqualTo(2);
        assertThat(items).hasSize(2);
        Map<String, Object> n1 = items.get(0);
        assertThat(Plain.map(n1, "metadata")).containsOnlyKeys("name", "uid", "labels");
        assertThat(Plain.map(n1, "status")).containsOnlyKeys("capacity", "daemonEndpoints");
        assertThat(Plain.bool(Plain.map(n1, "spec"), "unschedulable")).isTrue();
        assertThat(Plain.map(Plain.map(items.get(1), "status"), "nodeInfo")).containsEntry("bootID", "b2");
        // numbers are Long
        assertThat(((Map<?, ?>) Plain.map(Plain.map(n1, "status"), "daemonEndpoints").get("kubeletEndpoint")).get("Port"))
                .isEqualTo(10250L);
    }

    @Test
    void evidenceModeKeepsManagedFieldsAndImages() {
        Map<String, Object> n1 = list(KubeJson.EVIDENCE, NODE_PAGE, "Node").get(0);
        assertThat(Plain.map(n1, "metadata")).containsKey("managedFields");
        assertThat(Plain.list(Plain.map(n1, "status"), "images")).hasSize(1);
    }

    @Test
    void anEmptyContinueTokenIsTheLastPage() {
        KubeJson.ListEnvelope page = KubeJson.MODEL.readList(body("{'kind':'NodeList','metadata':{'continue':''},"
                + "'items':[]}"), "t", null, m -> { });
        assertThat(page.continueToken()).isNull();
        assertThat(page.itemCount()).isZero();
        assertThat(KubeJson.MODEL.readList(body("{'items':[]}"), "t", null, m -> { }).continueToken()).isNull();
    }

    /** Secret values, however they are written, never reach what the consumer gets, in either mode. */
    @Test
    void secretValuesNeverReachTheConsumer() {
        String apiPage = "{'kind':'SecretList','metadata':{},'items':[{'metadata':{'name':'s1','annotations':{"
                + "'kubectl.kubernetes.io/last-applied-configuration':'{\\'data\\':{\\'p\\':\\'" + SECRET_VALUE
                + "\\'}}','keep':'me'}},'type':'Opaque','data':{'password':'" + SECRET_VALUE + "'},"
                + "'stringData':{'p':'" + PLAIN_SECRET + "'}}]}";
        // kubectl writes keys sorted: data before kind, and the items carry their kind
        String kubectlList = "{'apiVersion':'v1','items':[{'apiVersion':'v1','data':{'password':'" + SECRET_VALUE
                + "'},'kind':'Secret','metadata':{'annotations':{'kubectl.kubernetes.io/last-applied-configuration':'"
                + SECRET_VALUE + "'},'name':'s2'},'stringData':{'x':'" + PLAIN_SECRET + "'},'type':'Opaque'}],"
                + "'kind':'List','metadata':{'resourceVersion':''}}";
        for (KubeJson mode : List.of(KubeJson.MODEL, KubeJson.EVIDENCE)) {
            List<Object> seen = new ArrayList<>();
            seen.addAll(list(mode, apiPage, "Secret"));     // the caller knows the kind (live LIST secrets)
            seen.addAll(list(mode, apiPage, null));         // ... and when it does not, the list's kind tells it
            seen.addAll(list(mode, kubectlList, null));
            seen.add(mode.readObject(body("{'data':{'a':'" + SECRET_VALUE + "'},'kind':'Secret','metadata':"
                    + "{'name':'s3'}}"), "t", null));
            mode.readDocuments(KubeJson.parser(body(kubectlList + "\n" + apiPage)), "dump", new Collect(seen));
            assertThat(seen).hasSize(6);
            assertThat(seen.toString()).doesNotContain(SECRET_VALUE).doesNotContain(PLAIN_SECRET)
                    .doesNotContain("last-applied").contains("s1", "s2", "s3", "keep=me", "type=Opaque");
        }
    }

    @Test
    void configMapDataIsKeptOnlyForTheTombstonesInModelMode() {
        String page = "{'kind':'ConfigMapList','items':[{'metadata':{'name':'nodegate-tombstones'},'data':{'h1':'{}'}},"
                + "{'metadata':{'name':'other'},'data':{'big':'x'},'binaryData':{'b':'eA=='}}]}";
        List<Map<String, Object>> model = list(KubeJson.MODEL, page, "ConfigMap");
        assertThat(model.get(0)).containsKey("data");
        assertThat(model.get(1)).doesNotContainKeys("data", "binaryData");
        // name after data (kubectl's order): decided when the object ends
        String sorted = "{'items':[{'data':{'big':'x'},'kind':'ConfigMap','metadata':{'name':'other'}},"
                + "{'data':{'h1':'{}'},'kind':'ConfigMap','metadata':{'name':'nodegate-tombstones'}}],'kind':'List'}";
        List<Map<String, Object>> sortedModel = list(KubeJson.MODEL, sorted, null);
        assertThat(sortedModel.get(0)).doesNotContainKey("data");
        assertThat(sortedModel.get(1)).containsKey("data");
        assertThat(list(KubeJson.EVIDENCE, page, "ConfigMap").get(1)).containsKeys("data", "binaryData");
    }

    @Test
    void numbersKeepTheirSize() {
        Map<String, Object> o = KubeJson.MODEL.readObject(body("{'metadata':{'name':'x'},'a':1,'b':18446744073709551615,"
                + "'c':1.5,'d':null,'e':false}"), "t", null);
        assertThat(o.get("a")).isEqualTo(1L);
        assertThat(o.get("b")).isEqualTo(new BigInteger("18446744073709551615"));
        assertThat(o.get("c")).isEqualTo(1.5);
        assertThat(o).containsEntry("d", null).containsEntry("e", false);
    }

    @Test
    void aTruncatedBodyFailsNamingWhereEvenInsideASkippedField() {
        String cut = NODE_PAGE.substring(0, NODE_PAGE.indexOf("sizeBytes"));
        List<Map<String, Object>> items = new ArrayList<>();
        assertThatThrownBy(() -> KubeJson.MODEL.readList(body(cut), "LIST nodes at https://api:6443", "Node", items::add))
                .isInstanceOf(JsonReadException.class)
                .hasMessageStartingWith("LIST nodes at https://api:6443: truncated JSON at line 1, column ")
                .hasMessageContaining("byte ");
        assertThat(items).isEmpty(); // the cut was in the first item: nothing handed over
        // cut between items: the first was handed over, and the read still fails (caller discards it)
        String betweenItems = NODE_PAGE.substring(0, NODE_PAGE.indexOf(",{'metadata':{'name':'n2'".replace('\'', '"')
                .replace('"', '\'')) + 1);
        assertThatThrownBy(() -> KubeJson.MODEL.readList(body(betweenItems), "t", "Node", m -> { }))
                .isInstanceOf(JsonReadException.class).hasMessageContaining("truncated JSON");
    }

    @Test
    void malformedJsonNamesLineAndColumn() {
        assertThatThrownBy(() -> KubeJson.MODEL.readList(body("{'kind':'NodeList',\n'items':[{'metadata':{'name':'a'}},,]}"),
                "f.json", null, m -> { }))
                .isInstanceOf(JsonReadException.class)
                .hasMessageStartingWith("f.json: malformed JSON at line 2, column ");
    }

    @Test
    void shapesThatAreNotAListFail() {
        assertThatThrownBy(() -> list(KubeJson.MODEL, "{'kind':'NodeList','items':{'a':1}}", null))
                .hasMessage("test: items is a JSON object at line 1, column 28 (byte 27), not an array");
        assertThatThrownBy(() -> list(KubeJson.MODEL, "{'kind':'NodeList','items':null}", null))
                .hasMessageContaining("items is a JSON null");
        assertThatThrownBy(() -> list(KubeJson.MODEL, "{'kind':'Status','status':'Failure'}", null))
                .hasMessage("test: the answer has no items array: not a Kubernetes list");
        assertThatThrownBy(() -> list(KubeJson.MODEL, "[{'metadata':{}}]", null))
                .hasMessageStartingWith("test: a JSON array at line 1");
        assertThatThrownBy(() -> list(KubeJson.MODEL, "{'items':['x']}", null))
                .hasMessageStartingWith("test: a list item is not an object");
        assertThatThrownBy(() -> list(KubeJson.MODEL, "{'items':[]} {'items':[]}", null))
                .hasMessageStartingWith("test: unexpected data after the end of the answer");
        assertThatThrownBy(() -> list(KubeJson.MODEL, "  ", null)).hasMessage("test: empty answer (no JSON value)");
        assertThatThrownBy(() -> list(KubeJson.MODEL, "<html>login</html>", null))
                .isInstanceOf(JsonReadException.class).hasMessageStartingWith("test: malformed JSON at line 1");
    }

    @Test
    void aFailingStreamIsAnIoFailureNotMalformedJson() {
        byte[] start = NODE_PAGE.replace('\'', '"').substring(0, 200).getBytes(StandardCharsets.UTF_8);
        InputStream failing = new InputStream() {
            int i;

            @Override
            public int read() throws IOException {
                if (i < start.length) {
                    return start[i++];
                }
                throw new java.net.SocketTimeoutException("Read timed out");
            }
        };
        assertThatThrownBy(() -> KubeJson.MODEL.readList(failing, "LIST nodes at https://api:6443", "Node", m -> { }))
                .isInstanceOfSatisfying(JsonReadException.class, e -> assertThat(e.ioFailure()).isTrue())
                .hasMessageContaining("reading the answer failed")
                .hasRootCauseInstanceOf(java.net.SocketTimeoutException.class);
    }

    @Test
    void documentsStreamListsAndHandOtherValuesWhole() {
        List<String> events = new ArrayList<>();
        String text = "{'apiVersion':'v1','items':[{'kind':'Node','metadata':{'name':'a','managedFields':[]}}],"
                + "'kind':'List','metadata':{'resourceVersion':''}}\n"
                + "{'kind':'LeaseList','items':[{'metadata':{'name':'l'}}]}\n"
                + "[{'Endpoint':'https://e:2379','Status':{'header':{'member_id':1}}}]\n"
                + "{'kind':'Weird','items':[1]}\n"
                + "{'kind':'Node','metadata':{'name':'b'}}";
        int n = KubeJson.MODEL.readDocuments(KubeJson.parser(body(text)), "dump.json", new KubeJson.DocumentHandler() {
            @Override
            public void item(int document, Object item, String listKind) {
                events.add(document + " item " + listKind + " " + item);
            }

            @Override
            public void listEnd(int document, KubeJson.ListEnvelope envelope) {
                events.add(document + " end " + envelope.kind() + " " + envelope.itemCount());
            }

            @Override
            public void value(int document, Object value) {
                events.add(document + " value " + value);
            }
        });
        assertThat(n).isEqualTo(5);
        assertThat(events).containsExactly(
                "0 item null {kind=Node, metadata={name=a}}",
                "0 end List 1",
                "1 item Lease {metadata={name=l}}",
                "1 end LeaseList 1",
                "2 value [{Endpoint=https://e:2379, Status={header={member_id=1}}}]",
                "3 value {kind=Weird, items=[1]}",
                "4 value {kind=Node, metadata={name=b}}");
    }

    @Test
    void plainReadsNameTheFieldOfTheWrongShape() {
        Map<String, Object> o = KubeJson.MODEL.readObject(body("{'metadata':{'name':'x','labels':['a']},'n':'12',"
                + "'big':4294967296}"), "t", null);
        assertThatThrownBy(() -> Plain.stringMap(Plain.map(o, "metadata"), "labels"))
                .hasMessage("labels: expected an object, got an array");
        assertThat(Plain.integer(o, "n")).isEqualTo(12);
        assertThatThrownBy(() -> Plain.integer(o, "big")).hasMessageContaining("out of the range");
    }

    private record Collect(List<Object> seen) implements KubeJson.DocumentHandler {
        @Override
        public void item(int document, Object item, String listKind) {
            seen.add(item);
        }

        @Override
        public void listEnd(int document, KubeJson.ListEnvelope envelope) {
        }

        @Override
        public void value(int document, Object value) {
            seen.add(value);
        }
    }

    @Test
    void aWatchStreamIsReadEventByEventWithTheSkipRules() {
        String stream = "{'type':'ADDED','object':{'kind':'Secret','apiVersion':'v1','metadata':{'name':'s1',"
                + "'namespace':'kube-system','resourceVersion':'11','managedFields':[{'manager':'k3s'}]},"
                + "'data':{'hash':'" + SECRET_VALUE + "'}}}\n"
                + "{'type':'BOOKMARK','object':{'kind':'Secret','metadata':{'resourceVersion':'12'}}}\n"
                + "{'type':'ERROR','object':{'kind':'Status','apiVersion':'v1','status':'Failure',"
                + "'message':'too old resource version: 5 (12)','reason':'Expired','code':410}}\n";
        List<KubeJson.WatchEvent> events = new ArrayList<>();
        int count = KubeJson.MODEL.readWatchEvents(body(stream), "WATCH secrets", "Secret", events::add);

        assertThat(count).isEqualTo(3);
        assertThat(events).extracting(KubeJson.WatchEvent::type).containsExactly("ADDED", "BOOKMARK", "ERROR");
        assertThat(events.get(0).object()).doesNotContainKey("data");
        assertThat(Plain.map(events.get(0).object(), "metadata")).doesNotContainKey("managedFields")
                .containsEntry("resourceVersion", "11");
        assertThat(events.toString()).doesNotContain(SECRET_VALUE);
        assertThat(events.get(2).object()).containsEntry("code", 410L).containsEntry("reason", "Expired");
    }

    @Test
    void aWatchStreamCutInsideAnEventFailsAfterTheWholeEventsBeforeIt() {
        String stream = "{'type':'MODIFIED','object':{'metadata':{'name':'n1','resourceVersion':'7'}}}\n"
                + "{'type':'MODIFIED','object':{'metadata':{'name':'n2'";
        List<KubeJson.WatchEvent> events = new ArrayList<>();
        assertThatThrownBy(() -> KubeJson.MODEL.readWatchEvents(body(stream), "WATCH nodes", "Node", events::add))
                .isInstanceOf(JsonReadException.class).hasMessageContaining("WATCH nodes");
        assertThat(events).singleElement().extracting(KubeJson.WatchEvent::type).isEqualTo("MODIFIED");

        assertThatThrownBy(() -> KubeJson.MODEL.readWatchEvents(body("{'object':{'metadata':{'name':'n1'}}}"),
                "WATCH nodes", "Node", e -> { })).isInstanceOf(JsonReadException.class)
                .hasMessageContaining("watch event 1 has no type");
        assertThatThrownBy(() -> KubeJson.MODEL.readWatchEvents(body("['not','an','event']"), "WATCH nodes", "Node",
                e -> { })).isInstanceOf(JsonReadException.class).hasMessageContaining("not an object");
        assertThat(KubeJson.MODEL.readWatchEvents(body(""), "WATCH nodes", "Node", e -> { }))
                .as("a watch the server ended before any event").isZero();
    }

    /**
     * The real RKE2 GPU node (shared/field/k8s/edgexr-nori-rke2/nodes.json: edgexr/edge-cloud-platform
     * pkg/k8smgmt/cluster_test.go, gpuNodesSampleOutput; kubectl's List, keys sorted, kind before metadata): 85 labels
     * and 18 annotations, of which the model keeps the role labels, the hostname, RKE2's node-args and the etcd member
     * annotations. The evidence and untrimmed readers keep all of them.
     */
    @Test
    void modelModeKeepsOnlyTheNodeMetadataAChecksReads() throws IOException {
        java.nio.file.Path file = java.nio.file.Path.of("..", "shared", "field", "k8s", "edgexr-nori-rke2",
                "nodes.json");
        assertThat(file).as("the field artifacts beside the repository (shared/field)").exists();
        byte[] bytes = java.nio.file.Files.readAllBytes(file);

        Map<String, Object> trimmed = only(KubeJson.MODEL, bytes);
        assertThat(Plain.stringMap(Plain.map(trimmed, "metadata"), "labels")).containsOnlyKeys(
                "kubernetes.io/hostname", "node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/etcd",
                "node-role.kubernetes.io/master");
        assertThat(Plain.stringMap(Plain.map(trimmed, "metadata"), "annotations")).containsOnlyKeys(
                "etcd.rke2.cattle.io/node-address", "etcd.rke2.cattle.io/node-name", "rke2.io/node-args")
                .containsEntry("rke2.io/node-args", "[\"server\"]");
        // the rest of the Node is untouched: the GPU count is read from the capacity
        assertThat(Plain.stringMap(Plain.map(trimmed, "status"), "capacity")).containsEntry("nvidia.com/gpu", "1");

        for (KubeJson whole : List.of(KubeJson.EVIDENCE, KubeJson.MODEL_UNTRIMMED)) {
            Map<String, Object> node = only(whole, bytes);
            assertThat(Plain.stringMap(Plain.map(node, "metadata"), "labels")).hasSize(85);
            assertThat(Plain.stringMap(Plain.map(node, "metadata"), "annotations")).hasSize(18);
        }
    }

    /** Items of a kubectl List, read as a dump is (DocumentHandler), each item's kind deciding. */
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

    @Test
    void aNodeIsTrimmedWhateverOrderItsFieldsComeIn() {
        String meta = "'metadata':{'name':'n1','labels':{'node-role.kubernetes.io/worker':'true',"
                + "'feature.node.kubernetes.io/cpu-cpuid.AVX2':'true'},'annotations':{'k3s.io/node-args':'[]',"
                + "'nfd.node.kubernetes.io/feature-labels':'cpu-cpuid.AVX2'}}";
        // an API LIST: the caller names the kind; a file with sorted keys: kind first; a file written otherwise:
        // kind after the metadata (trimmed when the object ends, before anyone sees it)
        List<Map<String, Object>> nodes = List.of(
                list(KubeJson.MODEL, "{'items':[{" + meta + "}]}", "Node").get(0),
                KubeJson.MODEL.readObject(body("{'kind':'Node'," + meta + "}"), "test", null),
                KubeJson.MODEL.readObject(body("{" + meta + ",'kind':'Node'}"), "test", null));
        for (Map<String, Object> node : nodes) {
            Map<String, Object> m = Plain.map(node, "metadata");
            assertThat(Plain.stringMap(m, "labels")).containsOnlyKeys("node-role.kubernetes.io/worker");
            assertThat(Plain.stringMap(m, "annotations")).containsOnlyKeys("k3s.io/node-args");
        }
        // other kinds keep their labels and annotations (a Lease's, a ConfigMap's selectors read them)
        Map<String, Object> lease = KubeJson.MODEL.readObject(body("{'kind':'Lease'," + meta + "}"), "test", null);
        assertThat(Plain.stringMap(Plain.map(lease, "metadata"), "labels")).hasSize(2);
        assertThat(Plain.stringMap(Plain.map(lease, "metadata"), "annotations")).hasSize(2);
    }
}
