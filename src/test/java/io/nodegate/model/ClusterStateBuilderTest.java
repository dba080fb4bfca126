package io.nodegate.model;

import io.nodegate.model.bmc.BmcReadings;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Named construction of the snapshot: what is not set reads as not read, and a copy changes only what is named. */
class ClusterStateBuilderTest {

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
}
