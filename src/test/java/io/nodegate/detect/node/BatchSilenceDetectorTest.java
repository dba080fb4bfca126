package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.testing.NodeFixtures.ClusterBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.nodegate.testing.NodeFixtures.NOW;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class BatchSilenceDetectorTest {

    private static final Instant STOP = Instant.parse("2026-10-19T05:23:30Z");

    private static ClusterBuilder withSilent(ClusterBuilder b, String name, Instant renew) {
        return b.node(node(name).unknownSince(renew, renew.plusSeconds(53))).lease(name, renew);
    }

    @Test
    void seedBatchOfFourWithinTwelveSecondsFires() {
        ClusterBuilder b = cluster().healthy(node("keep-1"));
        withSilent(b, "gpu-a07", STOP.plusSeconds(12));
        withSilent(b, "gpu-a08", STOP);
        withSilent(b, "gpu-a09", STOP.plusSeconds(4));
        withSilent(b, "gpu-a10", STOP.plusSeconds(9));
        withSilent(b, "gpu-a06", STOP.minus(Duration.ofDays(7)));

        List<Finding> findings = new BatchSilenceDetector().detect(b.build(), AuditSettings.DEFAULTS);

        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG103");
            assertThat(f.nodes()).containsExactly("gpu-a08", "gpu-a09", "gpu-a10", "gpu-a07");
            assertThat(f.message()).contains("batch shutdown").contains("another cluster").contains("no cleanup")
                    .contains("12s");
            assertThat(f.evidence()).containsEntry("spreadSeconds", 12L).containsEntry("gracePeriodSeconds", 50L)
                    .containsEntry("firstStop", "2026-10-19T05:23:30Z");
            assertThat((Map<?, ?>) f.evidence().get("leaseRenewTimes")).hasSize(4);
        });
    }

    @Test
    void chainingJoinsNodesWhoseNeighboursAreWithinTheWindow() {
        ClusterBuilder b = cluster();
        withSilent(b, "a", STOP);
        withSilent(b, "b", STOP.plusSeconds(25));
        withSilent(b, "c", STOP.plusSeconds(50));

        List<Finding> findings = new BatchSilenceDetector().detect(b.build(), AuditSettings.DEFAULTS);

        assertThat(findings).singleElement().satisfies(f -> assertThat(f.nodes()).containsExactly("a", "b", "c"));
    }

    @Test
    void twoNodesThirtyOneSecondsApartDoNotFireButThirtyDo() {
        ClusterBuilder apart = cluster();
        withSilent(apart, "a", STOP);
        withSilent(apart, "b", STOP.plusSeconds(31));
        assertThat(new BatchSilenceDetector().detect(apart.build(), AuditSettings.DEFAULTS)).isEmpty();

        ClusterBuilder edge = cluster();
        withSilent(edge, "a", STOP);
        withSilent(edge, "b", STOP.plusSeconds(30));
        assertThat(new BatchSilenceDetector().detect(edge.build(), AuditSettings.DEFAULTS)).hasSize(1);
    }

    @Test
    void aLeaseStillWithinGraceDoesNotCount() {
        // Both stopped 3 s apart, but one renewed 45 s ago: under the 50 s grace of v1.34 it is not silent yet.
        ClusterBuilder b = cluster();
        withSilent(b, "a", NOW.minusSeconds(48));
        withSilent(b, "b", NOW.minusSeconds(45));
        assertThat(new BatchSilenceDetector().detect(b.build(), AuditSettings.DEFAULTS)).isEmpty();
    }

    @Test
    void graceFollowsTheApiserverVersionAndTheOverride() {
        ClusterBuilder old = cluster().serverVersion("v1.31.4+k3s1");
        withSilent(old, "a", NOW.minusSeconds(48));
        withSilent(old, "b", NOW.minusSeconds(45));
        // Before v1.32 the grace is 40 s: both Leases are past it.
        assertThat(new BatchSilenceDetector().detect(old.build(), AuditSettings.DEFAULTS))
                .singleElement().satisfies(f -> assertThat(f.evidence()).containsEntry("gracePeriodSeconds", 40L));

        ClusterBuilder overridden = cluster();
        withSilent(overridden, "a", NOW.minusSeconds(48));
        withSilent(overridden, "b", NOW.minusSeconds(45));
        AuditSettings shortGrace = new AuditSettings(Duration.ofSeconds(30), Duration.ofHours(72),
                Duration.ofHours(72), Duration.ofSeconds(20));
        assertThat(new BatchSilenceDetector().detect(overridden.build(), shortGrace)).hasSize(1);
    }

    @Test
    void aSingleSilentNodeAndLeasesWithoutNodesDoNotFire() {
        ClusterBuilder b = cluster().healthy(node("keep-1"));
        withSilent(b, "gpu-a06", STOP);
        b.lease("deleted-node", STOP.plusSeconds(2));
        assertThat(new BatchSilenceDetector().detect(b.build(), AuditSettings.DEFAULTS)).isEmpty();
    }
}
