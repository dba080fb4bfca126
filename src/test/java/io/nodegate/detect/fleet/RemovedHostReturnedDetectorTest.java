package io.nodegate.detect.fleet;

import io.nodegate.detect.Severity;
import io.nodegate.model.Tombstone;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.nodegate.detect.fleet.FleetFixtures.MID_A07;
import static io.nodegate.detect.fleet.FleetFixtures.UUID_A07;
import static io.nodegate.detect.fleet.FleetFixtures.fleet;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class RemovedHostReturnedDetectorTest {

    private static final Instant REMOVED = Instant.parse("2026-10-26T06:31:10Z");

    private static Tombstone tombstone(String name, String uuid, String mid) {
        return new Tombstone(name, "uid-" + name, uuid, mid, REMOVED, "ab12", "kim via kubeconfig user ops");
    }

    @Test
    void aRenamedHostWithATombstonedSystemUuidReturnsInAnyCluster() {
        var a = cluster().healthy(node("new-07").systemUuid(UUID_A07.toLowerCase()).machineId("reinstalled")).build();
        var b = cluster().healthy(node("b-gpu-07").systemUuid("11111111-2222-3333-4444-555555555555").machineId(MID_A07)).build();

        var findings = new RemovedHostReturnedDetector().detect(
                fleet(Map.of("cluster-a", List.of(tombstone("gpu-a07", UUID_A07, MID_A07))), "cluster-a", a, "cluster-b", b));

        assertThat(findings).hasSize(2).allSatisfy(f -> {
            assertThat(f.code()).isEqualTo("NG302");
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.hint()).contains("nodegate readmit gpu-a07");
        });
        assertThat(findings).anySatisfy(f -> {
            assertThat(f.nodes()).containsExactly("new-07");
            assertThat(f.evidence()).containsEntry("matchedBy", "systemUUID").containsEntry("cluster", "cluster-a");
            assertThat(f.message()).contains("gpu-a07 was removed from cluster-a at 2026-10-26T06:31:10Z")
                    .contains("registered again as new-07 in cluster-a");
        });
        assertThat(findings).anySatisfy(f -> assertThat(f.evidence()).containsEntry("matchedBy", "machineID")
                .containsEntry("node", "b-gpu-07"));
    }

    @Test
    void aNameCountsOnlyInTheClusterThatRemovedIt() {
        var a = cluster().healthy(node("worker-1")).build();
        var b = cluster().healthy(node("worker-1").systemUuid("77777777-0000-0000-0000-000000000007").machineId("b1")).build();
        // the removed worker-1 had another uid: this worker-1 is a new object under the old name
        var tomb = new Tombstone("worker-1", "uid-of-the-deleted-object", "12121212-0000-0000-0000-000000000000", "gone",
                REMOVED, null, null);

        var findings = new RemovedHostReturnedDetector().detect(
                fleet(Map.of("a", List.of(tomb)), "a", a, "b", b));

        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.evidence()).containsEntry("cluster", "a").containsEntry("matchedBy", "name");
            assertThat(f.message()).contains("under its old name");
        });
    }

    @Test
    void theRemovedObjectItselfAndZeroIdsNeverMatch() {
        // a dump read before the delete still holds the removed Node (same uid): that is not a return
        var a = cluster().healthy(node("gpu-a07").systemUuid(UUID_A07).machineId(MID_A07)).build();
        var stale = new Tombstone("gpu-a07", "uid-gpu-a07", UUID_A07, MID_A07, REMOVED, null, null);
        var zero = tombstone("lab-1", "00000000-0000-0000-0000-000000000000", "");
        var b = cluster().healthy(node("lab-2").systemUuid("00000000-0000-0000-0000-000000000000").machineId("x")).build();

        assertThat(new RemovedHostReturnedDetector().detect(
                fleet(Map.of("a", List.of(stale, zero)), "a", a, "b", b))).isEmpty();
        assertThat(zero.systemUuid()).isNull();
    }
}
