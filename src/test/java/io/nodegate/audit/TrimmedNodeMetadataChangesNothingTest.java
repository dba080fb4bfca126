package io.nodegate.audit;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.controlplane.MultiViewDetector;
import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.detect.controlplane.RedundancyReport;
import io.nodegate.detect.controlplane.RoleLayers;
import io.nodegate.detect.controlplane.ViewsReport;
import io.nodegate.detect.controlplane.ViewsTable;
import io.nodegate.detect.fleet.Fleet;
import io.nodegate.detect.fleet.FleetDetector;
import io.nodegate.detect.fleet.FleetReport;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Tombstone;
import io.nodegate.render.AuditRenderer;
import io.nodegate.render.FleetRenderer;
import io.nodegate.render.RedundancyRenderer;
import io.nodegate.render.ViewsRenderer;
import io.nodegate.render.output.OutputFormat;
import io.nodegate.render.output.OutputFormats;
import io.nodegate.render.output.Rendering;
import io.nodegate.source.dump.DumpSource;
import io.nodegate.source.json.KubeJson;
import org.junit.jupiter.api.Test;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Node labels and annotations nodegate drops while parsing (everything outside KeptNodeMetadata) are never
 * needed: every example cluster, made field-sized, gives the same findings from every detector in the registry that
 * reads a snapshot (whatever command runs it: audit and the watch, etcd, redundancy, probe, the BMC checks; each
 * finding compared whole, its evidence record included), the same audit in every format -o offers for it, and the
 * same redundancy report, with and without the trimming. Across the examples together, the same holds for the
 * detectors that read several clusters or views (fleet, views) and their reports in every format.
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

        assertThat(findingsByDetector(trimmed)).containsExactlyEntriesOf(findingsByDetector(whole));
        assertThat(outputs(trimmed)).containsExactlyEntriesOf(outputs(whole));
    }

    /** The detectors over several clusters or views read each example cluster, field-sized, as one of many. */
    @Test
    void fleetAndViewsAreTheSameWithAndWithoutTheTrimming(@TempDir Path tmp) throws IOException {
        List<NamedView> trimmed = new ArrayList<>();
        List<NamedView> whole = new ArrayList<>();
        Map<String, Collected<Tombstone>> trimmedTombstones = new LinkedHashMap<>();
        Map<String, Collected<Tombstone>> wholeTombstones = new LinkedHashMap<>();
        int i = 0;
        for (Path example : examples().toList()) {
            Path field = fieldSized(example, tmp.resolve("field-" + i++));
            String now = Files.exists(example.resolve("collected.json")) ? null : "2026-10-19T06:10:00Z";
            String name = example.toString().replace('/', '-');
            ClusterState t = DumpSource.read(List.of(field), now, KubeJson.MODEL).state();
            ClusterState w = DumpSource.read(List.of(field), now, KubeJson.MODEL_UNTRIMMED).state();
            trimmed.add(new NamedView(name, t));
            whole.add(new NamedView(name, w));
            trimmedTombstones.put(name, t.tombstones());
            wholeTombstones.put(name, w.tombstones());
        }
        FleetReport trimmedFleet = FleetReport.of(Fleet.of(trimmed, trimmedTombstones),
                Detectors.in(Scope.FLEET, FleetDetector.class), List.of());
        FleetReport wholeFleet = FleetReport.of(Fleet.of(whole, wholeTombstones),
                Detectors.in(Scope.FLEET, FleetDetector.class), List.of());
        // not vacuous: the examples share hosts across clusters (several are one cluster at different moments)
        assertThat(wholeFleet.findings()).extracting(Finding::code).contains("NG301");
        assertThat(trimmedFleet.findings()).containsExactlyElementsOf(wholeFleet.findings());
        assertThat(everyFormat(new FleetRenderer.Output(trimmedFleet)))
                .containsExactlyEntriesOf(everyFormat(new FleetRenderer.Output(wholeFleet)));

        List<Finding> trimmedViews = new ArrayList<>();
        List<Finding> wholeViews = new ArrayList<>();
        for (MultiViewDetector d : Detectors.in(Scope.VIEWS, MultiViewDetector.class)) {
            trimmedViews.addAll(d.detect(trimmed, AuditSettings.DEFAULTS));
            wholeViews.addAll(d.detect(whole, AuditSettings.DEFAULTS));
        }
        assertThat(wholeViews).isNotEmpty();
        assertThat(trimmedViews).containsExactlyElementsOf(wholeViews);
        assertThat(everyFormat(new ViewsRenderer.Output(ViewsReport.of(ViewsTable.of(trimmed), trimmedViews, List.of()))))
                .containsExactlyEntriesOf(everyFormat(new ViewsRenderer.Output(
                        ViewsReport.of(ViewsTable.of(whole), wholeViews, List.of()))));
    }

    /**
     * Every detector of the registry that reads one snapshot, whatever its scope, and its findings as records (code,
     * nodes, message, evidence: Finding's equality).
     */
    private static Map<String, List<Finding>> findingsByDetector(ClusterState state) {
        Map<String, List<Finding>> out = new LinkedHashMap<>();
        for (Detectors.Row row : Detectors.rows()) {
            if (row.detector() instanceof Detector d) {
                out.put(d.getClass().getSimpleName(), d.detect(state, AuditSettings.DEFAULTS));
            }
        }
        return out;
    }

    /** The audit of one state in every format -o offers for it, and its redundancy report in every format. */
    private static Map<String, String> outputs(ClusterState state) {
        AuditReport report = Audit.run(state, AuditSettings.DEFAULTS);
        Map<String, String> checks = new LinkedHashMap<>();
        Detectors.all().forEach(d -> checks.put(d.code().code(), d.name()));
        Map<String, String> out = new LinkedHashMap<>();
        everyFormat(new AuditRenderer.Checked(report, checks, Set.of())).forEach((f, text) -> out.put("audit " + f, text));
        RedundancyReport redundancy = RedundancyReport.of(state.source(), state.serverVersion(), RoleLayers.of(state),
                Detectors.run(Detectors.in(Scope.REDUNDANCY, Detector.class), state, AuditSettings.DEFAULTS), state.notes());
        everyFormat(new RedundancyRenderer.Output(redundancy)).forEach((f, text) -> out.put("redundancy " + f, text));
        return out;
    }

    /** One report in every -o format that accepts its type (OutputFormats is the one registry of them). */
    private static Map<String, String> everyFormat(Object report) {
        Map<String, String> out = new LinkedHashMap<>();
        for (OutputFormat f : OutputFormats.of(report.getClass())) {
            out.put(f.name(), f.render(report, Rendering.PLAIN));
        }
        assertThat(out).as("formats for " + report.getClass().getSimpleName()).containsKeys("table", "json");
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
