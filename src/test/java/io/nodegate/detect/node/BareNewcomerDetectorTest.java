package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.nodegate.testing.NodeFixtures.NOW;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class BareNewcomerDetectorTest {

    private final BareNewcomerDetector detector = new BareNewcomerDetector();

    @Test
    void recentNodeWithoutRoleOrCordonFiresInAClusterWithRoles() {
        var state = cluster()
                .healthy(node("keep-1").role("burnin"))
                .healthy(node("ctl-1").role("control-plane").role("etcd"))
                .healthy(node("new-01").created(NOW.minus(Duration.ofHours(5))).internalIp("198.51.100.21"))
                .build();

        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG111");
            assertThat(f.nodes()).containsExactly("new-01");
            assertThat(f.message()).contains("5h ago");
            assertThat(f.evidence()).containsEntry("ageSeconds", 5L * 3600).containsEntry("nodesWithRoles", 2);
            assertThat(f.hint()).contains("kubectl cordon new-01");
        });
    }

    @Test
    void newcomerWithRoleLabelOrCordonDoesNotFire() {
        var state = cluster()
                .healthy(node("keep-1").role("burnin"))
                .healthy(node("new-02").created(NOW.minus(Duration.ofHours(5))).role("burnin"))
                .healthy(node("new-03").created(NOW.minus(Duration.ofHours(5))).cordoned(NOW.minusSeconds(60)))
                .build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }

    @Test
    void olderThanTheWindowDoesNotFire() {
        var state = cluster()
                .healthy(node("keep-1").role("burnin"))
                .healthy(node("plain").created(NOW.minus(Duration.ofHours(72)).minusSeconds(1)))
                .build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }

    @Test
    void clusterWhereNoNodeCarriesRolesDoesNotFire() {
        var state = cluster()
                .healthy(node("old-1"))
                .healthy(node("old-2"))
                .healthy(node("new-01").created(NOW.minus(Duration.ofHours(1))))
                .build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }
}
