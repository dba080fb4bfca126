package io.nodegate.lifecycle.gate;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RedfishTestServer;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `nodegate gate --bmc` on seed 000's cluster A, with gpu-a11's BMC on real HTTPS: Off with a power-off logged seconds
 * after the Lease stopped passes and says so on the time-match line; On fails; a BMC that answers 503 is INVALID.
 * Nothing the run prints or records carries the BMC password.
 */
class GateBmcScenarioTest extends SeededClusterTest {

    static final String PASSWORD = "PW-MARKER-gate-51c0";

    RedfishTestServer bmc;
    Path credentials;
    TestCerts certs;

    @BeforeEach
    void setUp() throws IOException {
        CliRun saved = seedAndSaveBaseline();
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        clock.set(seed.gateTime);
        Path certDir = Files.createDirectories(tmp.resolve("certs"));
        certs = TestCerts.create(certDir);
        credentials = tmp.resolve("bmc.yaml");
        Files.writeString(credentials, "username: root\npassword: " + PASSWORD + "\n");
    }

    @AfterEach
    void stopBmc() {
        if (bmc != null) {
            bmc.close();
        }
    }

    CliRun gate(String... extra) {
        List<String> args = new ArrayList<>(List.of("gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at",
                seed.a11Reply, "--bmc", bmc.url(), "--bmc-credentials", credentials.toString(), "--bmc-ca",
                certs.caCert.toString()));
        args.addAll(List.of(extra));
        return cli(args.toArray(String[]::new));
    }

    /** gpu-a11's BMC, its clock set to this test's (virtual) clock, as an NTP-synchronised BMC's would be. */
    RedfishTestServer a11Bmc(String powerState) {
        return RedfishTestServer.start(certs.serverCert, certs.serverKey, RedfishTestServer.Layout.IDRAC)
                .account("root", PASSWORD).system("System.Embedded.1", "UUID-A11", powerState)
                .clockOffset(java.time.Duration.between(java.time.Instant.now(), clock.instant()));
    }

    String allEvidence() throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.list(evidence)) {
            for (Path p : files.toList()) {
                all.append(Files.readString(p));
            }
        }
        return all.toString();
    }

    @Test
    void offSecondsAfterTheLeaseStopPassesWithThePowerOffOnTheTimeMatchLine() throws IOException {
        String off = seed.a11Lease.plusSeconds(6).atOffset(ZoneOffset.ofHours(9)).toString();
        bmc = a11Bmc("Off").logEntry(off, null, "Power Unit: Power off/down", "Assert");

        CliRun run = gate();

        assertThat(run.exitCode()).as(run.all()).isZero();
        assertThat(run.out()).containsIgnoringWhitespaces("gate gpu-a11: PASS")
                .containsIgnoringWhitespaces("[bmc]        PASS     host powered off (its BMC)")
                .containsIgnoringWhitespaces("        power: powered-off")
                .containsIgnoringWhitespaces("        source: " + bmc.url() + "/redfish/v1/Systems/System.Embedded.1 PowerState=Off; "
                        + "last power-off: LogEntry /redfish/v1/Managers/iDRAC.Embedded.1/LogServices/Sel/Entries/1");
        // the evidence line breaks between words within 120 columns: read it with its continuation lines joined
        String joined = run.out().replaceAll("\\s+", " ");
        // a few seconds of the test's own running show as the BMC clock's offset: 6 s, give or take
        assertThat(joined).containsPattern("bmcPowerOff: powered off at \\S+, \\d+s after the Lease's last renewal "
                + "\\(within ±5m\\): the Lease stopped when the power went off, positive evidence of a shutdown \\(BMC "
                + bmc.url() + ", ");
        assertThat(bmc.requests().stream().map(r -> r.substring(0, r.indexOf(' '))).distinct()).containsExactly("GET");
        assertThat(run.all() + allEvidence()).doesNotContain(PASSWORD);
    }

    @Test
    void aRunningHostWithASilentLeaseFails() throws IOException {
        bmc = a11Bmc("On");

        CliRun run = gate("--bmc-session");

        assertThat(run.exitCode()).as(run.all()).isEqualTo(5);
        assertThat(run.out()).containsIgnoringWhitespaces("gate gpu-a11: FAIL")
                .containsIgnoringWhitespaces("[bmc]        FAIL     host powered off (its BMC)")
                .containsIgnoringWhitespaces("a running host is not cleaned up: its BMC says PowerState On while its Lease is silent");
        assertThat(bmc.openSessions()).isZero();
        assertThat(run.all() + allEvidence()).doesNotContain(PASSWORD);
    }

    @Test
    void aBmcAnswering503IsInvalidForTheCheckAndTheRun() {
        bmc = a11Bmc("Off").failWith(503);

        CliRun run = gate();

        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.out()).containsIgnoringWhitespaces("gate gpu-a11: INVALID").containsIgnoringWhitespaces("[bmc]        INVALID")
                .containsIgnoringWhitespaces("the BMC evidence is unreadable (no BMC read carries systemUUID uuid-a11, but " + bmc.url()
                        + " (GET /redfish/v1: HTTP 503 (the BMC is busy or not ready)");
    }
}
