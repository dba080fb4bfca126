package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInventory;
import io.nodegate.model.NodeInventory.Host;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

/** NG114: a declared host whose Node has another name, other roles or another InternalIP; clones never drift. */
class InventoryDriftDetectorTest {

    private static final String UUID_A = "4c4c4544-0031-3510-8052-b4c04f4e3332";
    private static final String UUID_B = "4c4c4544-0031-3510-8052-b4c04f4e3333";
    private static final String MID_A = "9f2e1c0a7b8d4e6f8a1b2c3d4e5f6a7b";
    private static final String MID_B = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";
    /** The machineID the Talos kubelet image bakes in (siderolabs/talos#4759): every clone reports it. */
    private static final String IMAGE_MID = "ad432f2cb0c28bbcd1f87a20199237f9";

    private static List<Finding> drift(ClusterState s) {
        return new InventoryDriftDetector().detect(s, AuditSettings.DEFAULTS);
    }

    private static ClusterState with(ClusterState s, Host... hosts) {
        return s.toBuilder().inventory(new NodeInventory(List.of(hosts), List.of())).build();
    }

    @Test
    void aNodeAsDeclaredIsQuietAndWithoutAnInventoryNothingIsCompared() {
        var nodes = cluster().healthy(node("gpu-a01").systemUuid(UUID_A).machineId(MID_A).role("burnin")
                .internalIp("10.0.0.11")).build();
        assertThat(drift(nodes)).isEmpty();
        assertThat(drift(with(nodes, new Host("gpu-a01", UUID_A, MID_A, List.of("burnin"), "10.0.0.11")))).isEmpty();
    }

    @Test
    void otherRolesAndAnotherInternalIpAreReported() {
        var s = with(cluster().healthy(node("gpu-a01").systemUuid(UUID_A).machineId(MID_A).role("worker")
                        .internalIp("192.168.122.5")).build(),
                new Host("gpu-a01", UUID_A, MID_A, List.of("burnin"), "10.0.0.11"));
        assertThat(drift(s)).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG114");
            assertThat(f.nodes()).containsExactly("gpu-a01");
            assertThat(f.message()).contains("roles [worker], declared [burnin]",
                    "InternalIP [192.168.122.5], declared 10.0.0.11");
            assertThat(f.evidence()).containsEntry("drifted", List.of("roles", "internalIP"));
            assertThat(f.hint()).contains("--node-ip", "role labels");
        });
    }

    @Test
    void aHostBackUnderANewNameIsReportedWithWhatItLost() {
        // seed 000: gpu-a02 came back as new-01, same firmware and machine-id, no role
        var s = with(cluster().healthy(node("new-01").systemUuid(UUID_A).machineId(MID_A).internalIp("10.0.0.12"))
                        .build(),
                new Host("gpu-a02", UUID_A, MID_A, List.of("burnin"), "10.0.0.12"));
        assertThat(drift(s)).singleElement().satisfies(f -> {
            assertThat(f.nodes()).containsExactly("new-01");
            assertThat(f.message()).contains("Host gpu-a02", "name new-01, declared gpu-a02",
                    "roles [], declared [burnin]");
            assertThat(f.evidence()).containsEntry("host", "gpu-a02").containsEntry("drifted", List.of("name", "roles"));
        });
    }

    @Test
    void aSharedSystemUuidAloneNeverPlacesANodeSoNothingDrifts() {
        // hypervisor copies: one firmware UUID on two VMs; the host is declared by the systemUUID alone
        var s = with(cluster()
                        .healthy(node("vm-1").systemUuid(UUID_A).machineId(MID_A).role("worker"))
                        .healthy(node("vm-2").systemUuid(UUID_A).machineId(MID_B)).build(),
                new Host("vm-1", UUID_A, null, List.of("db"), "10.0.0.21"));
        assertThat(drift(s)).isEmpty();
    }

    @Test
    void anImageMachineIdAloneNeverPlacesANodeSoNothingDrifts() {
        var s = with(cluster()
                        .healthy(node("clone-7").systemUuid(UUID_A).machineId(IMAGE_MID))
                        .healthy(node("clone-8").systemUuid(UUID_B).machineId(IMAGE_MID)).build(),
                new Host("vm-1", null, IMAGE_MID, List.of("db"), "10.0.0.21"));
        assertThat(drift(s)).isEmpty();
    }

    @Test
    void aFullCloneUnderAnotherNameIsNotTheDeclaredHostsDrift() {
        var s = with(cluster()
                        .healthy(node("vm-1").systemUuid(UUID_A).machineId(MID_A))
                        .healthy(node("vm-2").systemUuid(UUID_A).machineId(MID_A)).build(),
                new Host("vm-1", UUID_A, MID_A, List.of(), null));
        assertThat(drift(s)).isEmpty();
    }

    @Test
    void twoNodesOfOtherNamesOnOneHostDecideNothing() {
        var s = with(cluster()
                        .healthy(node("new-01").systemUuid(UUID_A).machineId(MID_A))
                        .healthy(node("new-02").systemUuid(UUID_A).machineId(MID_A)).build(),
                new Host("gpu-a02", UUID_A, MID_A, List.of(), null));
        assertThat(drift(s)).isEmpty();
    }

    @Test
    void auditAndTheWatchBothRunIt() {
        assertThat(Detectors.in(Scope.AUDIT, Detector.class)).anyMatch(d -> d instanceof InventoryDriftDetector);
        assertThat(Detectors.in(Scope.WATCH, Detector.class)).anyMatch(d -> d instanceof InventoryDriftDetector);
    }
}
