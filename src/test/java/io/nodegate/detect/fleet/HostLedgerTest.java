package io.nodegate.detect.fleet;

import io.nodegate.model.ClusterState;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.nodegate.detect.fleet.FleetFixtures.fleet;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The identity rule: machineID or systemUUID (case-insensitive), never a name, never an empty or all-zero ID, never a
 * machineID that several systemUUIDs report (an image's).
 */
class HostLedgerTest {

    private static List<List<String>> repeated(ClusterState a, ClusterState b) {
        return fleet("a", a, "b", b).ledger().repeated().stream()
                .map(h -> h.appearances().stream().map(HostAppearance::label).toList()).toList();
    }

    @Test
    void bothIdsMatchIsOneHostWhateverTheNames() {
        var a = cluster().healthy(node("gpu-a07").systemUuid("AAAA0000-1111-2222-3333-444455556666").machineId("m07")).build();
        var b = cluster().healthy(node("b-gpu-07").systemUuid("aaaa0000-1111-2222-3333-444455556666").machineId("m07")).build();

        var hosts = fleet("a", a, "b", b).ledger().repeated();

        assertThat(hosts).singleElement().satisfies(h -> {
            assertThat(h.match()).isEqualTo(Host.BOTH);
            assertThat(h.clusters()).containsExactly("a", "b");
            assertThat(h.systemUuids()).containsExactly("aaaa0000-1111-2222-3333-444455556666");
        });
    }

    @Test
    void aMachineIdUnderTwoFirmwareUuidsIsAnImageAndJoinsNothing() {
        var a = cluster().healthy(node("n1").systemUuid("11111111-1111-1111-1111-111111111111").machineId("same")).build();
        var b = cluster().healthy(node("n2").systemUuid("22222222-2222-2222-2222-222222222222").machineId("same")).build();

        var ledger = fleet("a", a, "b", b).ledger();
        assertThat(ledger.repeated()).isEmpty();
        assertThat(ledger.shared().images()).singleElement().satisfies(i -> {
            assertThat(i.machineId()).isEqualTo("same");
            assertThat(i.systemUuids()).isEqualTo(2);
            assertThat(i.where()).containsExactly("a", "b");
        });
    }

    @Test
    void machineIdAloneJoinsWhenTheFirmwareUuidIsUnknownOnOneSide() {
        var a = cluster().healthy(node("n1").systemUuid("11111111-1111-1111-1111-111111111111").machineId("same")).build();
        var b = cluster().healthy(node("n2").systemUuid("00000000-0000-0000-0000-000000000000").machineId("same")).build();

        assertThat(fleet("a", a, "b", b).ledger().repeated()).singleElement()
                .satisfies(h -> assertThat(h.match()).isEqualTo(Host.MACHINE_ID));
    }

    @Test
    void clonedVmsShareOnlyTheSystemUuid() {
        var a = cluster().healthy(node("vm-1").systemUuid("42000000-aaaa-bbbb-cccc-000000000001").machineId("aaa1")).build();
        var b = cluster().healthy(node("vm-2").systemUuid("42000000-aaaa-bbbb-cccc-000000000001").machineId("bbb2")).build();

        assertThat(fleet("a", a, "b", b).ledger().repeated()).singleElement().satisfies(h -> {
            assertThat(h.match()).isEqualTo(Host.SYSTEM_UUID);
            assertThat(h.idsDisagree()).isTrue();
        });
    }

    @Test
    void allZeroAndEmptyIdsNeverJoinHosts() {
        var a = cluster()
                .healthy(node("zero-1").systemUuid("00000000-0000-0000-0000-000000000000").machineId("m-1"))
                .healthy(node("empty-1").systemUuid("").machineId(""))
                .build();
        var b = cluster()
                .healthy(node("zero-2").systemUuid("00000000-0000-0000-0000-000000000000").machineId("m-2"))
                .healthy(node("empty-2").systemUuid(null).machineId("0"))
                .build();

        assertThat(repeated(a, b)).isEmpty();
        assertThat(fleet("a", a, "b", b).ledger().hosts()).hasSize(4);
    }

    @Test
    void theSameNameInTwoClustersIsNotTheSameHost() {
        var a = cluster().healthy(node("worker-1")).build();
        var b = cluster().healthy(node("worker-1").systemUuid("99999999-9999-9999-9999-999999999999").machineId("other")).build();

        assertThat(repeated(a, b)).isEmpty();
    }

    @Test
    void matchesAreTransitive() {
        var a = cluster().healthy(node("x").systemUuid("11111111-0000-0000-0000-000000000001").machineId("mx")).build();
        var b = cluster()
                .healthy(node("y").systemUuid("11111111-0000-0000-0000-000000000001").machineId("my"))
                .healthy(node("z").systemUuid("").machineId("my"))
                .build();

        assertThat(repeated(a, b)).singleElement()
                .satisfies(labels -> assertThat(labels).hasSize(3).contains("x in a", "y in b", "z in b"));
    }

    @Test
    void noChainRunsThroughAnImagesMachineId() {
        // y and z share "my" under two firmware UUIDs: an image's machine-id, so z is not x's host
        var a = cluster().healthy(node("x").systemUuid("11111111-0000-0000-0000-000000000001").machineId("mx")).build();
        var b = cluster()
                .healthy(node("y").systemUuid("11111111-0000-0000-0000-000000000001").machineId("my"))
                .healthy(node("z").systemUuid("33333333-0000-0000-0000-000000000003").machineId("my"))
                .build();

        assertThat(repeated(a, b)).singleElement()
                .satisfies(labels -> assertThat(labels).containsExactlyInAnyOrder("x in a", "y in b"));
    }
}
