package io.nodegate.detect.fleet;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.model.Collected;
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

/**
 * NG302 over the model: a return is a Node created after the removal; the destination the removal named is the
 * expected arrival; critical only back in the removing cluster with no ID contradicting; hints advise no destructive
 * step in any other cluster.
 */
class RemovedHostReturnedDetectorTest {

    private static final Instant REMOVED = Instant.parse("2026-10-26T06:31:10Z");
    private static final Instant AFTER = REMOVED.plusSeconds(2 * 86_400);

    private static Tombstone tombstone(String name, String uuid, String mid) {
        return new Tombstone(name, "uid-" + name, uuid, mid, REMOVED, "ab12", "kim via kubeconfig user ops");
    }

    private static List<Finding> detect(Map<String, List<Tombstone>> tombstones, Object... clusters) {
        return new RemovedHostReturnedDetector().detect(fleet(tombstones, clusters));
    }

    /** The rule of the issue: hints advise no destructive step in a cluster whose quarantine was not broken. */
    private static void noDestructiveHintOutside(List<Finding> findings, String removingCluster) {
        for (Finding f : findings) {
            if (!removingCluster.equals(f.evidence().get("cluster"))) {
                assertThat(f.hint()).as(f.message()).doesNotContainIgnoringCase("cordon")
                        .doesNotContain("rke2-uninstall").doesNotContain("kubectl delete");
            }
        }
    }

    @Test
    void aRenamedHostBackInTheClusterThatRemovedItIsCritical() {
        var a = cluster().healthy(node("new-07").systemUuid(UUID_A07.toLowerCase()).machineId(MID_A07)
                .created(AFTER)).build();

        var findings = detect(Map.of("cluster-a", List.of(tombstone("gpu-a07", UUID_A07, MID_A07))), "cluster-a", a,
                "cluster-b", cluster().healthy(node("b-ctl-1")).build());

        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG302");
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.nodes()).containsExactly("new-07");
            assertThat(f.evidence()).containsEntry("matchedBy", "systemUUID").containsEntry("cluster", "cluster-a")
                    .containsEntry("createdAfterRemovalSeconds", 172_800L);
            assertThat(f.message()).contains("gpu-a07 was removed from cluster-a at 2026-10-26T06:31:10Z")
                    .contains("registered again as new-07 in cluster-a")
                    .contains("created 2026-10-28T06:31:10Z (2 d 0 h after the removal)");
            assertThat(f.hint()).contains("kubectl cordon new-07", "nodegate readmit gpu-a07");
        });
    }

    @Test
    void theHandOverReplayIsNoNg302TheNodeThereExistedBeforeTheRemoval() {
        // the hand-over's field case: A removed its stale Node for a host that already served B; B's Node was created
        // 12:24:10Z, two hours BEFORE the removal. It was reported critical with a hint to run rke2-uninstall.sh on B.
        Instant removal = Instant.parse("2026-10-24T14:24:13Z");
        var tomb = new Tombstone("gpu-a08", "uid-gpu-a08", UUID_A07, MID_A07, removal, "ab12", "kim");
        var a = cluster().healthy(node("gpu-a01")).build();
        var b = cluster().healthy(node("b-gpu-08").systemUuid(UUID_A07).machineId(MID_A07)
                .created(Instant.parse("2026-10-24T12:24:10Z"))).build();

        assertThat(detect(Map.of("cluster-a", List.of(tomb)), "cluster-a", a, "cluster-b", b)).isEmpty();

        // recorded as handed over: B's Node is the expected arrival, said at info level and nothing to do
        var handed = new Tombstone("gpu-a08", "uid-gpu-a08", UUID_A07, MID_A07, removal, "ab12", "kim", "cluster-b",
                List.of(), List.of());
        assertThat(detect(Map.of("cluster-a", List.of(handed)), "cluster-a", a, "cluster-b", b)).singleElement()
                .satisfies(f -> {
                    assertThat(f.severity()).isEqualTo(Severity.INFO);
                    assertThat(f.message()).contains("handed to cluster-b", "is b-gpu-08 there",
                            "the expected arrival");
                    assertThat(f.hint()).startsWith("Nothing to do");
                    assertThat(f.evidence()).containsEntry("handedTo", "cluster-b");
                });
    }

    @Test
    void theNamedDestinationIsInfoEvenForANodeCreatedAfterTheRemoval() {
        var handed = new Tombstone("gpu-a09", "uid-gpu-a09", UUID_A07, MID_A07, REMOVED, null, "kim", "cluster-b",
                List.of(), List.of());
        var b = cluster().healthy(node("b-gpu-09").systemUuid(UUID_A07).machineId(MID_A07).created(AFTER)).build();

        var findings = detect(Map.of("cluster-a", List.of(handed)), "cluster-a", cluster().build(), "cluster-b", b);

        assertThat(findings).singleElement().satisfies(f -> assertThat(f.severity()).isEqualTo(Severity.INFO));
        noDestructiveHintOutside(findings, "cluster-a");
    }

    @Test
    void anotherClusterThanTheRemovingOneIsAWarningWithANonDestructiveHint() {
        var c = cluster().healthy(node("c-gpu-07").systemUuid(UUID_A07).machineId(MID_A07).created(AFTER)).build();

        var findings = detect(Map.of("cluster-a", List.of(tombstone("gpu-a07", UUID_A07, MID_A07))),
                "cluster-a", cluster().build(), "cluster-c", c);

        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.message()).contains("cluster-c is not recorded as its destination");
            assertThat(f.hint()).contains("nodegate remove --handed-to cluster-c", "ask cluster-c's owners");
        });
        noDestructiveHintOutside(findings, "cluster-a");
    }

    @Test
    void onlyTheFirmwareUuidMatchingIsAWarning() {
        // reinstalled (new machine-id, same firmware UUID) or a clone with a copied UUID: the ledger cannot tell
        var reinstalled = cluster().healthy(node("new-07").systemUuid(UUID_A07).machineId("0d6c1e0f4a4b4c3d9e8f7a6b5c4d3e2f")
                .created(AFTER)).build();

        assertThat(detect(Map.of("a", List.of(tombstone("gpu-a07", UUID_A07, MID_A07))), "a", reinstalled))
                .singleElement().satisfies(f -> {
                    assertThat(f.severity()).isEqualTo(Severity.WARNING);
                    assertThat(f.message()).contains("the host's other ID differs");
                    assertThat(f.evidence()).containsEntry("otherIdDiffers", true);
                });
    }

    @Test
    void aCloneOfTheRemovedHostsImageIsNotTheRemovedHost() {
        // cloned from the removed host's image without a new /etc/machine-id: its own firmware UUID, the same
        // machine-id, which two firmware UUIDs now carry: an image's, not the removed host's
        var imageClone = cluster().healthy(node("vm-clone").systemUuid("42000000-aaaa-bbbb-cccc-000000000099")
                .machineId(MID_A07).created(AFTER)).build();

        assertThat(detect(Map.of("a", List.of(tombstone("gpu-a07", UUID_A07, MID_A07))), "a", imageClone)).isEmpty();
    }

    @Test
    void aNodeThatSharedTheIdentityAtRemovalIsNeverCriticalAndNothingWhileItIsTheSameObject() {
        // vm-twin was a live Node with the removed host's systemUUID when it was removed (cloned VMs)
        var tomb = new Tombstone("vm-1", "uid-vm-1", UUID_A07, "aaaa1111aaaa1111", REMOVED, null, "kim", null,
                List.of("vm-twin"), List.of());
        var sameObject = cluster().healthy(node("vm-twin").systemUuid(UUID_A07).machineId("bbbb2222bbbb2222")
                .created(REMOVED.minusSeconds(86_400))).build();
        assertThat(detect(Map.of("a", List.of(tomb)), "a", sameObject)).isEmpty();

        // its Node was deleted and came back after the removal: the quarantine let it in, NG302 says what it cannot tell
        var recreated = cluster().healthy(node("vm-twin").systemUuid(UUID_A07).machineId("bbbb2222bbbb2222")
                .created(AFTER)).build();
        assertThat(detect(Map.of("a", List.of(tomb)), "a", recreated)).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.evidence()).containsEntry("existedAtRemoval", true);
            assertThat(f.message()).contains("which existed then and shares systemUUID");
        });
    }

    @Test
    void withoutACreationTimeItCannotBeToldAndSaysSo() {
        var a = cluster().healthy(node("new-07").systemUuid(UUID_A07).machineId(MID_A07).created(null)).build();

        assertThat(detect(Map.of("a", List.of(tombstone("gpu-a07", UUID_A07, MID_A07))), "a", a)).singleElement()
                .satisfies(f -> {
                    assertThat(f.severity()).isEqualTo(Severity.WARNING);
                    assertThat(f.message()).contains("cannot be told whether this Node existed before the removal");
                });
    }

    @Test
    void aNameCountsOnlyInTheClusterThatRemovedIt() {
        var a = cluster().healthy(node("worker-1").created(AFTER)).build();
        var b = cluster().healthy(node("worker-1").systemUuid("77777777-0000-0000-0000-000000000007").machineId("b1")
                .created(AFTER)).build();
        // the removed worker-1 had another uid: this worker-1 is a new object under the old name
        var tomb = new Tombstone("worker-1", "uid-of-the-deleted-object", "12121212-0000-0000-0000-000000000000", "gone",
                REMOVED, null, null);

        var findings = detect(Map.of("a", List.of(tomb)), "a", a, "b", b);

        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.evidence()).containsEntry("cluster", "a").containsEntry("matchedBy", "name");
            assertThat(f.message()).contains("under its old name");
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        });
    }

    @Test
    void theRemovedObjectItselfAndZeroIdsNeverMatch() {
        // a dump read before the delete still holds the removed Node (same uid): that is not a return
        var a = cluster().healthy(node("gpu-a07").systemUuid(UUID_A07).machineId(MID_A07).created(AFTER)).build();
        var stale = new Tombstone("gpu-a07", "uid-gpu-a07", UUID_A07, MID_A07, REMOVED, null, null);
        var zero = tombstone("lab-1", "00000000-0000-0000-0000-000000000000", "");
        var b = cluster().healthy(node("lab-2").systemUuid("00000000-0000-0000-0000-000000000000").machineId("x")
                .created(AFTER)).build();

        assertThat(detect(Map.of("a", List.of(stale, zero)), "a", a, "b", b)).isEmpty();
        assertThat(zero.systemUuid()).isNull();
    }

    @Test
    void inOneClusterTheSameTimeRuleHolds() {
        // audit and the watch: the cluster's Nodes against its own tombstones
        var state = cluster()
                .healthy(node("twin").systemUuid(UUID_A07).machineId(MID_A07).created(REMOVED.minusSeconds(60)))
                .healthy(node("back").systemUuid(UUID_A07).machineId(MID_A07).created(REMOVED.plusSeconds(600)))
                .build();
        var withTombstones = state.toBuilder().bmc(null)
                .tombstones(Collected.of(List.of(tombstone("gpu-a07", UUID_A07, MID_A07)))).build();

        assertThat(new RemovedHostReturnedDetector().detect(withTombstones, AuditSettings.DEFAULTS))
                .singleElement().satisfies(f -> {
                    assertThat(f.nodes()).containsExactly("back");
                    assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
                    assertThat(f.message()).contains("(10 min after the removal)");
                });
    }
}
