package io.nodegate.lifecycle.verify;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RedfishTestServer;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * verify-gone --bmc: gpu-a11 was removed from cluster A; its BMC, bound by the systemUUID the baseline recorded, says
 * whether its machine is off. Informational: the run still passes on "nothing came back"; a BMC that cannot be read
 * makes it INVALID. Without --bmc the power state is listed as not checked.
 */
class VerifyGoneBmcTest extends SeededClusterTest {

    @Test
    void theRemovedHostsPowerStateIsShownFromItsBmc() throws Exception {
        assertThat(seedAndSaveBaseline().exitCode()).isZero();
        clock.set(seed.gateTime);
        api.client().nodes().withName("gpu-a11").delete();
        api.client().leases().inNamespace("kube-node-lease").withName("gpu-a11").delete();
        api.client().storage().v1().csiNodes().withName("gpu-a11").delete();
        api.client().secrets().inNamespace("kube-system").withName("gpu-a11.node-password.rke2").delete();
        TestCerts certs = TestCerts.create(Files.createDirectories(tmp.resolve("certs")));
        Path credentials = tmp.resolve("bmc.yaml");
        Files.writeString(credentials, "{\"username\": \"root\", \"password\": \"PW-MARKER-vg-77\"}");

        try (RedfishTestServer bmc = RedfishTestServer.start(certs.serverCert, certs.serverKey,
                RedfishTestServer.Layout.OPENBMC).account("root", "PW-MARKER-vg-77").system("system", "uuid-a11", "Off")
                .logEntry("2026-10-22T05:23:58Z", "OpenBMC.0.1.DCPowerOff", "Host system DC power is off", null)
                // its clock on this test's (virtual) clock, as an NTP-synchronised BMC's would be
                .clockOffset(java.time.Duration.between(java.time.Instant.now(), clock.instant()))) {
            CliRun v = cli("verify-gone", "--baseline", baseline.toString(), "--bmc", bmc.url(), "--bmc-credentials",
                    credentials.toString(), "--bmc-ca", certs.caCert.toString());

            assertThat(v.exitCode()).as(v.all()).isZero();
            assertThat(v.out()).containsIgnoringWhitespaces("PASS     power state of removed hosts (their BMCs)")
                    .containsPattern("gpu-a11: powered-off at 2026-10-22T05:2[34]:\\d\\dZ: ")
                    .containsIgnoringWhitespaces(bmc.url()
                            + "/redfish/v1/Systems/system PowerState=Off; last power-off: LogEntry "
                            + "/redfish/v1/Systems/system/LogServices/EventLog/Entries/1");
            assertThat(v.all()).doesNotContain("PW-MARKER-vg-77");

            bmc.failWith(503);
            CliRun busy = cli("verify-gone", "--baseline", baseline.toString(), "--bmc", bmc.url(), "--bmc-credentials",
                    credentials.toString(), "--bmc-ca", certs.caCert.toString());
            assertThat(busy.exitCode()).as(busy.all()).isEqualTo(3);
            assertThat(busy.out()).containsIgnoringWhitespaces("INVALID  power state of removed hosts (their BMCs)")
                    .containsIgnoringWhitespaces("gpu-a11: unreadable: no BMC read carries systemUUID uuid-a11");
        }

        CliRun without = cli("verify-gone", "--baseline", baseline.toString());
        assertThat(without.out()).containsIgnoringWhitespaces("not checked power state of removed hosts (their BMCs)")
                .containsIgnoringWhitespaces("no --bmc or --bmc-inventory given: the removed hosts' power state was not read from their BMCs")
                .containsPattern("\\): PASS \\(not checked: [a-z, -]*bmc\\)");
    }
}
