package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInventory;
import io.nodegate.model.NodeInventory.Host;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

/** NG112 and NG113 against a declared inventory, including the cloned-VM rules of docs/findings.md. */
class InventoryDetectorsTest {

    private static final String UUID_A = "4c4c4544-0031-3510-8052-b4c04f4e3332";
    private static final String UUID_B = "4c4c4544-0031-3510-8052-b4c04f4e3333";
    private static final String MID_A = "9f2e1c0a7b8d4e6f8a1b2c3d4e5f6a7b";
    private static final String MID_B = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";
    /** The machineID the Talos kubelet image bakes in (siderolabs/talos#4759): every clone reports it. */
    private static final String IMAGE_MID = "ad432f2cb0c28bbcd1f87a20199237f9";

    private static List<Finding> notIn(ClusterState s) {
        return new NotInInventoryDetector().detect(s, AuditSettings.DEFAULTS);
    }

    private static List<Finding> missing(ClusterState s) {
        return new InventoryHostMissingDetector().detect(s, AuditSettings.DEFAULTS);
    }

    private static ClusterState with(ClusterState s, Host... hosts) {
        return s.toBuilder().inventory(new NodeInventory(List.of(hosts), List.of())).build();
    }

    @Test
    void withoutAnInventoryNothingIsCompared() {
        var s = cluster().healthy(node("new-01").systemUuid(UUID_A).machineId(MID_A)).build();
        assertThat(notIn(s)).isEmpty();
        assertThat(missing(s)).isEmpty();
    }

    @Test
    void aDeclaredNodeIsQuietAndAnUnannouncedOneIsReported() {
        var s = with(cluster()
                        .healthy(node("gpu-a01").systemUuid(UUID_A).machineId(MID_A))
                        .healthy(node("new-01").systemUuid(UUID_B).machineId(MID_B)).build(),
                new Host("gpu-a01", UUID_A, MID_A, List.of(), null));
        assertThat(notIn(s)).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG112");
            assertThat(f.nodes()).containsExactly("new-01");
            assertThat(f.message()).contains("no declared host has systemUUID " + UUID_B);
            assertThat(f.evidence()).containsEntry("standing", "UNDECLARED");
        });
        assertThat(missing(s)).isEmpty();
    }

    @Test
    void aDeclaredHostUnderAnotherNameIsReportedAndNotMissing() {
        // seed 000: gpu-a02 came back as new-01, same firmware and machine-id
        var s = with(cluster().healthy(node("new-01").systemUuid(UUID_A).machineId(MID_A)).build(),
                new Host("gpu-a02", UUID_A, MID_A, List.of("burnin"), "10.0.0.12"));
        assertThat(notIn(s)).singleElement().satisfies(f -> {
            assertThat(f.evidence()).containsEntry("standing", "OTHER_NAME").containsEntry("declaredHost", "gpu-a02");
            assertThat(f.hint()).contains("nodegate accept new-01");
        });
        assertThat(missing(s)).isEmpty();
    }

    @Test
    void aDeclaredHostWithoutANodeIsMissing() {
        var s = with(cluster().healthy(node("gpu-a01").systemUuid(UUID_A).machineId(MID_A)).build(),
                new Host("gpu-a01", UUID_A, MID_A, List.of(), null),
                new Host("gpu-a07", UUID_B, null, List.of("burnin"), "10.0.0.17"));
        assertThat(missing(s)).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG113");
            assertThat(f.nodes()).containsExactly("gpu-a07");
            assertThat(f.message()).contains("systemUUID " + UUID_B, "10.0.0.17");
        });
    }

    @Test
    void anImageMachineIdAloneNeverPlacesANode() {
        // two clones of one template: distinct firmware UUIDs, the image's machine-id
        var s = with(cluster()
                        .healthy(node("vm-1").systemUuid(UUID_A).machineId(IMAGE_MID))
                        .healthy(node("vm-2").systemUuid(UUID_B).machineId(IMAGE_MID)).build(),
                new Host("vm-1", null, IMAGE_MID, List.of(), null),
                new Host("vm-2", UUID_B, IMAGE_MID, List.of(), null));
        assertThat(notIn(s)).singleElement().satisfies(f -> {
            assertThat(f.nodes()).containsExactly("vm-1");
            assertThat(f.evidence()).containsEntry("standing", "SHARED_ONLY");
            assertThat(f.message()).contains("a shared ID places no host");
        });
    }

    @Test
    void aSharedSystemUuidAloneNeverPlacesANodeButBothIdsAndTheNameDo() {
        // hypervisor copies: one firmware UUID on two VMs; the machine-ids differ
        var s = with(cluster()
                        .healthy(node("vm-1").systemUuid(UUID_A).machineId(MID_A))
                        .healthy(node("vm-2").systemUuid(UUID_A).machineId(MID_B)).build(),
                new Host("vm-1", UUID_A, null, List.of(), null),
                new Host("vm-2", UUID_A, MID_B, List.of(), null));
        assertThat(notIn(s)).singleElement().satisfies(f -> {
            assertThat(f.nodes()).containsExactly("vm-1");
            assertThat(f.evidence()).containsEntry("standing", "SHARED_ONLY");
        });
    }

    @Test
    void fullClonesAreToldApartByTheirDeclaredNames() {
        var s = with(cluster()
                        .healthy(node("vm-1").systemUuid(UUID_A).machineId(MID_A))
                        .healthy(node("vm-2").systemUuid(UUID_A).machineId(MID_A)).build(),
                new Host("vm-1", UUID_A, MID_A, List.of(), null));
        assertThat(notIn(s)).singleElement().satisfies(f -> {
            assertThat(f.nodes()).containsExactly("vm-2");
            assertThat(f.evidence()).containsEntry("standing", "OTHER_NAME");
        });
    }

    @Test
    void aHostDeclaredByBothIdsIsNotPlacedWhenOneDiffers() {
        var s = with(cluster().healthy(node("gpu-a01").systemUuid(UUID_A).machineId(MID_B)).build(),
                new Host("gpu-a01", UUID_A, MID_A, List.of(), null));
        assertThat(notIn(s)).singleElement().satisfies(f ->
                assertThat(f.evidence()).containsEntry("standing", "UNDECLARED"));
        // its Node has its name: the host is there, under a changed machine-id, so it is not "missing"
        assertThat(missing(s)).isEmpty();
    }
}
