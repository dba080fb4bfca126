package io.nodegate.model;

import io.nodegate.model.bmc.BmcReading;
import io.nodegate.model.bmc.BmcReadings;
import io.nodegate.model.bmc.BmcSystem;
import io.nodegate.model.bmc.NodePower;
import io.nodegate.model.bmc.PowerEvent;
import io.nodegate.model.bmc.PowerLog;
import io.nodegate.model.bmc.PowerVerdict;
import io.nodegate.model.NodeInfo;
import io.nodegate.testing.NodeFixtures;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Binding BMC systems to Nodes by UUID = systemUUID, and the verdict each Node gets. */
class BmcBindingTest {

    static final Instant AT = Instant.parse("2026-10-22T06:10:00Z");
    // gpu-a07's SMBIOS UUID as the kubelet printed it (upper case) and as an iDRAC prints it (lower case)
    static final String KUBELET_A07 = "ED7F385E-42FB-567E-9E1E-D2B8596F6A5E";
    static final String BMC_A07 = "ed7f385e-42fb-567e-9e1e-d2b8596f6a5e";

    static NodeInfo node(String name, String uuid) {
        return NodeFixtures.node(name).systemUuid(uuid).build();
    }

    static BmcSystem system(String bmc, String path, String uuid, String power, PowerLog log) {
        return new BmcSystem(bmc, path, uuid, power, null, null, null, "OK", "Enabled", log);
    }

    static BmcReading reading(String bmc, BmcSystem... systems) {
        return new BmcReading(bmc, AT, null, List.of(systems), null);
    }

    @Test
    void aSystemBindsToTheNodeWithItsUuidWhateverTheCase() {
        BmcBinding b = BmcBinding.bind(List.of(node("gpu-a07", KUBELET_A07)), BmcReadings.of(List.of(
                reading("https://10.0.30.7", system("https://10.0.30.7", "/redfish/v1/Systems/System.Embedded.1",
                        BMC_A07, "On", null)))));

        NodePower p = b.of("gpu-a07");
        assertThat(p.verdict()).isEqualTo(PowerVerdict.RUNNING);
        assertThat(p.source()).isEqualTo("https://10.0.30.7/redfish/v1/Systems/System.Embedded.1 PowerState=On");
        assertThat(b.unbound()).isEmpty();
    }

    @Test
    void noBmcReadMeansNoBindingAtAll() {
        assertThat(BmcBinding.bind(List.of(node("gpu-a07", KUBELET_A07)), BmcReadings.NOT_READ).byNode()).isEmpty();
    }

    @Test
    void anAllZeroUuidNeverBindsOnEitherSide() {
        String zero = "00000000-0000-0000-0000-000000000000";
        BmcBinding b = BmcBinding.bind(List.of(node("lab-1", zero), node("lab-2", null)), BmcReadings.of(List.of(
                reading("https://10.0.40.1", system("https://10.0.40.1", "/redfish/v1/Systems/1", zero, "Off", null)))));

        assertThat(b.of("lab-1").verdict()).isEqualTo(PowerVerdict.NOT_FOUND);
        assertThat(b.of("lab-1").source()).isEqualTo("the Node reports an all-zero systemUUID: it cannot be bound to a BMC");
        assertThat(b.of("lab-2").source()).isEqualTo("the Node reports no systemUUID: it cannot be bound to a BMC");
        assertThat(b.unbound()).singleElement().satisfies(u -> assertThat(u.why())
                .isEqualTo("its UUID is all zeros (" + zero + "): it identifies no host"));
    }

    @Test
    void oldFirmwaresByteSwappedUuidIsNoMatchAndSaysSo() {
        // the first three groups byte-reversed: ed7f385e-42fb-567e -> 5e387fed-fb42-7e56
        String swapped = "5e387fed-fb42-7e56-9e1e-d2b8596f6a5e";
        assertThat(BmcBinding.byteSwapped(BMC_A07)).isEqualTo(swapped);
        BmcBinding b = BmcBinding.bind(List.of(node("gpu-a07", KUBELET_A07)), BmcReadings.of(List.of(
                reading("https://10.0.30.7", system("https://10.0.30.7", "/redfish/v1/Systems/1", swapped.toUpperCase(),
                        "Off", null)))));

        assertThat(b.of("gpu-a07").verdict()).isEqualTo(PowerVerdict.NOT_FOUND);
        assertThat(b.of("gpu-a07").source()).endsWith("; https://10.0.30.7/redfish/v1/Systems/1 reports UUID " + swapped
                + ", the same bytes with the first three groups swapped (old firmware's byte order): not bound");
        assertThat(b.unbound()).singleElement().satisfies(u -> assertThat(u.why()).contains("Node gpu-a07 has "
                + BMC_A07 + ", the same bytes with the first three groups swapped"));
    }

    @Test
    void aUuidThatReadsTheSameSwappedIsAPlainMatch() {
        String palindrome = "12343412-5656-7878-1234-567890abcdef";
        assertThat(BmcBinding.byteSwapped(palindrome)).isNull();
        assertThat(BmcBinding.byteSwapped("not-a-uuid")).isNull();
    }

    @Test
    void twoBmcsClaimingOneUuidIsAnErrorForBoth() {
        BmcBinding b = BmcBinding.bind(List.of(node("gpu-a07", KUBELET_A07)), BmcReadings.of(List.of(
                reading("https://10.0.30.7", system("https://10.0.30.7", "/redfish/v1/Systems/1", BMC_A07, "Off", null)),
                reading("https://10.0.30.8", system("https://10.0.30.8", "/redfish/v1/Systems/1", BMC_A07, "On", null)))));

        NodePower p = b.of("gpu-a07");
        assertThat(p.verdict()).isEqualTo(PowerVerdict.UNREADABLE);
        assertThat(p.system()).isNull();
        assertThat(p.source()).isEqualTo("UUID " + BMC_A07 + " is claimed by 2 systems (https://10.0.30.7/redfish/v1/"
                + "Systems/1, https://10.0.30.8/redfish/v1/Systems/1): ambiguous, nothing they say is used for this Node");
        assertThat(b.unbound()).hasSize(2);
    }

    @Test
    void aUuidSeveralSystemsReportIsAmbiguousOnlyForTheNodeThatHasIt() {
        String shared = "c01dc250-5678-11ed-9b6a-0242ac120002";
        BmcReadings readings = BmcReadings.of(List.of(
                reading("https://n1", system("https://n1", "/redfish/v1/Systems/HGX_Baseboard_0", shared, "On", null),
                        system("https://n1", "/redfish/v1/Systems/System_0", BMC_A07, "On", null)),
                reading("https://n2", system("https://n2", "/redfish/v1/Systems/HGX_Baseboard_0", shared, "On", null))));

        BmcBinding none = BmcBinding.bind(List.of(node("gpu-a07", KUBELET_A07)), readings);
        assertThat(none.of("gpu-a07").verdict()).isEqualTo(PowerVerdict.RUNNING);
        assertThat(none.problems(readings)).isEmpty();
        assertThat(none.duplicates()).singleElement().satisfies(d -> {
            assertThat(d.uuid()).isEqualTo(shared);
            assertThat(d.systems()).extracting(BmcSystem::source).containsExactly(
                    "https://n1/redfish/v1/Systems/HGX_Baseboard_0", "https://n2/redfish/v1/Systems/HGX_Baseboard_0");
            assertThat(d.nodes()).isEmpty();
        });

        BmcBinding claimed = BmcBinding.bind(List.of(node("gpu-a07", KUBELET_A07), node("tray-odd", shared)), readings);
        assertThat(claimed.of("gpu-a07").verdict()).isEqualTo(PowerVerdict.RUNNING);
        assertThat(claimed.of("tray-odd").verdict()).isEqualTo(PowerVerdict.UNREADABLE);
        assertThat(claimed.of("tray-odd").source()).contains("ambiguous");
        assertThat(claimed.problems(readings)).singleElement().asString().contains("tray-odd");
    }

    @Test
    void aNodeNotFoundWhileABmcFailedIsUnreadableNotNotFound() {
        BmcBinding b = BmcBinding.bind(List.of(node("gpu-a07", KUBELET_A07)), BmcReadings.of(List.of(
                reading("https://10.0.30.8"),
                BmcReading.failed("https://10.0.30.7", AT, "GET /redfish/v1: HTTP 503"))));

        assertThat(b.of("gpu-a07").verdict()).isEqualTo(PowerVerdict.UNREADABLE);
        assertThat(b.of("gpu-a07").source()).isEqualTo("no BMC read carries systemUUID " + BMC_A07
                + ", but https://10.0.30.7 (GET /redfish/v1: HTTP 503) could not be read: it may be there");

        BmcBinding allRead = BmcBinding.bind(List.of(node("gpu-a07", KUBELET_A07)), BmcReadings.of(List.of(
                reading("https://10.0.30.8"))));
        assertThat(allRead.of("gpu-a07").verdict()).isEqualTo(PowerVerdict.NOT_FOUND);
    }

    @Test
    void everyPowerStateHasItsVerdict() {
        assertThat(PowerVerdict.of("On")).isEqualTo(PowerVerdict.RUNNING);
        assertThat(PowerVerdict.of("Off")).isEqualTo(PowerVerdict.POWERED_OFF);
        assertThat(PowerVerdict.of("PoweringOn")).isEqualTo(PowerVerdict.TRANSITIONING);
        assertThat(PowerVerdict.of("PoweringOff")).isEqualTo(PowerVerdict.TRANSITIONING);
        assertThat(PowerVerdict.of("Paused")).isEqualTo(PowerVerdict.TRANSITIONING);
        assertThat(PowerVerdict.of(null)).isEqualTo(PowerVerdict.TRANSITIONING);
        assertThat(PowerVerdict.of("Standby")).isEqualTo(PowerVerdict.TRANSITIONING);
        assertThat(PowerVerdict.POWERED_OFF.label()).isEqualTo("powered-off");

        BmcBinding odd = BmcBinding.bind(List.of(node("gpu-a07", KUBELET_A07)), BmcReadings.of(List.of(
                reading("https://b", system("https://b", "/redfish/v1/Systems/1", BMC_A07, "Standby", null)))));
        assertThat(odd.of("gpu-a07").source()).endsWith("PowerState=Standby (not a PowerState DSP0268 defines)");
    }

    @Test
    void poweredOffCarriesTheLoggedTimeOnNodegatesClock() {
        PowerEvent off = new PowerEvent(PowerEvent.Kind.OFF, Instant.parse("2026-10-22T05:16:58Z"),
                "/redfish/v1/Managers/BMC/LogServices/Log/Entries/3", null, "S5/G2: soft-off");
        BmcReading behind = new BmcReading("https://b", AT, Duration.ofMinutes(-7), List.of(system("https://b",
                "/redfish/v1/Systems/1", BMC_A07, "Off", new PowerLog(List.of("/e"), off, null, 3, false, null))), null);

        NodePower p = BmcBinding.bind(List.of(node("gpu-a07", KUBELET_A07)), BmcReadings.of(List.of(behind)))
                .of("gpu-a07");

        assertThat(p.verdict()).isEqualTo(PowerVerdict.POWERED_OFF);
        assertThat(p.powerOffTime()).isEqualTo(Instant.parse("2026-10-22T05:23:58Z"));
        assertThat(p.source()).endsWith("Created 2026-10-22T05:16:58Z (S5/G2: soft-off) by the BMC's clock, which runs "
                + "7m behind nodegate's: 2026-10-22T05:23:58Z on nodegate's");
    }

    @Test
    void poweredOffWithoutAUsableLogSaysWhy() {
        PowerLog failed = new PowerLog(List.of(), null, null, 0, false, "GET /x: HTTP 500");
        NodePower p = BmcBinding.bind(List.of(node("gpu-a07", KUBELET_A07)), BmcReadings.of(List.of(reading("https://b",
                system("https://b", "/redfish/v1/Systems/1", BMC_A07, "Off", failed))))).of("gpu-a07");

        assertThat(p.powerOff()).isNull();
        assertThat(p.source()).contains("PowerState=Off; power-off time unknown: a log could not be read "
                + "(GET /x: HTTP 500): when it went off is unknown; logs read: log (failed: GET /x: HTTP 500)");
    }
}
