package io.nodegate.source.dump;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdIds;
import io.nodegate.model.NodeInfo;
import io.nodegate.source.Fixtures;
import io.nodegate.InputException;
import io.nodegate.source.SourceNotes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DumpSourceTest {

    private static final KubernetesSerialization SER = new KubernetesSerialization();
    private static final String NOW = "2026-10-19T06:10:00Z";

    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    /** What `kubectl get nodes,leases,... -A -o json` prints: kind List, typed items, managedFields. */
    private static String kubectlList(List<HasMetadata> items) {
        List<String> json = new ArrayList<>();
        for (HasMetadata o : items) {
            String j = SER.asJson(o);
            json.add(j.replaceFirst("\"metadata\":\\{", "\"metadata\":{\"managedFields\":[{\"apiVersion\":\"v1\","
                    + "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{\"f:conditions\":{}}},"
                    + "\"manager\":\"kubelet\",\"operation\":\"Update\",\"time\":\"2026-10-19T05:00:00Z\"}],"));
        }
        return "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"},\"items\":[\n"
                + String.join(",\n", json) + "\n]}";
    }

    @Test
    void readsAMixedKindKubectlListWithManagedFields() throws IOException {
        Path f = write("all.json", kubectlList(Fixtures.cluster(3, true)));
        ClusterState s = DumpSource.load(List.of(f), NOW);
        assertThat(s.now()).isEqualTo(Instant.parse(NOW));
        assertThat(s.nodes()).extracting(NodeInfo::name)
                .containsExactly("srv-0", "srv-1", "srv-2", "wrk-0000", "wrk-0001", "wrk-0002");
        assertThat(s.node("wrk-0000").orElseThrow().readyStatus()).isEqualTo("Unknown");
        assertThat(s.nodeLeases()).hasSize(6);
        assertThat(s.controlPlaneLeases()).hasSize(2);
        assertThat(s.nodePasswordSecrets()).hasSize(6);
        assertThat(s.csiNodes().present()).isTrue();
        assertThat(s.apiEndpoints().addresses()).hasSize(3);
        assertThat(s.cattleJobs().present()).isTrue();
        assertThat(s.cattleJobs().items()).hasSize(1);
        assertThat(s.notes()).anyMatch(n -> n.contains("EndpointSlice(s) other than default/kubernetes"));
        assertThat(s.notes()).noneMatch(n -> n.contains("kind Namespace"));
        assertThat(s.source()).startsWith("offline: ");
    }

    @Test
    void readsMultiDocumentYamlAndRawTypedListsWithoutItemKinds() throws IOException {
        String yaml = SER.asYaml(Fixtures.node("y1", "True", "10.1.0.1")) + "---\n"
                + SER.asYaml(Fixtures.nodeLease("y1", Fixtures.T0)) + "---\n\n---\n"
                + SER.asYaml(Fixtures.nodePassword("y1"));
        write("sub/a.yaml", yaml);
        // a raw API answer (kubectl get --raw /api/v1/nodes): NodeList, items carry no kind/apiVersion
        write("sub/deeper/raw.yml", "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":["
                + "{\"metadata\":{\"name\":\"raw1\"},\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}}]}");
        write("sub/notes.txt", "this is not a dump {");
        ClusterState s = DumpSource.load(List.of(dir.resolve("sub")), NOW);
        assertThat(s.nodes()).extracting(NodeInfo::name).containsExactly("raw1", "y1");
        assertThat(s.node("raw1").orElseThrow().readyStatus()).isEqualTo("False");
        assertThat(s.leaseOf("y1")).isPresent();
        assertThat(s.nodePasswordSecrets()).singleElement()
                .satisfies(sec -> assertThat(sec.nodePasswordOwner()).contains("y1"));
        assertThat(s.csiNodes().present()).isFalse();
        assertThat(s.notes()).contains(SourceNotes.notInInput("CSINode objects"),
                SourceNotes.notInInput("Jobs in cattle-system"));
    }

    @Test
    void nodesWithoutNodePasswordSecretsGetANoteAsCsiNodesAndJobsDo() {
        ClusterState s = DumpSource.load(List.of(java.nio.file.Path.of("examples/cluster-a-batch-stop/nodes.json")), NOW);
        assertThat(s.nodes()).isNotEmpty();
        assertThat(s.notes()).anyMatch(n -> n.contains("no node-password Secrets (kube-system) in the input")
                && n.contains("NG140, NG141"));
    }

    @Test
    void aNodeWithoutStatusAndALeaseWithoutRenewTimeAreReadWithNotes() throws IOException {
        Path f = write("odd.yaml", """
                apiVersion: v1
                kind: Node
                metadata:
                  name: bare
                ---
                apiVersion: coordination.k8s.io/v1
                kind: Lease
                metadata:
                  name: bare
                  namespace: kube-node-lease
                spec:
                  holderIdentity: bare
                """);
        ClusterState s = DumpSource.load(List.of(f), NOW);
        assertThat(s.node("bare").orElseThrow().readyStatus()).isNull();
        assertThat(s.leaseOf("bare").orElseThrow().renewTime()).isNull();
        assertThat(s.notes()).anyMatch(n -> n.contains("Node bare has no status"));
        assertThat(s.notes()).anyMatch(n -> n.contains("Lease kube-node-lease/bare has no renewTime"));
    }

    @Test
    void unknownKindsAreIgnoredWithANote() throws IOException {
        Path f = write("mixed.json", "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"items\":["
                + "{\"kind\":\"Service\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c\",\"namespace\":\"x\"}},"
                + "{\"kind\":\"Widget\",\"apiVersion\":\"example.com/v1\",\"metadata\":{\"name\":\"w\"},\"spec\":{\"x\":[1,2]}},"
                + "{\"kind\":\"Service\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"d\",\"namespace\":\"x\"}},"
                + "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\"}}]}");
        ClusterState s = DumpSource.load(List.of(f), NOW);
        assertThat(s.nodes()).hasSize(1);
        assertThat(s.notes()).contains("ignored 2 object(s) of kind Service (nodegate does not read them)",
                "ignored 1 object(s) of kind Widget (nodegate does not read them)");
    }

    @Test
    void secretDataNeverSurvivesOfflineReading() throws IOException {
        Path f = write("s.json", kubectlList(List.of(Fixtures.nodePassword("w1"), Fixtures.otherSecret("x"))));
        assertThat(Files.readString(f)).contains("TOPSECRET"); // the dump holds the values...
        DumpSource.Dump d = DumpSource.read(List.of(f), NOW);
        // ... and nothing the read kept does: the Dump holds only the model (no Kubernetes objects survive)
        String hash = java.util.Base64.getEncoder().encodeToString("TOPSECRET-scrypt-hash".getBytes());
        assertThat(Files.readString(f)).contains(hash);
        assertThat(d.toString()).doesNotContain("TOPSECRET").doesNotContain(hash).contains("w1.node-password.rke2");
        assertThat(d.state().nodePasswordSecrets()).singleElement()
                .satisfies(sec -> assertThat(sec.type()).isEqualTo("rke2.cattle.io/node-password"));
    }

    @Test
    void malformedJsonNamesFileLineAndColumn() throws IOException {
        Path f = write("broken.json", "{\n  \"kind\": \"List\",\n  \"items\": [\n    {\"kind\": \"Node\" \"x\": 1}\n  ]\n}\n");
        assertThatThrownBy(() -> DumpSource.load(List.of(f), NOW)).isInstanceOf(InputException.class)
                .hasMessageContaining(f.toString()).hasMessageContaining("malformed JSON at line 4, column");
    }

    @Test
    void malformedYamlNamesFileAndLine() throws IOException {
        Path f = write("broken.yaml", "kind: Node\nmetadata:\n  name: a\n  labels: [unclosed\n---\nkind: Node\n");
        assertThatThrownBy(() -> DumpSource.load(List.of(f), NOW)).isInstanceOf(InputException.class)
                .hasMessageContaining(f.toString()).hasMessageContaining("malformed YAML at line");
    }

    @Test
    void aMissingPathIsAnInputError() {
        assertThatThrownBy(() -> DumpSource.load(List.of(dir.resolve("nothing-here")), NOW))
                .isInstanceOf(InputException.class).hasMessageContaining("nothing-here");
    }

    @Test
    void refusesWithoutAClock() throws IOException {
        Path f = write("n.json", SER.asJson(Fixtures.node("a", "True", "10.0.0.1")));
        assertThatThrownBy(() -> DumpSource.load(List.of(f), null)).isInstanceOf(InputException.class)
                .hasMessageContaining("wrong clock").hasMessageContaining("--now");
        assertThatThrownBy(() -> DumpSource.load(List.of(f), "yesterday")).isInstanceOf(InputException.class)
                .hasMessageContaining("--now 'yesterday'");
        assertThat(DumpSource.load(List.of(f), "2026-10-19T15:10:00+09:00").now()).isEqualTo(Instant.parse(NOW));
    }

    @Test
    void collectedJsonGivesTheClockAndProvenAbsence() throws IOException {
        write("c/collected.json", "{\"kind\":\"NodegateCollection\",\"collectedAt\":\"2026-10-19T06:01:02.5Z\","
                + "\"context\":\"prod\",\"server\":\"https://10.0.0.10:6443\",\"serverVersion\":\"v1.34.1+rke2r1\","
                + "\"absent\":[\"csinodes\",\"cattle-system-jobs\"]}");
        write("c/nodes.json", kubectlList(List.of(Fixtures.node("a", "True", "10.0.0.1"))));
        for (String empty : List.of("daemonsets.json", "node-leases.json", "node-password-secrets.json",
                "kubernetes-endpointslices.json", "kube-system-leases.json")) {
            write("c/" + empty, "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"items\":[]}");
        }
        ClusterState s = DumpSource.load(List.of(dir.resolve("c")), null);
        assertThat(s.now()).isEqualTo(Instant.parse("2026-10-19T06:01:02.5Z"));
        assertThat(s.context()).isEqualTo("prod");
        assertThat(s.server()).isEqualTo("https://10.0.0.10:6443");
        assertThat(s.serverVersion()).isEqualTo("v1.34.1+rke2r1");
        assertThat(s.csiNodes().present()).isFalse();
        assertThat(s.cattleJobs().present()).isFalse();
        assertThat(s.notes()).contains(SourceNotes.CSINODES_NOT_SERVED, SourceNotes.CATTLE_SYSTEM_ABSENT);
        // --now wins over the recorded time
        assertThat(DumpSource.load(List.of(dir.resolve("c")), NOW).now()).isEqualTo(Instant.parse(NOW));
    }

    private Path etcdFixture(String name) throws IOException {
        try (InputStream in = Objects.requireNonNull(getClass().getResourceAsStream("/etcd/" + name), name)) {
            Path p = dir.resolve("etcd").resolve(name);
            Files.createDirectories(p.getParent());
            Files.write(p, in.readAllBytes());
            return p;
        }
    }

    @Test
    void theSameEndpointStatusSavedOnTwoServersIsOneRow() throws IOException {
        // `etcdctl endpoint status --cluster` run on two servers repeats the endpoints both reached
        Path status = etcdFixture("endpoint-status.json");
        Files.copy(status, dir.resolve("etcd").resolve("endpoint-status-again.json"));
        ClusterState s = DumpSource.load(List.of(dir.resolve("etcd")), NOW);
        assertThat(s.etcd()).extracting(EtcdEndpointReport::endpoint).containsExactly("http://127.0.0.1:23791",
                "http://127.0.0.1:23792", "http://127.0.0.1:23793", "http://127.0.0.1:23799");
    }

    @Test
    void etcdctlOutputWithIdsAbove2to63IsCombinedPerEndpoint() throws IOException {
        // real etcd 3.4 output: srv1..3 form one cluster, srv9 a separate one-member cluster (split brain)
        etcdFixture("endpoint-status.json");
        etcdFixture("member-list-srv1.json");
        etcdFixture("member-list-srv9.json");
        ClusterState s = DumpSource.load(List.of(dir.resolve("etcd")), NOW);
        List<EtcdEndpointReport> r = s.etcd();
        assertThat(r).extracting(EtcdEndpointReport::endpoint).containsExactly("http://127.0.0.1:23791",
                "http://127.0.0.1:23792", "http://127.0.0.1:23793", "http://127.0.0.1:23799");
        long clusterA = new BigInteger("8728020266155638186").longValue();
        long srv3 = new BigInteger("13558905889656223264").longValue(); // > 2^63
        assertThat(srv3).isNegative();
        assertThat(EtcdIds.hex(srv3)).isEqualTo(new BigInteger("13558905889656223264").toString(16));
        EtcdEndpointReport one = r.get(0);
        assertThat(one.ok()).isTrue();
        assertThat(one.status().clusterId()).isEqualTo(clusterA);
        assertThat(one.status().leader()).isEqualTo(srv3);
        assertThat(one.status().version()).isEqualTo("3.4.23");
        assertThat(one.memberListClusterId()).isEqualTo(clusterA);
        assertThat(one.members()).extracting(m -> m.name()).containsExactly("srv2", "srv1", "srv3");
        assertThat(one.members()).anySatisfy(m -> assertThat(m.id()).isEqualTo(srv3));
        // srv2 and srv3 answered status only: no member list attached to them
        assertThat(r.get(1).members()).isEmpty();
        assertThat(r.get(2).members()).isEmpty();
        EtcdEndpointReport nine = r.get(3);
        assertThat(nine.status().clusterId()).isNotEqualTo(clusterA);
        assertThat(nine.members()).singleElement().satisfies(m -> assertThat(m.name()).isEqualTo("srv9"));
    }

    @Test
    void aMemberListWithoutStatusBecomesItsOwnReportAndLearnersAreKept() throws IOException {
        etcdFixture("member-list-srv2-with-learner.json");
        ClusterState s = DumpSource.load(List.of(dir.resolve("etcd")), NOW);
        assertThat(s.etcd()).singleElement().satisfies(r -> {
            assertThat(r.endpoint()).isEqualTo("http://127.0.0.1:23792");
            assertThat(r.status()).isNull();
            assertThat(r.members()).hasSize(4);
            assertThat(r.members()).filteredOn(m -> m.learner()).singleElement()
                    .satisfies(m -> assertThat(m.name()).isNull());
        });
        assertThat(s.notes()).anyMatch(n -> n.contains("has no endpoint status"));
    }

    @Test
    void idsAsDecimalOrHexStringsAreTheSameMember() throws IOException {
        // the gateway prints decimal strings, etcdctl --hex (3.5+) hex strings; both name member 13558905889656223264
        write("gw.json", "{\"header\":{\"cluster_id\":\"8728020266155638186\",\"member_id\":\"13558905889656223264\"},"
                + "\"members\":[{\"ID\":\"13558905889656223264\",\"name\":\"srv3\"}]}");
        write("hex.json", "[{\"Endpoint\":\"https://10.0.0.12:2379\",\"Status\":{\"header\":{\"cluster_id\":\"79202830649dfdaa\","
                + "\"member_id\":\"bc2ae91187e93620\"},\"leader\":\"bc2ae91187e93620\",\"version\":\"3.5.21\"}}]");
        ClusterState s = DumpSource.load(List.of(dir.resolve("gw.json"), dir.resolve("hex.json")), NOW);
        long srv3 = new BigInteger("13558905889656223264").longValue();
        assertThat(EtcdIds.hex(srv3)).isEqualTo("bc2ae91187e93620");
        assertThat(s.etcd()).singleElement().satisfies(r -> {
            assertThat(r.endpoint()).isEqualTo("https://10.0.0.12:2379");
            assertThat(r.status().memberId()).isEqualTo(srv3);
            assertThat(r.members()).singleElement().satisfies(m -> assertThat(m.id()).isEqualTo(srv3));
        });
    }
}
