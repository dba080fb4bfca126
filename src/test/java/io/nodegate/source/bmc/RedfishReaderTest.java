package io.nodegate.source.bmc;

import io.nodegate.model.bmc.BmcReading;
import io.nodegate.model.bmc.BmcReadings;
import io.nodegate.model.bmc.BmcSystem;
import io.nodegate.model.bmc.PowerEvent;
import io.nodegate.testing.RedfishTestServer;
import io.nodegate.testing.RedfishTestServer.Layout;
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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Reading BMCs over real HTTPS from the project's Redfish test server: auth, power states, logs, faults. */
class RedfishReaderTest {

    static final String PASSWORD = "PW-MARKER-7f3c91";
    static final String UUID_A07 = "4c4c4544-0037-4710-8030-c4c04f463432";

    @TempDir
    static Path dir;
    static TestCerts certs;

    private final List<RedfishTestServer> servers = new ArrayList<>();
    private final List<String> notes = new CopyOnWriteArrayList<>();
    private final List<String> sent = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void certs() {
        certs = TestCerts.create(dir);
    }

    @AfterEach
    void stop() {
        servers.forEach(RedfishTestServer::close);
    }

    private RedfishTestServer bmc(Layout layout) {
        RedfishTestServer s = RedfishTestServer.start(certs.serverCert, certs.serverKey, layout).account("root", PASSWORD);
        servers.add(s);
        return s;
    }

    private BmcReadings read(boolean session, Duration timeout, Duration deadline, RedfishTestServer... bmcs) {
        BmcSource source = new BmcSource(new BmcSource.Settings(BmcTls.verifying(certs.caCert), session, timeout,
                deadline, 4), Clock.systemUTC(), notes::add, (method, path) -> sent.add(method + " " + path));
        List<BmcTarget> targets = new ArrayList<>();
        for (RedfishTestServer b : bmcs) {
            targets.add(new BmcTarget(b.url(), new BmcCredentials("root", PASSWORD, "test")));
        }
        return source.read(targets);
    }

    private BmcReading readOne(boolean session, RedfishTestServer bmc) {
        return read(session, Duration.ofSeconds(5), Duration.ofSeconds(30), bmc).bmcs().get(0);
    }

    @Test
    void basicAuthReadsAnOnSystemWithGetsOnlyAndNoLog() {
        RedfishTestServer bmc = bmc(Layout.IDRAC).system("System.Embedded.1", UUID_A07, "On");

        BmcReading r = readOne(false, bmc);

        assertThat(r.error()).isNull();
        BmcSystem s = r.systems().get(0);
        assertThat(s.path()).isEqualTo("/redfish/v1/Systems/System.Embedded.1");
        assertThat(s.uuid()).isEqualTo(UUID_A07);
        assertThat(s.powerState()).isEqualTo("On");
        assertThat(s.bootProgress()).isEqualTo("OSRunning");
        assertThat(s.lastResetTime()).isEqualTo(Instant.parse("2026-09-30T19:02:57Z"));
        assertThat(s.log()).as("the log is read only for a system that is Off").isNull();
        assertThat(bmc.requests()).containsExactly("GET /redfish/v1", "GET /redfish/v1/Systems",
                "GET /redfish/v1/Systems/System.Embedded.1");
        assertThat(bmc.maxConcurrent()).isEqualTo(1);
    }

    @Test
    void aSessionIsOpenedUsedAndDeletedAndNothingElseChanges() {
        RedfishTestServer bmc = bmc(Layout.OPENBMC).basicAllowed(false).system("system", UUID_A07, "Off")
                .logEntry("2026-10-22T14:23:50+09:00", "OpenBMC.0.1.DCPowerOff", "Host system DC power is off", null);

        BmcReading r = readOne(true, bmc);

        assertThat(r.error()).isNull();
        assertThat(r.systems().get(0).log().powerOff().created()).isEqualTo(Instant.parse("2026-10-22T05:23:50Z"));
        List<String> methods = bmc.requests().stream().map(x -> x.substring(0, x.indexOf(' '))).distinct().toList();
        assertThat(methods).containsExactlyInAnyOrder("GET", "POST", "DELETE");
        assertThat(bmc.requests("POST")).containsExactly("POST " + RedfishTestServer.SESSIONS);
        assertThat(bmc.requests("DELETE")).containsExactly("DELETE " + RedfishTestServer.SESSIONS + "/1");
        assertThat(bmc.requests().get(bmc.requests().size() - 1)).startsWith("DELETE");
        assertThat(bmc.openSessions()).isZero();
    }

    @Test
    void withoutASessionBasicIsRefusedWhenTheBmcAllowsOnlySessions() {
        RedfishTestServer bmc = bmc(Layout.OPENBMC).basicAllowed(false).system("system", UUID_A07, "On");

        BmcReading r = readOne(false, bmc);

        assertThat(r.error()).isEqualTo("GET /redfish/v1/Systems: HTTP 401 (the BMC refused the credentials) "
                + "[Base.1.8.NoValidSession]");
        assertThat(r.systems()).isEmpty();
    }

    @Test
    void aWrongPasswordIsSaidWithoutThePassword() {
        RedfishTestServer bmc = bmc(Layout.DMTF).account("root", "something-else").system("437XR1138R2", UUID_A07, "On");

        BmcReading basic = readOne(false, bmc);
        BmcReading session = readOne(true, bmc);

        assertThat(basic.error()).contains("HTTP 401");
        assertThat(session.error()).startsWith("session login (POST /redfish/v1/SessionService/Sessions) answered "
                + "HTTP 401 (the BMC refused the credentials)");
        assertThat(basic + " " + session + notes + sent).doesNotContain(PASSWORD);
    }

    @Test
    void offWithASelPowerOffDatesIt() {
        // IPMI SEL text as BMCs carry it (ipmitool include/ipmitool/ipmi_sel.h: Power Unit "Power off/down")
        RedfishTestServer bmc = bmc(Layout.IDRAC).system("System.Embedded.1", UUID_A07, "Off")
                .logEntry("2026-10-20T01:00:00+09:00", null, "Power Unit: Power off/down", "Assert")
                .logEntry("2026-10-20T01:05:00+09:00", null, "System ACPI Power State: S0/G0: working", "Assert")
                .logEntry("2026-10-22T14:23:50+09:00", null, "System ACPI Power State: S5/G2: soft-off", "Assert")
                .logEntry("2026-10-22T14:24:10+09:00", null, "Power supply PS2 power is off", "Assert");

        BmcSystem s = readOne(false, bmc).systems().get(0);

        PowerEvent off = s.log().powerOff();
        assertThat(off.created()).isEqualTo(Instant.parse("2026-10-22T05:23:50Z"));
        assertThat(off.entry()).isEqualTo("/redfish/v1/Managers/iDRAC.Embedded.1/LogServices/Sel/Entries/3");
        assertThat(s.log().services()).containsExactly("/redfish/v1/Managers/iDRAC.Embedded.1/LogServices/Sel/Entries");
        assertThat(s.log().entriesRead()).isEqualTo(4);
        assertThat(bmc.requests()).contains("GET /redfish/v1/Managers/iDRAC.Embedded.1",
                "GET /redfish/v1/Managers/iDRAC.Embedded.1/LogServices/Sel");
    }

    @Test
    void aPowerOnLoggedAfterTheLastPowerOffLeavesTheTimeUnknown() {
        RedfishTestServer bmc = bmc(Layout.OPENBMC).system("system", UUID_A07, "Off")
                .logEntry("2026-10-22T05:23:50Z", "OpenBMC.0.1.DCPowerOff", "Host system DC power is off", null)
                .logEntry("2026-10-22T06:00:00Z", "OpenBMC.0.1.DCPowerOn", "Host system DC power is on", null);

        BmcSystem s = readOne(false, bmc).systems().get(0);

        assertThat(s.log().lastOff()).isNotNull();
        assertThat(s.log().powerOff()).isNull();
        assertThat(s.log().whyNoPowerOff()).contains("newest power event is a power-on")
                .contains("went off without a log entry");
    }

    @Test
    void pagedEntriesAreFollowedAndADeassertionIsNotAPowerOff() {
        RedfishTestServer bmc = bmc(Layout.DMTF).pageSize(2).system("437XR1138R2", UUID_A07, "Off")
                .logEntry("2026-10-22T05:00:00Z", null, "Power Unit: Power off/down", "Assert")
                .logEntry("2026-10-22T05:10:00Z", null, "Temperature: Upper Critical - going high", "Assert")
                .logEntry("2026-10-22T05:20:00Z", null, "LogEntry.v1_x EntryCode", "Transition to Power Off")
                .logEntry("2026-10-22T05:30:00Z", null, "Power Unit: Power off/down", "Deassert")
                .logEntry("2026-10-22T05:40:00Z", null, "Fan 2: Lower Critical - going low", "Assert");

        BmcSystem s = readOne(false, bmc).systems().get(0);

        assertThat(s.log().entriesRead()).isEqualTo(5);
        assertThat(s.log().powerOff().created()).isEqualTo(Instant.parse("2026-10-22T05:20:00Z"));
        assertThat(bmc.requests()).contains("GET /redfish/v1/Managers/BMC/LogServices/Log/Entries?$skip=2",
                "GET /redfish/v1/Managers/BMC/LogServices/Log/Entries?$skip=4");
    }

    @Test
    void aCertificateFromAnotherCaIsAnErrorNamingTheBmcNeverAFallback() {
        // the right address, signed by a CA --bmc-ca does not hold
        TestCerts.Serving other = certs.kubeletServing(certs.authority("bmc-other-ca", "idrac-other-ca"), "bmc-other",
                "idrac-7XK2", "127.0.0.1");
        RedfishTestServer bmc = RedfishTestServer.start(other.chain(), other.key(), Layout.IDRAC)
                .account("root", PASSWORD).system("System.Embedded.1", UUID_A07, "On");
        servers.add(bmc);

        BmcReading r = readOne(false, bmc);

        assertThat(r.bmc()).isEqualTo(bmc.url());
        assertThat(r.error()).startsWith("GET /redfish/v1: TLS failed, the certificate was not accepted:")
                .contains("give the BMC's CA with --bmc-ca");
        assertThat(bmc.requests()).as("no request reached the BMC over an unverified connection").isEmpty();

        BmcSource insecure = new BmcSource(new BmcSource.Settings(BmcTls.skippingVerification(), false,
                Duration.ofSeconds(5), Duration.ofSeconds(30), 1), Clock.systemUTC(), notes::add);
        BmcReading skipped = insecure.read(List.of(new BmcTarget(bmc.url(),
                new BmcCredentials("root", PASSWORD, "test")))).bmcs().get(0);
        assertThat(skipped.error()).isNull();
        assertThat(skipped.systems()).hasSize(1);
    }

    @Test
    void aCertificateForAnotherNameFailsWhenVerifying() {
        RedfishTestServer bmc = bmc(Layout.IDRAC).system("System.Embedded.1", UUID_A07, "On");
        // the test certificate names 127.0.0.1 and localhost; the BMC reached as 127.0.0.2 is another name
        BmcSource source = new BmcSource(new BmcSource.Settings(BmcTls.verifying(certs.caCert), false,
                Duration.ofSeconds(5), Duration.ofSeconds(30), 1), Clock.systemUTC(), notes::add);

        BmcReading r = source.read(List.of(new BmcTarget(bmc.url("127.0.0.2"),
                new BmcCredentials("root", PASSWORD, "test")))).bmcs().get(0);

        assertThat(r.error()).satisfiesAnyOf(
                e -> assertThat(e).contains("TLS failed"),
                e -> assertThat(e).contains("cannot connect"));
    }

    @Test
    void aBusyBmcAnswering503IsAFailedReading() {
        RedfishTestServer bmc = bmc(Layout.DMTF).system("437XR1138R2", UUID_A07, "On").failWith(503);

        BmcReading r = readOne(false, bmc);

        assertThat(r.ok()).isFalse();
        assertThat(r.error()).isEqualTo("GET /redfish/v1: HTTP 503 (the BMC is busy or not ready) "
                + "[Base.1.8.ServiceTemporarilyUnavailable]");
        assertThat(r.systems()).isEmpty();
    }

    @Test
    void aSlowBmcTimesOutPerRequestAndTheOthersAreStillRead() {
        RedfishTestServer slow = bmc(Layout.DMTF).system("437XR1138R2", UUID_A07, "On").delay(Duration.ofSeconds(30));
        RedfishTestServer fast = bmc(Layout.IDRAC).system("System.Embedded.1", "4c4c4544-0038-4710-8030-c4c04f463432",
                "On");

        // 4 s: the fast BMC's first request carries a TLS handshake on a machine that may be busy; the slow one's
        // answer would take 30 s
        BmcReadings r = read(false, Duration.ofSeconds(4), Duration.ofSeconds(25), slow, fast);

        assertThat(r.bmcs().get(0).error()).isEqualTo("GET /redfish/v1: no answer within 4s (--bmc-timeout)");
        assertThat(r.bmcs().get(1).error()).isNull();
        assertThat(r.bmcs().get(1).systems()).hasSize(1);
    }

    @Test
    void aBmcNotDoneByTheOverallDeadlineIsFailedAndItsSessionStillClosed() {
        // the root and the login answer at once; the deadline passes while Systems is asked for
        RedfishTestServer slow = bmc(Layout.DMTF).system("437XR1138R2", UUID_A07, "On")
                .delayOn("/redfish/v1/Systems", Duration.ofSeconds(8));

        BmcReadings r = read(true, Duration.ofSeconds(5), Duration.ofMillis(1500), slow);

        assertThat(r.bmcs().get(0).error()).isEqualTo("not read within the overall deadline of 1.5s (--bmc-deadline)");
        assertThat(slow.requests()).contains("GET /redfish/v1/Systems");
        assertThat(slow.requests("DELETE")).as("the session opened before the deadline is closed on the way out")
                .hasSize(1);
        assertThat(slow.openSessions()).isZero();
    }

    @Test
    void theBmcClockOffsetComesFromItsManagersDateTime() {
        RedfishTestServer bmc = bmc(Layout.DMTF).system("437XR1138R2", UUID_A07, "Off")
                .clockOffset(Duration.ofMinutes(-7));

        BmcReading r = readOne(false, bmc);

        assertThat(r.clockOffset()).isBetween(Duration.ofMinutes(-7).minusSeconds(3), Duration.ofMinutes(-7)
                .plusSeconds(3));
    }

    @Test
    void somethingThatIsNotRedfishIsAFailedReading() {
        RedfishTestServer bmc = bmc(Layout.DMTF).system("437XR1138R2", UUID_A07, "On");
        bmc.put("/redfish/v1", tools.jackson.databind.json.JsonMapper.builder().build().createObjectNode()
                .put("hello", "world"));

        assertThat(readOne(false, bmc).error()).isEqualTo("GET /redfish/v1: the answer is not a Redfish service root "
                + "(no RedfishVersion)");
    }

    @Test
    void nextLinksMayBeAbsoluteAndAPageLinkingToItselfEndsTheRead() {
        assertThat(RedfishHttp.pathOf("https://10.0.30.7/redfish/v1/Systems/1/LogServices/Sel/Entries?$skip=50"))
                .isEqualTo("/redfish/v1/Systems/1/LogServices/Sel/Entries?$skip=50");
        assertThat(RedfishHttp.pathOf("/redfish/v1/SessionService/Sessions/9")).isEqualTo("/redfish/v1/SessionService/Sessions/9");

        RedfishTestServer bmc = bmc(Layout.DMTF).system("437XR1138R2", UUID_A07, "Off")
                .logEntry("2026-10-22T05:20:00Z", null, "Power Unit: Power off/down", "Assert");
        bmc.resource("/redfish/v1/Managers/BMC/LogServices/Log/Entries").put("Members@odata.nextLink",
                bmc.url() + "/redfish/v1/Managers/BMC/LogServices/Log/Entries");

        BmcSystem s = readOne(false, bmc).systems().get(0);

        assertThat(s.log().truncated()).isTrue();
        assertThat(s.log().entriesRead()).isEqualTo(1);
        assertThat(s.log().powerOff()).as("a log not read to its end dates nothing").isNull();
        assertThat(s.log().whyNoPowerOff()).startsWith("the log is longer than nodegate reads (1 entries read)");
        assertThat(bmc.requests().stream().filter(r -> r.endsWith("/Log/Entries")).count()).isEqualTo(1);
    }

    @Test
    void theGuardRefusesEveryChangeButTheSessionLoginAndItsLogout() {
        String sessions = "/redfish/v1/SessionService/Sessions";
        RedfishHttp.allow("GET", "/redfish/v1/Systems/1", null, null);
        RedfishHttp.allow("POST", sessions + "/", sessions, null);
        RedfishHttp.allow("DELETE", sessions + "/7", sessions, sessions + "/7");

        for (String[] refused : new String[][]{
                {"POST", "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset", sessions, null},
                {"PATCH", "/redfish/v1/Systems/1", sessions, null},
                {"PUT", "/redfish/v1/Systems/1", sessions, null},
                {"POST", sessions, sessions, sessions + "/7"},
                {"POST", sessions, null, null},
                {"DELETE", sessions + "/8", sessions, sessions + "/7"},
                {"DELETE", "/redfish/v1/Systems/1", sessions, null}}) {
            assertThatThrownBy(() -> RedfishHttp.allow(refused[0], refused[1], refused[2], refused[3]))
                    .as(refused[0] + " " + refused[1])
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("nodegate only reads BMCs: refusing " + refused[0]);
        }
    }

    @Test
    void aSessionLocationOutsideTheSessionsCollectionIsNeverDeleted() {
        RedfishTestServer bmc = bmc(Layout.IDRAC).system("System.Embedded.1", UUID_A07, "On")
                .sessionLocation("/redfish/v1/AccountService/Accounts/2");

        BmcReading r = readOne(true, bmc);

        assertThat(r.error()).isNull();
        assertThat(r.systems()).hasSize(1);
        assertThat(bmc.requests("DELETE")).isEmpty();
        assertThat(sent).noneMatch(s -> s.startsWith("DELETE"));
        assertThat(notes).singleElement().asString().contains("/redfish/v1/AccountService/Accounts/2")
                .contains("not under the Sessions collection").contains("SessionTimeout");
        assertThat(RedfishHttp.underCollection("/redfish/v1/SessionService/Sessions/7", RedfishTestServer.SESSIONS))
                .isTrue();
        assertThat(RedfishHttp.underCollection("/redfish/v1/SessionService/Sessions/../../AccountService/Accounts/2",
                RedfishTestServer.SESSIONS)).isFalse();
        assertThat(RedfishHttp.underCollection(RedfishTestServer.SESSIONS, RedfishTestServer.SESSIONS)).isFalse();
        assertThatThrownBy(() -> RedfishHttp.allow("DELETE", "/redfish/v1/AccountService/Accounts/2",
                RedfishTestServer.SESSIONS, "/redfish/v1/AccountService/Accounts/2"))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aLinkToAnotherHostIsRefusedAndNeitherRequestNorCredentialsGoThere() {
        RedfishTestServer other = bmc(Layout.DMTF).system("1", UUID_A07, "On");
        int port = Integer.parseInt(other.url().substring(other.url().lastIndexOf(':') + 1));
        for (String link : List.of("@127.0.0.1:" + port + "/redfish/v1/Systems/1",
                other.url() + "/redfish/v1/Systems/1", "https://127.0.0.2:" + port + "/redfish/v1/Systems/1")) {
            RedfishTestServer bmc = bmc(Layout.DMTF);
            bmc.resource("/redfish/v1/Systems").putArray("Members").addObject().put("@odata.id", link);

            BmcReading r = readOne(false, bmc);

            assertThat(r.error()).as(link).contains("which is not a path on " + bmc.url()).contains("not followed");
            assertThat(other.requests()).as(link).isEmpty();
        }
    }
}
