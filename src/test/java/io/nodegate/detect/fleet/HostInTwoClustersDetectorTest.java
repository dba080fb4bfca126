package io.nodegate.detect.fleet;

import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static io.nodegate.detect.fleet.FleetFixtures.MID_A07;
import static io.nodegate.detect.fleet.FleetFixtures.UUID_A07;
import static io.nodegate.detect.fleet.FleetFixtures.fleet;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class HostInTwoClustersDetectorTest {

    private static final Instant LEASE_STOP = Instant.parse("2026-10-22T05:23:42.676430Z");
    private static final Instant CREATED_IN_B = Instant.parse("2026-10-22T05:23:45Z");
    private static final Instant NOW = Instant.parse("2026-10-22T06:10:00Z");

    private static List<Finding> detect(Fleet fleet) {
        return new HostInTwoClustersDetector().detect(fleet);
    }

    /** Seed 000: gpu-a07's Lease stopped in A at 05:23:42Z, and the host registered in B as b-gpu-07 3 s later. */
    @Test
    void theSeedsDepartureIsCriticalAndToldInNumbers() {
        var a = cluster().now(NOW)
                .node(node("gpu-a07").systemUuid(UUID_A07).machineId(MID_A07).bootId("boot-d9")
                        .unknownSince(Instant.parse("2026-10-22T05:23:24Z"), Instant.parse("2026-10-22T05:24:35Z")))
                .lease("gpu-a07", LEASE_STOP)
                .healthy(node("keep-1"))
                .build();
        var b = cluster().now(NOW)
                .healthy(node("b-gpu-07").created(CREATED_IN_B).systemUuid(UUID_A07.toLowerCase()).machineId(MID_A07)
                        .bootId("boot-d9"))
                .healthy(node("b-ctl-1"))
                .build();

        assertThat(detect(fleet("cluster-a", a, "cluster-b", b))).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG301");
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.nodes()).containsExactly("gpu-a07", "b-gpu-07");
            assertThat(f.message()).startsWith("gpu-a07 in cluster-a: Unknown, Lease stopped 2026-10-22T05:23:42Z; "
                    + "the same host is b-gpu-07 in cluster-b, created 05:23:45Z (3 s later), Ready")
                    .contains("Same bootID on both sides: the agent was restarted against cluster-b");
            assertThat(f.evidence()).containsEntry("departedFrom", "cluster-a").containsEntry("nowIn", "cluster-b")
                    .containsEntry("leaseStopped", "2026-10-22T05:23:42.676430Z")
                    .containsEntry("createdThere", "2026-10-22T05:23:45Z")
                    .containsEntry("gapSeconds", 3L)
                    .containsEntry("match", Host.BOTH);
        });
    }

    @Test
    void aClonedVmPairReadyOnBothSidesIsAWarning() {
        String uuid = "42000000-aaaa-bbbb-cccc-000000000001";
        var a = cluster().healthy(node("vm-1").systemUuid(uuid).machineId("aaaa1111")).build();
        var b = cluster().healthy(node("vm-2").systemUuid(uuid).machineId("bbbb2222")).build();

        assertThat(detect(fleet("lab-a", a, "lab-b", b))).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.message()).contains("Ready in 2 clusters").contains("cloned VMs");
            assertThat(f.hint()).contains("distinct firmware UUIDs");
        });
    }

    @Test
    void aDepartureTiedOnlyByTheFirmwareUuidIsAWarningNotCritical() {
        String uuid = "42000000-aaaa-bbbb-cccc-000000000002";
        var a = cluster().node(node("vm-1").systemUuid(uuid).machineId("aaaa1111")
                .unknownSince(NOW.minusSeconds(600), NOW.minusSeconds(550))).lease("vm-1", NOW.minusSeconds(610)).build();
        var b = cluster().healthy(node("vm-2").systemUuid(uuid).machineId("bbbb2222")).build();

        assertThat(detect(fleet("lab-a", a, "lab-b", b))).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.message()).contains("only the systemUUID matches (machineIDs differ)");
        });
    }

    @Test
    void aMachineIdSharedUnderDifferentFirmwareUuidsIsNoDeparture() {
        // VMs cloned from one image without a new /etc/machine-id share it under distinct firmware UUIDs: two
        // machines, so no NG301 at all (the ledger names the machineID in a note instead)
        var a = cluster().node(node("vm-1").systemUuid("42000000-aaaa-bbbb-cccc-000000000003").machineId(MID_A07)
                .unknownSince(NOW.minusSeconds(600), NOW.minusSeconds(550))).lease("vm-1", NOW.minusSeconds(610)).build();
        var b = cluster().healthy(node("vm-2").systemUuid("42000000-aaaa-bbbb-cccc-000000000004").machineId(MID_A07))
                .build();

        assertThat(detect(fleet("lab-a", a, "lab-b", b))).isEmpty();
    }

    @Test
    void aDepartureTiedByTheFirmwareUuidIsStillCriticalWhenBothSidesCarryTheImagesMachineId() {
        // the image's machine-id is on every Node of both clusters; gpu-a07's own firmware UUID still moved
        var a = cluster().node(node("gpu-a07").systemUuid(UUID_A07).machineId(MID_A07)
                        .unknownSince(NOW.minusSeconds(600), NOW.minusSeconds(550))).lease("gpu-a07", NOW.minusSeconds(610))
                .healthy(node("gpu-a01").systemUuid("4c4c4544-0037-3010-8047-b4c04f443001").machineId(MID_A07))
                .build();
        var b = cluster().healthy(node("b-gpu-07").systemUuid(UUID_A07.toLowerCase()).machineId(MID_A07))
                .healthy(node("b-gpu-01").systemUuid("4c4c4544-0037-3010-8047-b4c04f44b001").machineId(MID_A07))
                .build();

        assertThat(detect(fleet("cluster-a", a, "cluster-b", b))).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.nodes()).containsExactly("gpu-a07", "b-gpu-07");
            assertThat(f.evidence()).containsEntry("match", Host.SYSTEM_UUID);
        });
    }

    @Test
    void oneIdMatchingWithTheOtherUnknownOnOneSideIsStillCritical() {
        // nothing contradicts: one side reports no machineID (or a zero one), the firmware UUID ties them
        var a = cluster().node(node("gpu-a07").systemUuid(UUID_A07).machineId("")
                .unknownSince(NOW.minusSeconds(600), NOW.minusSeconds(550))).lease("gpu-a07", NOW.minusSeconds(610))
                .build();
        var b = cluster().healthy(node("b-gpu-07").systemUuid(UUID_A07.toLowerCase() + "  ").machineId(MID_A07)).build();

        assertThat(detect(fleet("cluster-a", a, "cluster-b", b))).singleElement()
                .satisfies(f -> assertThat(f.severity()).isEqualTo(Severity.CRITICAL));
    }

    @Test
    void readyNowhereIsOnlyInfo() {
        var a = cluster().node(node("old-a").systemUuid(UUID_A07).machineId(MID_A07)
                .unknownSince(NOW.minusSeconds(86_400), NOW.minusSeconds(86_350))).build();
        var b = cluster().node(node("old-b").systemUuid(UUID_A07).machineId(MID_A07)
                .ready("False", "KubeletNotReady", "PLEG is not healthy", NOW, NOW)).build();

        assertThat(detect(fleet("a", a, "b", b))).singleElement()
                .satisfies(f -> assertThat(f.severity()).isEqualTo(Severity.INFO));
    }

    @Test
    void allZeroUuidsOnBothSidesAreNotOneHost() {
        String zero = "00000000-0000-0000-0000-000000000000";
        var a = cluster().node(node("n1").systemUuid(zero).machineId("")
                .unknownSince(NOW.minusSeconds(600), NOW.minusSeconds(550))).build();
        var b = cluster().healthy(node("n2").systemUuid(zero).machineId(null)).build();

        assertThat(detect(fleet("a", a, "b", b))).isEmpty();
    }

    @Test
    void oneHostTwiceInOneClusterIsNg110sBusinessNotNg301() {
        var a = cluster()
                .healthy(node("gpu-a02").systemUuid(UUID_A07).machineId(MID_A07))
                .healthy(node("new-01").systemUuid(UUID_A07).machineId(MID_A07))
                .build();
        var b = cluster().healthy(node("other")).build();

        assertThat(detect(fleet("a", a, "b", b))).isEmpty();
        assertThat(fleet("a", a, "b", b).ledger().repeated()).hasSize(1);
    }
}
