package io.nodegate.detect.bmc;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Tombstone;
import io.nodegate.model.bmc.BmcReading;
import io.nodegate.model.bmc.BmcReadings;
import io.nodegate.model.bmc.BmcSystem;
import io.nodegate.model.bmc.PowerEvent;
import io.nodegate.model.bmc.PowerLog;
import io.nodegate.source.dump.DumpSource;
import io.nodegate.testing.NodeFixtures;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * NG304 and NG305 on the seed's own snapshot (examples/cluster-a-batch-stop, D+15 06:10Z: gpu-a07..a10's Leases
 * stopped at 05:23:4x) with the BMC readings the hosts' BMCs give, and their near misses.
 */
class BmcDetectorsTest {

    static final ClusterState BATCH = DumpSource.load(List.of(Path.of("examples/cluster-a-batch-stop")), null);
    static final Instant READ_AT = Instant.parse("2026-10-22T06:09:40Z");

    static BmcSystem system(String bmc, String uuid, String power, PowerLog log) {
        return new BmcSystem(bmc, "/redfish/v1/Systems/System.Embedded.1", uuid, power, null, "OSRunning",
                Instant.parse("2026-10-22T05:24:31Z"), "OK", "Enabled", log);
    }

    static BmcReading reading(String bmc, Instant at, BmcSystem system) {
        return new BmcReading(bmc, at, null, List.of(system), null);
    }

    static String uuid(ClusterState state, String node) {
        return state.node(node).orElseThrow().systemInfo().systemUuid().toLowerCase();
    }

    static List<Finding> ng304(ClusterState state) {
        return new BmcRunningButSilentDetector().detect(state, AuditSettings.DEFAULTS);
    }

    static List<Finding> ng305(ClusterState state) {
        return new BmcPoweredOffButReadyDetector().detect(state, AuditSettings.DEFAULTS);
    }

    @Test
    void gpuA07RunningWhileItsLeaseIsSilentIsNg304() {
        ClusterState state = BATCH.withBmc(BmcReadings.of(List.of(reading("https://10.0.30.7", READ_AT,
                system("https://10.0.30.7", uuid(BATCH, "gpu-a07"), "On", null)))));

        List<Finding> findings = ng304(state);

        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG304");
            assertThat(f.nodes()).containsExactly("gpu-a07");
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.message()).isEqualTo("BMC https://10.0.30.7 reports PowerState On for this host "
                    + "(/redfish/v1/Systems/System.Embedded.1, UUID ed7f385e-42fb-567e-9e1e-d2b8596f6a5e, read at "
                    + "2026-10-22T06:09:40Z), while its Lease has been silent since 2026-10-22T05:23:42.676430Z (46m17s;"
                    + " grace period 50s). The host is up: a network cut, a hung kubelet, or another cluster. "
                    + "Not a shutdown.");
            assertThat(f.evidence()).containsEntry("leaseSilentSeconds", 2777L).containsEntry("powerState", "On")
                    .containsEntry("readAt", "2026-10-22T06:09:40Z").containsEntry("target", null);
        });
        assertThat(ng305(state)).isEmpty();
    }

    @Test
    void aRemovalTargetRunningButSilentIsCritical() {
        NodeInfo a07 = BATCH.node("gpu-a07").orElseThrow();
        Map<String, String> ann = new HashMap<>(a07.annotations());
        ann.put("nodegate.io/gate-verdict", "HOLD");
        List<NodeInfo> nodes = new ArrayList<>(BATCH.nodes());
        nodes.set(nodes.indexOf(a07), new NodeInfo(a07.name(), a07.uid(), a07.resourceVersion(), a07.created(),
                a07.labels(), ann, a07.taints(), a07.unschedulable(), a07.podCidr(), a07.addresses(), a07.conditions(),
                a07.systemInfo(), a07.capacity()));
        ClusterState gated = BATCH.toBuilder().nodes(nodes).build().withBmc(BmcReadings.of(List.of(reading(
                "https://10.0.30.7", READ_AT, system("https://10.0.30.7", uuid(BATCH, "gpu-a07"), "On", null)))));

        Finding f = ng304(gated).get(0);

        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.message()).endsWith("It is a removal target: the gate judged it (nodegate.io/gate-verdict=HOLD): "
                + "its silence must not be read as the host being gone.");
    }

    @Test
    void aTombstonedHostRunningIsATargetToo() {
        NodeInfo a10 = BATCH.node("gpu-a10").orElseThrow();
        ClusterState state = BATCH.toBuilder().bmc(null).tombstones(Collected.of(List.of(new Tombstone("gpu-a10-old",
                "uid-gone", a10.systemInfo().systemUuid(), null, Instant.parse("2026-10-21T06:31:10Z"), "c0ffee",
                "kim")))).build();

        assertThat(RemovalTargets.of(a10, state)).contains("a removal target: `nodegate remove` deleted this host "
                + "(gpu-a10-old, same systemUUID) at 2026-10-21T06:31:10Z");
        assertThat(RemovalTargets.of(BATCH.node("gpu-a07").orElseThrow(), state)).isEmpty();
    }

    @Test
    void nearMissesAreNotNg304() {
        // a reading taken before the Lease went silent says nothing about the silence
        ClusterState early = BATCH.withBmc(BmcReadings.of(List.of(reading("https://10.0.30.7",
                Instant.parse("2026-10-22T05:24:00Z"), system("https://10.0.30.7", uuid(BATCH, "gpu-a07"), "On", null)))));
        // a host that renews its Lease is running, as it should
        ClusterState healthy = BATCH.withBmc(BmcReadings.of(List.of(reading("https://10.0.30.11", READ_AT,
                system("https://10.0.30.11", uuid(BATCH, "gpu-a11"), "On", null)))));
        // a silent host whose BMC says Off is a shutdown, not NG304
        ClusterState off = BATCH.withBmc(BmcReadings.of(List.of(reading("https://10.0.30.10", READ_AT,
                system("https://10.0.30.10", uuid(BATCH, "gpu-a10"), "Off", null)))));
        // PoweringOn is no state to rely on yet
        ClusterState transitioning = BATCH.withBmc(BmcReadings.of(List.of(reading("https://10.0.30.7", READ_AT,
                system("https://10.0.30.7", uuid(BATCH, "gpu-a07"), "PoweringOn", null)))));
        // no BMC asked
        for (ClusterState s : List.of(early, healthy, off, transitioning, BATCH)) {
            assertThat(ng304(s)).isEmpty();
            assertThat(ng305(s)).isEmpty();
        }
    }

    @Test
    void gpuA11ReadyWhileItsBmcSaysOffIsNg305() {
        PowerLog log = new PowerLog(List.of("/redfish/v1/Managers/iDRAC.Embedded.1/LogServices/Sel/Entries"),
                new PowerEvent(PowerEvent.Kind.OFF, Instant.parse("2026-10-21T22:00:00Z"), "/e/9", null,
                        "Power Unit: Power off/down"), null, 40, false, null);
        ClusterState state = BATCH.withBmc(BmcReadings.of(List.of(reading("https://10.0.30.11", READ_AT,
                system("https://10.0.30.11", uuid(BATCH, "gpu-a11"), "Off", log)))));

        List<Finding> findings = ng305(state);

        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG305");
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.nodes()).containsExactly("gpu-a11");
            assertThat(f.message()).startsWith("BMC https://10.0.30.11 reports PowerState Off for the system with this "
                    + "Node's systemUUID (/redfish/v1/Systems/System.Embedded.1, UUID 37491b2a-8b40-50ad-895f-"
                    + "eaa2cbb285b4, read at 2026-10-22T06:09:40Z), yet the Node is Ready (since ")
                    .endsWith("and its Lease was renewed 7s ago. A powered-off host cannot renew a Lease: the binding "
                            + "or the BMC is wrong; distrust both.");
        });
        assertThat(ng304(state)).isEmpty();
    }

    @Test
    void aNodeThatBecameReadyAfterTheReadingIsNotNg305() {
        // gpu-a03 came back Ready at 01:41:46Z; a BMC reading from before that, saying Off, was true then
        ClusterState state = BATCH.withBmc(BmcReadings.of(List.of(reading("https://10.0.30.3",
                Instant.parse("2026-10-22T01:30:00Z"), system("https://10.0.30.3", uuid(BATCH, "gpu-a03"), "Off",
                        null)))));

        assertThat(ng305(state)).isEmpty();
        ClusterState now = BATCH.withBmc(BmcReadings.of(List.of(reading("https://10.0.30.3", READ_AT,
                system("https://10.0.30.3", uuid(BATCH, "gpu-a03"), "Off", null)))));
        assertThat(ng305(now)).extracting(Finding::nodes).containsExactly(List.of("gpu-a03"));
    }

    @Test
    void fixturesOfOtherShapesStayQuiet() {
        // a cluster whose BMC failed: never evidence, never a finding
        ClusterState failed = NodeFixtures.cluster().node(NodeFixtures.node("w1").unknownSince(
                NodeFixtures.NOW.minusSeconds(3600), NodeFixtures.NOW.minusSeconds(3550)))
                .lease("w1", NodeFixtures.NOW.minusSeconds(3600)).build()
                .withBmc(BmcReadings.of(List.of(BmcReading.failed("https://10.0.30.1", NodeFixtures.NOW, "HTTP 503"))));
        assertThat(ng304(failed)).isEmpty();
        assertThat(ng305(failed)).isEmpty();
    }
}
