package io.nodegate.audit;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static io.nodegate.testing.NodeFixtures.NOW;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static io.nodegate.testing.NodeFixtures.nodePassword;
import static org.assertj.core.api.Assertions.assertThat;

class AuditTest {

    /** The seed's cluster A on D+15 evening: a silent batch, a cordoned keeper, a stale Secret. */
    static ClusterState seedCluster() {
        Instant stop = Instant.parse("2026-10-19T05:23:30Z");
        var b = cluster()
                .healthy(node("ctl-1").role("control-plane").role("etcd").internalIp("192.0.2.11"))
                .healthy(node("keep-1").role("burnin").internalIp("192.0.2.21"))
                .secret(nodePassword("ctl-1.node-password.rke2", "rke2.cattle.io/node-password"))
                .secret(nodePassword("keep-1.node-password.rke2", "rke2.cattle.io/node-password"))
                .secret(nodePassword("gpu-a11.node-password.rke2", null))
                .note("CSINode API not served: CSINode checks skipped");
        for (int i = 0; i < 2; i++) {
            String name = "gpu-a0" + (7 + i);
            Instant renew = stop.plusSeconds(4L * i);
            b.node(node(name).role("burnin").cordoned(NOW.minus(Duration.ofDays(14)))
                    .unknownSince(renew.minusSeconds(18), renew.plusSeconds(53)).internalIp("192.0.2." + (7 + i)))
                    .lease(name, renew)
                    .secret(nodePassword(name + ".node-password.rke2", "rke2.cattle.io/node-password"));
        }
        return b.build();
    }

    @Test
    void findingsSortedBySeverityThenCodeAndNotesKept() {
        AuditReport report = Audit.run(seedCluster(), AuditSettings.DEFAULTS);

        assertThat(report.findings()).extracting(Finding::code)
                .containsExactly("NG101", "NG101", "NG103", "NG170", "NG170", "NG140", "NG171", "NG171");
        assertThat(report.findings()).extracting(Finding::severity).last().isEqualTo(Severity.INFO);
        assertThat(report.notes()).containsExactly("CSINode API not served: CSINode checks skipped");
        assertThat(report.hasWarnings()).isTrue();
    }

    @Test
    void rowsAreAgedAgainstTheSnapshotClockNotTheMachineClock() {
        AuditReport report = Audit.run(seedCluster(), AuditSettings.DEFAULTS);

        NodeRow a07 = report.nodes().stream().filter(r -> r.name().equals("gpu-a07")).findFirst().orElseThrow();
        assertThat(a07.ready()).isEqualTo("Unknown");
        assertThat(a07.readyReason()).isEqualTo("NodeStatusUnknown");
        assertThat(a07.leaseRenewAge()).isEqualTo(Duration.between(Instant.parse("2026-10-19T05:23:30Z"), NOW));
        assertThat(a07.lastHeartbeatAge()).isEqualTo(Duration.between(Instant.parse("2026-10-19T05:23:12Z"), NOW));
        assertThat(a07.cordoned()).isTrue();
        assertThat(a07.roles()).containsExactly("burnin");
        assertThat(a07.internalIp()).isEqualTo("192.0.2.7");
        assertThat(a07.age()).isEqualTo(Duration.ofDays(180));
        assertThat(report.now()).isEqualTo(NOW);
    }

    @Test
    void healthyClusterHasNoWarnings() {
        var state = cluster().healthy(node("a").role("worker")).healthy(node("b").role("worker")).build();
        AuditReport report = Audit.run(state, AuditSettings.DEFAULTS);
        assertThat(report.findings()).isEmpty();
        assertThat(report.hasWarnings()).isFalse();
    }
}
