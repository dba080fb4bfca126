package io.nodegate.detect.fleet;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.detect.node.SameHostTwoNamesDetector;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.Tombstone;
import io.nodegate.testing.NodeFixtures;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.nodegate.detect.fleet.FleetFixtures.fleet;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clusters built from one image share /etc/machine-id. The shape is siderolabs/talos#4759 ("Node Machine ID is the
 * same across all nodes"): `kubectl get nodes -o custom-columns=NAME:.metadata.name,MACHINE-ID:.status.nodeInfo.machineID`
 * lists talos-192-168-32-2 .. -5, every one with machineID ad432f2cb0c28bbcd1f87a20199237f9 (the machine-id baked
 * into the kubelet image, the same across kubelet versions), while "kubernetes still works because the system uuid
 * is still unique". Cluster talos-a is that cluster; talos-b is a second cluster of two Nodes on the same kubelet
 * image. Before, `fleet` joined all six through the machineID into one host with "NG301 one host is Ready in 2
 * clusters".
 */
class SharedMachineIdFleetTest {

    static final String TALOS_MID = "ad432f2cb0c28bbcd1f87a20199237f9";

    /** QEMU-style firmware UUIDs, one per VM (the hosts are 192.168.32.x QEMU guests). */
    static String uuid(int n) {
        return String.format("1f5e3a2c-7b1d-4c8e-9a6f-00000000%04d", n);
    }

    static ClusterState talosA(NodeFixtures.NodeBuilder... extra) {
        var c = cluster();
        for (int i = 2; i <= 5; i++) {
            c.healthy(node("talos-192-168-32-" + i).systemUuid(uuid(i)).machineId(TALOS_MID));
        }
        for (var n : extra) {
            c.healthy(n);
        }
        return c.build();
    }

    static ClusterState talosB() {
        return cluster()
                .healthy(node("talos-10-5-0-2").systemUuid(uuid(102)).machineId(TALOS_MID))
                .healthy(node("talos-10-5-0-3").systemUuid(uuid(103)).machineId(TALOS_MID))
                .build();
    }

    @Test
    void oneImageInTwoClustersIsSixHostsAndTheFleetSaysWhy() {
        Fleet fleet = fleet("talos-a", talosA(), "talos-b", talosB());
        FleetReport report = FleetReport.of(fleet, Detectors.in(Scope.FLEET, FleetDetector.class), List.of());

        assertThat(report.hosts()).as("no host seen as more than one Node").isEmpty();
        assertThat(report.findings()).isEmpty();
        assertThat(fleet.ledger().hosts()).hasSize(6);
        assertThat(report.notes()).singleElement().asString()
                .contains("machineID " + TALOS_MID + " is reported with 6 different systemUUIDs (in talos-a, talos-b)",
                        "an image's or cloned VM template's /etc/machine-id, not a host's",
                        "no Nodes are matched as one host by it");
    }

    @Test
    void auditOnTheSameClusterAgreesNoHostIsRegisteredTwice() {
        assertThat(new SameHostTwoNamesDetector().detect(talosA(), AuditSettings.DEFAULTS)).isEmpty();
    }

    @Test
    void aRemovedTalosNodeIsNotReturnedByEveryNewNodeOfTheImage() {
        Instant removed = NodeFixtures.NOW.minusSeconds(86_400);
        // talos-a removed talos-192-168-32-5; a new VM from the same image joined talos-a, and talos-b grew too
        Tombstone t = new Tombstone("talos-192-168-32-5", "uid-5", uuid(5), TALOS_MID, removed, "ab12", "ops");
        ClusterState a = cluster()
                .healthy(node("talos-192-168-32-2").systemUuid(uuid(2)).machineId(TALOS_MID))
                .healthy(node("talos-192-168-32-6").systemUuid(uuid(6)).machineId(TALOS_MID).created(removed.plusSeconds(600)))
                .build();
        ClusterState b = cluster()
                .healthy(node("talos-10-5-0-4").systemUuid(uuid(104)).machineId(TALOS_MID).created(removed.plusSeconds(900)))
                .build();

        assertThat(new RemovedHostReturnedDetector().detect(fleet(Map.of("talos-a", List.of(t)), "talos-a", a,
                "talos-b", b))).isEmpty();
        // the same in one cluster (audit, watch): its own Nodes against its own tombstones
        assertThat(new RemovedHostReturnedDetector().detect(a.toBuilder().tombstones(
                Collected.of(List.of(t))).build(), AuditSettings.DEFAULTS)).isEmpty();

        // the removed VM itself, back under a new name: its firmware UUID still finds it, critical
        ClusterState back = cluster()
                .healthy(node("talos-192-168-32-2").systemUuid(uuid(2)).machineId(TALOS_MID))
                .healthy(node("talos-192-168-32-9").systemUuid(uuid(5)).machineId(TALOS_MID).created(removed.plusSeconds(600)))
                .build();
        List<Finding> found = new RemovedHostReturnedDetector().detect(fleet(Map.of("talos-a", List.of(t)),
                "talos-a", back));
        assertThat(found).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.nodes()).containsExactly("talos-192-168-32-9");
            assertThat(f.evidence()).containsEntry("matchedBy", Tombstone.BY_SYSTEM_UUID);
        });
    }

    @Test
    void aTombstoneWithoutAFirmwareUuidIsNotMatchedByAnImagesMachineIdEither() {
        // the removed host's board reported a zero UUID: its machine-id is all the tombstone has, and the fleet
        // sees that machine-id under six firmware UUIDs
        Instant removed = NodeFixtures.NOW.minusSeconds(86_400);
        Tombstone t = new Tombstone("talos-192-168-32-7", "uid-7", "00000000-0000-0000-0000-000000000000", TALOS_MID,
                removed, "ab12", "ops");
        // a VM of the image that joined after the removal
        ClusterState a = talosA(node("talos-192-168-32-8").systemUuid(uuid(8)).machineId(TALOS_MID)
                .created(removed.plusSeconds(600)));
        assertThat(new RemovedHostReturnedDetector().detect(fleet(Map.of("talos-a", List.of(t)),
                "talos-a", a, "talos-b", talosB()))).isEmpty();
    }
}
