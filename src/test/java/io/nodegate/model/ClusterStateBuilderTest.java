package io.nodegate.model;

import io.nodegate.model.bmc.BmcReadings;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Named construction of the snapshot: what is not set reads as not read, and a copy changes only what is named. */
class ClusterStateBuilderTest {

    private static final java.util.regex.Pattern POSITIONAL_STATE =
            java.util.regex.Pattern.compile("new (io\\.nodegate\\.model\\.)?ClusterState\\(");
    private static final Instant AT = Instant.parse("2026-11-30T08:00:00Z");

    @Test
    void partsNotSetAreNotReadNeverEmptyAndRead() {
        ClusterState state = ClusterState.builder(AT, "etcd endpoints").build();
        assertThat(state.now()).isEqualTo(AT);
        assertThat(state.source()).isEqualTo("etcd endpoints");
        assertThat(state.context()).isNull();
        assertThat(state.nodes()).isEmpty();
        // an optional kind not set is absent (not checked), not "read and empty"
        assertThat(state.csiNodes().present()).isFalse();
        assertThat(state.cattleJobs().present()).isFalse();
        assertThat(state.pods().present()).isFalse();
        assertThat(state.tombstones().present()).isFalse();
        assertThat(state.apiEndpoints()).isEqualTo(ApiEndpoints.NONE);
        assertThat(state.bmc()).isEqualTo(BmcReadings.NOT_READ);
    }

    @Test
    void aCopyChangesOnlyWhatItNamesAndTheSnapshotStaysImmutable() {
        ClusterState state = cluster().now(AT).healthy(node("cp1")).build();
        assertThat(state.toBuilder().build()).isEqualTo(state);

        List<NodeInfo> nodes = new ArrayList<>(state.nodes());
        ClusterState fewer = state.toBuilder().nodes(nodes).tombstones(Collected.of(List.of())).build();
        nodes.clear();
        assertThat(fewer.nodes()).hasSize(1);
        assertThat(fewer.tombstones().present()).isTrue();
        assertThat(fewer.nodeLeases()).isEqualTo(state.nodeLeases());
        assertThat(state.tombstones().present()).isFalse();
        assertThatThrownBy(() -> fewer.nodes().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    /**
     * The snapshot and the gate's evidence are built by name everywhere: their positional constructors (16-18
     * arguments, where two nulls swapped compile) are called only by their own builders. And the model stays free
     * of fabric8, so detectors stay pure functions of it.
     */
    @Test
    void positionalConstructionStaysInsideTheRecordsAndTheModelImportsNoFabric8() throws IOException {
        List<String> positional = new ArrayList<>();
        List<String> fabric8InModel = new ArrayList<>();
        try (Stream<Path> files = Stream.concat(Files.walk(Path.of("src/main/java")),
                Files.walk(Path.of("src/test/java")))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String text = Files.readString(f);
                String name = f.getFileName().toString();
                if (name.equals("ClusterStateBuilderTest.java")) {
                    continue; // this test names what it looks for
                }
                if (!name.equals("ClusterState.java") && POSITIONAL_STATE.matcher(text).find()
                        || !name.equals("GateEvidence.java") && text.contains("new GateEvidence(")) {
                    positional.add(f.toString());
                }
                if (f.startsWith(Path.of("src/main/java/io/nodegate/model")) && text.contains("import io.fabric8")) {
                    fabric8InModel.add(f.toString());
                }
            }
        }
        assertThat(positional).as("files calling the positional constructor instead of builder()").isEmpty();
        assertThat(fabric8InModel).as("model files importing fabric8").isEmpty();
    }
}
