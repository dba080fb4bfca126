package io.nodegate.source.bmc;

import io.nodegate.model.bmc.BmcReading;
import io.nodegate.model.bmc.BmcSystem;
import io.nodegate.model.bmc.PowerEvent;
import io.nodegate.model.bmc.PowerLog;
import io.nodegate.testing.FieldCaptures;
import io.nodegate.testing.RedfishTestServer;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Power-off times from real BMCs' logs: the public captures in ../shared/field/redfish (SOURCES.md there names each
 * one's repository and commit), served as they are by the Redfish test server, with the system set Off and the log cut
 * at a moment the way a live BMC would show it then.
 */
class RedfishFieldCapturesTest {

    @TempDir
    static Path dir;
    static TestCerts certs;

    private final List<RedfishTestServer> servers = new ArrayList<>();
    private final List<String> sent = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void certs() {
        certs = TestCerts.create(dir);
    }

    @AfterEach
    void stop() {
        servers.forEach(RedfishTestServer::close);
    }

    private RedfishTestServer capture(String name) {
        RedfishTestServer s = RedfishTestServer.capture(certs.serverCert, certs.serverKey, FieldCaptures.redfish(name));
        servers.add(s);
        return s;
    }

    private BmcReading read(RedfishTestServer bmc) {
        BmcSource source = new BmcSource(new BmcSource.Settings(BmcTls.verifying(certs.caCert), false,
                Duration.ofSeconds(10), Duration.ofSeconds(60), 1), Clock.systemUTC(), n -> { },
                (method, path) -> sent.add(method + " " + path));
        BmcReading r = source.read(List.of(new BmcTarget(bmc.url(), new BmcCredentials("root", "calvin", "test"))))
                .bmcs().get(0);
        assertThat(r.error()).as("the capture is read").isNull();
        return r;
    }

    private static BmcSystem system(BmcReading r, String path) {
        return r.systems().stream().filter(s -> RedfishHttp.samePath(s.path(), path)).findFirst().orElseThrow();
    }

    @Test
    void amiPowerStatusChangeWithItsOffArgumentDatesThePowerOff() {
        // AMI MegaRAC (GIGABYTE H262-Z63): EventLog.1.0.PowerStatusChange, MessageArgs [/redfish/v1/Systems/Self, Off];
        // the log as it stood between "...changed to type Off" 19:46:07Z and "...type On" 19:47:43Z
        RedfishTestServer bmc = capture("gigabyte-h262-ami").powerState("/redfish/v1/Systems/Self", "Off")
                .logFirst("/redfish/v1/Managers/Self/LogServices/EventLog/Entries", 9);

        PowerLog log = system(read(bmc), "/redfish/v1/Systems/Self").log();

        PowerEvent off = log.powerOff();
        assertThat(off).as(log.whyNoPowerOff()).isNotNull();
        assertThat(off.created()).isEqualTo(Instant.parse("2021-07-16T19:46:07Z"));
        assertThat(off.entry()).isEqualTo("/redfish/v1/Managers/Self/LogServices/EventLog/Entries/116");
        assertThat(off.messageId()).isEqualTo("EventLog.1.0.PowerStatusChange");
    }

    @Test
    void amiWholeLogEndsInAPowerOnSoTheOffCameWithoutAnEntry() {
        RedfishTestServer bmc = capture("gigabyte-h262-ami").powerState("/redfish/v1/Systems/Self", "Off");

        PowerLog log = system(read(bmc), "/redfish/v1/Systems/Self").log();

        assertThat(log.powerOff()).isNull();
        assertThat(log.lastOff().created()).isEqualTo(Instant.parse("2021-07-16T19:46:07Z"));
        assertThat(log.lastOn().created()).isEqualTo(Instant.parse("2021-07-16T19:47:43Z"));
        assertThat(log.whyNoPowerOff()).contains("newest power event is a power-on");
    }

    @Test
    void hpeIloEventLogWithoutLogEntryTypeIsReadAndServerPoweredOffWithANullMessageDatesIt() {
        // HPE iLO 5 (XL675d Gen10 Plus): Systems/1/LogServices/Event has no LogEntryType; iLOEvents.3.2.ServerPoweredOff
        // has Message null. The log as it stood at 20:19:58Z: after the power-off, before ServerPoweredOn 20:20:04Z
        RedfishTestServer bmc = capture("hpe-xl675d-a100-ilo5").powerState("/redfish/v1/Systems/1/", "Off")
                .logFirst("/redfish/v1/Systems/1/LogServices/Event/Entries/", 4);

        PowerLog log = system(read(bmc), "/redfish/v1/Systems/1").log();

        assertThat(log.services()).contains("/redfish/v1/Systems/1/LogServices/Event/Entries/",
                "/redfish/v1/Systems/1/LogServices/IML/Entries/", "/redfish/v1/Managers/1/LogServices/IEL/Entries/");
        PowerEvent off = log.powerOff();
        assertThat(off).as(log.whyNoPowerOff()).isNotNull();
        assertThat(off.created()).isEqualTo(Instant.parse("2022-06-13T20:19:56Z"));
        assertThat(off.messageId()).isEqualTo("iLOEvents.3.2.ServerPoweredOff");
        assertThat(off.entry()).isEqualTo("/redfish/v1/Systems/1/LogServices/Event/Entries/4/");
    }

    @Test
    void hpeInputPowerLossOfASupplyIsNoPowerOffAndUndatedEntriesDoNotBreakTheRead() {
        // HPE iLO 5 (DL325 Gen10 Plus): IML "System Power Supply: Input Power Loss or Unplugged Power Cord ... (Power
        // Supply 1)", and entries Created "0000-00-00T00:00:00Z"
        RedfishTestServer bmc = capture("hpe-dl325-ilo5").powerState("/redfish/v1/Systems/1", "Off");

        PowerLog log = system(read(bmc), "/redfish/v1/Systems/1").log();

        assertThat(log.lastOff()).isNull();
        assertThat(log.powerOff()).isNull();
        assertThat(log.entriesRead()).isEqualTo(143 + 105 + 218);
        assertThat(log.whyNoPowerOff()).contains("none of the 466 entries read is a power-off nodegate recognises")
                .contains("wording").doesNotContain("no power-off entry");
        assertThat(log.describeLogs()).contains("/redfish/v1/Systems/1/LogServices/IML/Entries (143 entries)");
    }

    @Test
    void supermicroX10Log1WithoutLogEntryTypeIsReadAndSaidNeverNoSel() {
        // Supermicro X10 (ASPEED): the SEL is Systems/1/LogServices/Log1, no LogEntryType; its 65 entries are ECC and a
        // product key, no power event. Managers/1 has no LogServices.
        RedfishTestServer bmc = capture("supermicro-x10").powerState("/redfish/v1/Systems/1", "Off");

        PowerLog log = system(read(bmc), "/redfish/v1/Systems/1").log();

        assertThat(log.services()).containsExactly("/redfish/v1/Systems/1/LogServices/Log1/Entries");
        assertThat(log.entriesRead()).isEqualTo(65);
        assertThat(log.whyNoPowerOff()).doesNotContain("offers no SEL").contains("none of the 65 entries read");
        assertThat(log.describeLogs()).isEqualTo("logs read: /redfish/v1/Systems/1/LogServices/Log1/Entries (65 entries)");
    }

    @Test
    void dellFaultListIsReadWhenTheSelEntriesAnswer404AndEachLogSaysWhatCameOfIt() {
        // Dell iDRAC 9 (XR8620t): the system links no LogServices; the manager has Sel (its Entries are not in the
        // capture: 404), Lclog (a first page of 50 of 1326 with a next link) and FaultList (PSUA0016 "Power supply 2 is
        // absent.": a part, not the host)
        RedfishTestServer bmc = capture("dell-xr8620t-idrac9").powerState("/redfish/v1/Systems/System.Embedded.1", "Off");

        PowerLog log = system(read(bmc), "/redfish/v1/Systems/System.Embedded.1").log();

        assertThat(log.describeLogs())
                .contains("/redfish/v1/Managers/iDRAC.Embedded.1/LogServices/Sel/Entries (HTTP 404: not there)")
                .contains("/redfish/v1/Managers/iDRAC.Embedded.1/LogServices/FaultList/Entries (3 entries)")
                .containsPattern("/redfish/v1/Managers/iDRAC.Embedded.1/LogServices/Lclog/Entries \\(\\d+ entries, more not "
                        + "read\\)");
        assertThat(log.lastOff()).as(log.describeLogs()).isNull();
        assertThat(log.powerOff()).isNull();
        assertThat(log.error()).as("a 404 is absence, not a failure").isNull();
        assertThat(log.whyNoPowerOff()).doesNotContain("offers no SEL");
    }

    @Test
    void nvidiaHardShutdownIsThePowerOffAndAFailedForcedOffIsNot() {
        // NVIDIA OpenBMC (Supermicro GB300 node 2), the log as it stood at 19:00Z on 2026-04-14: after the thermal
        // "Hard shutdown timer expired ... Performing hard shutdown" (18:44:55Z), before "Host Powered ON." 19:12:15Z
        RedfishTestServer bmc = capture("supermicro-gb300-nvl-n2").powerState("/redfish/v1/Systems/System_0", "Off")
                .logAsOf("/redfish/v1/Systems/System_0/LogServices/EventLog/Entries", "2026-04-14T19:00:00Z")
                .logAsOf("/redfish/v1/Systems/System_0/LogServices/SEL/Entries", "2026-04-14T19:00:00Z");

        PowerLog log = system(read(bmc), "/redfish/v1/Systems/System_0").log();

        PowerEvent off = log.powerOff();
        assertThat(off).as(log.whyNoPowerOff()).isNotNull();
        assertThat(off.created()).isEqualTo(Instant.parse("2026-04-14T18:44:55.268Z"));
        assertThat(off.message()).startsWith("Hard shutdown timer expired");
        assertThat(sent).noneMatch(r -> r.contains("/PostCodes/Entries") || r.contains("/Journal/Entries")
                || r.contains("/Dump/Entries"));
    }

    @Test
    void nvidiaCpldMainPowerOffDatesItAndTheFailedForcedOffThreeSecondsLaterDoesNot() {
        // FW_CPLD_0/1 "Host Main Power is Off" 2025-11-16T02:02:50Z, then powerctrl.sh's "SHDN_FORCE_L-O ... Power Off
        // Host Failed." 02:02:53Z (a forced off that left run power on), "Host Powered ON." only on 11-17
        RedfishTestServer bmc = capture("supermicro-gb300-nvl-n2").powerState("/redfish/v1/Systems/System_0", "Off")
                .logAsOf("/redfish/v1/Systems/System_0/LogServices/EventLog/Entries", "2025-11-17T00:00:00Z")
                .logAsOf("/redfish/v1/Systems/System_0/LogServices/SEL/Entries", "2025-11-17T00:00:00Z");

        PowerLog log = system(read(bmc), "/redfish/v1/Systems/System_0").log();

        PowerEvent off = log.powerOff();
        assertThat(off).as(log.whyNoPowerOff()).isNotNull();
        assertThat(off.created()).isEqualTo(Instant.parse("2025-11-16T02:02:50.533Z"));
        assertThat(off.messageId()).isEqualTo("ResourceEvent.1.0.ResourceErrorsDetected");
    }

    @Test
    void crayPowerStateChangesCountOnlyForTheSystemTheyName() {
        // HPE Cray EX425: one BMC, Node0 and Node1, one EventLog under Managers/BMC (the systems link no LogServices
        // and no ManagedBy: found through the Managers collection). Node1 went off 15:34:04Z, Node0 15:34:06Z.
        RedfishTestServer bmc = capture("hpe-cray-ex425").powerState("/redfish/v1/Systems/Node1", "Off")
                .logAsOf("/redfish/v1/Managers/BMC/LogServices/EventLog/Entries", "2022-04-05T15:34:30Z");

        PowerLog log = system(read(bmc), "/redfish/v1/Systems/Node1").log();

        PowerEvent off = log.powerOff();
        assertThat(off).as(log.whyNoPowerOff()).isNotNull();
        assertThat(off.created()).isEqualTo(Instant.parse("2022-04-05T15:34:04Z"));
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({
            "dmtf-public-rackmount1, /redfish/v1/Systems/437XR1138R2, 3",
            "intel-s2600bpb, /redfish/v1/Systems/QSBP74100021, 20",
            "openbmc-stock, /redfish/v1/Systems/system, 0"})
    void capturesWithoutAPowerEventSayWhatWasReadAndThatTheWordingIsUnknown(String name, String system, int entries) {
        RedfishTestServer bmc = capture(name).powerState(system, "Off");

        PowerLog log = system(read(bmc), system).log();

        assertThat(log.powerOff()).isNull();
        assertThat(log.services()).isNotEmpty();
        assertThat(log.entriesRead()).isEqualTo(entries);
        assertThat(log.whyNoPowerOff()).contains("none of the " + entries + " entries read");
        assertThat(sent).noneMatch(r -> r.contains("/Journal"));
    }
}
