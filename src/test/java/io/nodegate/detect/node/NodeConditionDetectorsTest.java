package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.nodegate.testing.NodeFixtures.NOW;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class NodeConditionDetectorsTest {

    private static final Instant HEARTBEAT = Instant.parse("2026-10-19T05:23:24Z");
    private static final Instant UNKNOWN_AT = Instant.parse("2026-10-19T05:24:35Z");

    @Test
    void unknownFiresWithUnreachableTaintsAndTheirTimes() {
        ClusterState state = cluster()
                .node(node("gpu-a07").unknownSince(HEARTBEAT, UNKNOWN_AT)
                        .taint("node.kubernetes.io/unreachable", null, "NoSchedule", UNKNOWN_AT)
                        .taint("node.kubernetes.io/unreachable", null, "NoExecute", Instant.parse("2026-10-19T05:24:45Z")))
                .lease("gpu-a07", Instant.parse("2026-10-19T05:23:42.676430Z"))
                .healthy(node("keep-1"))
                .build();

        List<Finding> findings = new NodeUnknownDetector().detect(state, AuditSettings.DEFAULTS);

        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG101");
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.nodes()).containsExactly("gpu-a07");
            assertThat(f.evidence()).containsEntry("readyLastTransitionTime", "2026-10-19T05:24:35Z")
                    .containsEntry("leaseRenewTime", "2026-10-19T05:23:42.676430Z");
            assertThat((List<Object>) f.evidence().get("unreachableTaints")).containsExactly(
                    Map.of("taint", "node.kubernetes.io/unreachable:NoSchedule", "timeAdded", "2026-10-19T05:24:35Z"),
                    Map.of("taint", "node.kubernetes.io/unreachable:NoExecute", "timeAdded", "2026-10-19T05:24:45Z"));
            assertThat(f.message()).contains("45m25s").contains("NodeStatusUnknown")
                    .contains("NoExecute at 2026-10-19T05:24:45Z");
            assertThat(f.hint()).contains("/etc/rancher/rke2/config.yaml").doesNotContain("k3s");
        });
    }

    @Test
    void theHintNamesTheConfigOfTheNodesDistribution() {
        ClusterState k3s = cluster().node(node("lab-1").kubelet("v1.35.4+k3s1").unknownSince(HEARTBEAT, UNKNOWN_AT))
                .build();
        assertThat(new NodeUnknownDetector().detect(k3s, AuditSettings.DEFAULTS)).singleElement()
                .satisfies(f -> assertThat(f.hint()).contains("/etc/rancher/k3s/config.yaml").doesNotContain("rke2"));
        ClusterState vanilla = cluster().node(node("vm-1").kubelet("v1.34.1").unknownSince(HEARTBEAT, UNKNOWN_AT))
                .build();
        assertThat(new NodeUnknownDetector().detect(vanilla, AuditSettings.DEFAULTS)).singleElement()
                .satisfies(f -> assertThat(f.hint()).contains("rke2/config.yaml or /etc/rancher/k3s/config.yaml"));
    }

    @Test
    void unknownDoesNotFireOnFalseOrTrueOrMissingReady() {
        ClusterState state = cluster()
                .node(node("broken-cni").ready("False", "KubeletNotReady", "container runtime network not ready",
                        NOW.minusSeconds(5), NOW.minusSeconds(600)))
                .healthy(node("keep-1"))
                .node(node("no-status").noReadyCondition())
                .build();

        assertThat(new NodeUnknownDetector().detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }

    @Test
    void notReadyFiresOnlyOnFalseWithReasonAndMessage() {
        ClusterState state = cluster()
                .node(node("broken-cni").ready("False", "KubeletNotReady", "container runtime network not ready",
                        NOW.minusSeconds(5), NOW.minusSeconds(600)))
                .node(node("gpu-a07").unknownSince(HEARTBEAT, UNKNOWN_AT))
                .healthy(node("keep-1"))
                .build();

        List<Finding> findings = new NodeNotReadyDetector().detect(state, AuditSettings.DEFAULTS);

        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG102");
            assertThat(f.nodes()).containsExactly("broken-cni");
            assertThat(f.message()).contains("KubeletNotReady").contains("container runtime network not ready");
            assertThat(f.evidence()).containsEntry("readyReason", "KubeletNotReady");
        });
    }
}
