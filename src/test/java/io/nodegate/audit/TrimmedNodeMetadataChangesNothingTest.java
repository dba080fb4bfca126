package io.nodegate.audit;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.controlplane.RedundancyReport;
import io.nodegate.detect.controlplane.RoleLayers;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInfo;
import io.nodegate.render.AuditRenderer;
import io.nodegate.render.output.JunitReport;
import io.nodegate.render.RedundancyRenderer;
import io.nodegate.render.output.Style;
import io.nodegate.source.dump.DumpSource;
import io.nodegate.source.json.KubeJson;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Node labels and annotations nodegate drops while parsing (everything outside KeptNodeMetadata) are never
 * needed: every example cluster, made field-sized, gives the same audit (every detector's findings with their
 * evidence, the node table, wide and JSON, the JUnit report) and the same redundancy report with and without the
 * trimming.
 *
 * <p>Field-sized: every Node of the example gets what the real RKE2 GPU node in
 * {@code ../shared/field/k8s/edgexr-nori-rke2/nodes.json} carries (edgexr/edge-cloud-platform
 * pkg/k8smgmt/cluster_test.go, gpuNodesSampleOutput: its node-feature-discovery and GPU labels, its annotations, its
 * 22 images) and a node-feature-discovery managedFields entry, apart from the keys that say who the node is (role
 * labels, hostname, etcd membership, the RKE2 arguments and addresses): those stay the example's own, or its story
 * would change. Keys the node already has keep its own value.
 */
class TrimmedNodeMetadataChangesNothingTest {

    private static final Path FIELD_NODE = Path.of("..", "shared", "field", "k8s", "edgexr-nori-rke2", "nodes.json");
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** What says who the real node is: never grafted onto another node. */
    private static final Set<String> IDENTITY_KEYS = Set.of("kubernetes.io/hostname", "rke2.io/node-args",
            "rke2.io/hostname", "rke2.io/internal-ip", "alpha.kubernetes.io/provided-node-ip",
            "flannel.alpha.coreos.com/public-ip", "etcd.rke2.cattle.io/node-address", "etcd.rke2.cattle.io/node-name",
            "etcd.rke2.cattle.io/local-snapshots-timestamp");

    /** Every example directory that holds a cluster's dump (nodes.json). */
    static Stream<Path> examples() throws IOException {
        try (Stream<Path> files = Files.walk(Path.of("examples"))) {
            return files.filter(f -> f.getFileName().toString().equals("nodes.json")).map(Path::getParent).sorted()
                    .toList().stream();
        }
    }

    @ParameterizedTest
    @MethodSource("examples")
    void everyOutputIsTheSameWithAndWithoutTheTrimming(Path example, @TempDir Path tmp) throws IOException {
        Path field = fieldSized(example, tmp.resolve("field"));
        String now = Files.exists(example.resolve("collected.json")) ? null : "2026-10-19T06:10:00Z";

        ClusterState trimmed = DumpSource.read(List.of(field), now, KubeJson.MODEL).state();
        ClusterState whole = DumpSource.read(List.of(field), now, KubeJson.MODEL_UNTRIMMED).state();

        // not vacuous: the whole read holds the field node's labels, the trimmed one dropped them
        assertThat(metadataCount(whole)).as("labels + annotations read without trimming")
                .isGreaterThan(metadataCount(trimmed) + 60L * whole.nodes().size());
        assertThat(whole.nodes()).allSatisfy(n -> assertThat(n.labels())
                .containsKey("feature.node.kubernetes.io/cpu-cpuid.AVX2"));
        assertThat(trimmed.nodes()).allSatisfy(n -> assertThat(n.labels())
                .doesNotContainKey("feature.node.kubernetes.io/cpu-cpuid.AVX2"));
        assertThat(trimmed.nodes()).extracting(NodeInfo::name)
                .containsExactlyElementsOf(whole.nodes().stream().map(NodeInfo::name).toList());

        assertThat(outputs(trimmed)).containsExactlyElementsOf(outputs(whole));
    }

    /** Every rendering of the audit and of the redundancy analysis of one state. */
    private static List<String> outputs(ClusterState state) {
        AuditReport report = Audit.run(state, AuditSettings.DEFAULTS);
        List<String> out = new ArrayList<>();
        out.add(AuditRenderer.table(report, Style.PLAIN, false));
        out.add(AuditRenderer.table(report, Style.PLAIN, true));
        out.add(AuditRenderer.tree(report).toString());
        out.add(JunitReport.xml(report, Map.of(), Set.of()));
        RedundancyReport redundancy = RedundancyReport.of(state.source(), state.serverVersion(), RoleLayers.of(state),
                Detectors.run(Detectors.in(Scope.REDUNDANCY, Detector.class), state, AuditSettings.DEFAULTS), state.notes());
        out.add(RedundancyRenderer.table(redundancy, Style.PLAIN, true));
        return out;
    }

    private static long metadataCount(ClusterState state) {
        return state.nodes().stream().mapToLong(n -> n.labels().size() + n.annotations().size()).sum();
    }

    /** A copy of the example's directory whose Nodes carry the real GPU node's metadata and images. */
    private static Path fieldSized(Path example, Path out) throws IOException {
        assertThat(FIELD_NODE).as("the field artifacts beside the repository (shared/field)").exists();
        JsonNode real = JSON.readTree(FIELD_NODE.toFile()).path("items").get(0);
        Files.createDirectories(out);
        try (Stream<Path> files = Files.list(example)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Path target = out.resolve(f.getFileName());
                if (f.getFileName().toString().equals("nodes.json")) {
                    JsonNode list = JSON.readTree(f.toFile());
                    for (JsonNode item : list.path("items")) {
                        graft((ObjectNode) item, real);
                    }
                    Files.writeString(target, JSON.writeValueAsString(list));
                } else {
                    Files.copy(f, target);
                }
            }
        }
        return out;
    }

    private static void graft(ObjectNode node, JsonNode real) {
        ObjectNode meta = (ObjectNode) node.path("metadata");
        Set<String> grafted = new TreeSet<>();
        for (String field : List.of("labels", "annotations")) {
            ObjectNode own = meta.has(field) ? (ObjectNode) meta.get(field) : meta.putObject(field);
            ObjectNode merged = JSON.createObjectNode();
            for (Map.Entry<String, JsonNode> e : real.path("metadata").path(field).properties()) {
                if (!IDENTITY_KEYS.contains(e.getKey()) && !e.getKey().startsWith(NodeInfo.ROLE_PREFIX)) {
                    merged.set(e.getKey(), e.getValue());
                    grafted.add(e.getKey());
                }
            }
            merged.setAll(own);
            meta.set(field, merged);
        }
        ArrayNode managed = meta.putArray("managedFields");
        ObjectNode nfd = managed.addObject();
        nfd.put("manager", "nfd-master").put("operation", "Update").put("apiVersion", "v1")
                .put("time", "2025-03-19T20:42:22Z").put("fieldsType", "FieldsV1");
        ObjectNode labels = nfd.putObject("fieldsV1").putObject("f:metadata").putObject("f:labels");
        grafted.forEach(k -> labels.putObject("f:" + k));
        ObjectNode status = node.has("status") ? (ObjectNode) node.get("status") : node.putObject("status");
        status.set("images", real.path("status").path("images"));
    }
}
