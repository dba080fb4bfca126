package io.nodegate.cli;

import io.nodegate.testing.BmcStory;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.FieldCaptures;
import io.nodegate.testing.RedfishTestServer;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** `nodegate bmc` on examples/cluster-a-batch-stop with the batch's four BMCs, over real HTTPS. */
class BmcCommandTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    static Path dir;
    static TestCerts certs;
    static BmcStory story;

    @BeforeAll
    static void start() {
        certs = TestCerts.create(dir);
        story = BmcStory.start(certs, dir);
    }

    @AfterAll
    static void stop() {
        story.close();
    }

    private static CliRun bmc(String... extra) {
        List<String> args = new ArrayList<>(List.of("bmc", "-f", BmcStory.EXAMPLE));
        args.addAll(List.of(extra));
        args.addAll(story.flags());
        return CliRun.run(args.toArray(String[]::new));
    }

    @Test
    void theBatchIsThreeRunningHostsAndOnePoweredOffEachWithItsSource() throws Exception {
        CliRun run = bmc("gpu-a07", "gpu-a08", "gpu-a09", "gpu-a10", "keep-1", "-o", "json");

        assertThat(run.exitCode()).as(run.all()).isZero();
        JsonNode nodes = JSON.readTree(run.out()).get("nodes");
        assertThat(nodes).hasSize(5);
        JsonNode a07 = nodes.get(0);
        assertThat(a07.get("power").asString()).isEqualTo("running");
        assertThat(a07.get("ready").asString()).isEqualTo("Unknown");
        assertThat(a07.get("bmc").asString()).isEqualTo(story.a07.url());
        assertThat(a07.get("source").asString()).isEqualTo(story.a07.url()
                + "/redfish/v1/Systems/System.Embedded.1 PowerState=On; BootProgress OSRunning at 2026-10-16T04:13:02Z");
        JsonNode a10 = nodes.get(3);
        assertThat(a10.get("power").asString()).isEqualTo("powered-off");
        assertThat(a10.get("poweredOffAt").asString()).startsWith("2026-10-22T05:23:5");
        assertThat(a10.get("powerOffEntry").asString()).isEqualTo("/redfish/v1/Managers/BMC/LogServices/Log/Entries/3");
        assertThat(a10.get("source").asString()).contains("PowerState=Off; last power-off: LogEntry "
                + "/redfish/v1/Managers/BMC/LogServices/Log/Entries/3 Created 2026-10-22T05:23:58Z "
                + "(System ACPI Power State: S5/G2: soft-off)");
        JsonNode keep = nodes.get(4);
        assertThat(keep.get("power").asString()).isEqualTo("not-found");
        assertThat(keep.get("source").asString()).isEqualTo("no BMC read carries systemUUID "
                + "97e626a4-1b06-577b-9982-91c82c43d703 (4 BMC(s), 4 system(s) read)");
        assertThat(run.all()).doesNotContain(BmcStory.PASSWORD);
    }

    @Test
    void theTableShowsReadyLeaseAndTaintsBesideThePower() {
        CliRun run = bmc("gpu-a07", "gpu-a10");

        assertThat(run.exitCode()).as(run.all()).isZero();
        assertThat(run.out()).contains("NODE      READY     LEASE    TAINTS")
                .containsPattern("gpu-a07 +Unknown +46m17s +gpu,unschedulable,unreachable +running +-\n")
                .containsPattern("gpu-a10 +Unknown +46m7s .* powered-off +2026-10-22T05:23:58Z\n")
                .contains("Sources:\n  gpu-a07: " + story.a07.url() + "/redfish/v1/Systems/System.Embedded.1");
        // -o wide adds the BMC's address and the UUID the binding rests on
        assertThat(bmc("gpu-a07", "-o", "wide").out()).contains("nvidia.com/gpu:NoSchedule,unschedulable:NoSchedule,"
                + "unreachable:NoSchedule,unreachable:NoExecute").containsPattern("running +- +https://127\\.0\\.0\\.1:\\d+ +"
                + BmcStory.A07);
    }

    @Test
    void aBusyBmcMakesItsHostUnreadableAndTheRunExit3NamingIt() {
        RedfishTestServer busy = RedfishTestServer.start(certs.serverCert, certs.serverKey,
                RedfishTestServer.Layout.DMTF).failWith(503);
        try {
            CliRun run = bmc("gpu-a07", "gpu-a01", "--bmc", busy.url());

            assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
            assertThat(run.out()).contains("Unreadable BMCs (never evidence either way):\n  " + busy.url()
                    + ": GET /redfish/v1: HTTP 503 (the BMC is busy or not ready)");
            assertThat(run.out()).containsPattern("gpu-a07 .* running ");
            assertThat(run.out()).containsPattern("gpu-a01 .* unreadable ");
            assertThat(run.err()).contains("BMC " + busy.url() + ": GET /redfish/v1: HTTP 503");
        } finally {
            busy.close();
        }
    }

    @Test
    void aCertificateTheCaDoesNotSignIsExit3NamingTheBmc() {
        // a certificate for the right address from a CA --bmc-ca does not hold (another rack's, a re-flashed BMC's)
        TestCerts.Serving other = certs.kubeletServing(certs.authority("rogue-ca", "idrac-rogue-ca"), "rogue",
                "idrac-rogue", "127.0.0.1");
        RedfishTestServer rogue = RedfishTestServer.start(other.chain(), other.key(),
                RedfishTestServer.Layout.IDRAC).account("root", BmcStory.PASSWORD);
        try {
            CliRun run = bmc("gpu-a07", "--bmc", rogue.url());

            assertThat(run.exitCode()).isEqualTo(3);
            assertThat(run.err()).contains("BMC " + rogue.url() + ": GET /redfish/v1: TLS failed");
            assertThat(rogue.requests()).isEmpty();
            assertThat(run.all()).doesNotContain(BmcStory.PASSWORD);
        } finally {
            rogue.close();
        }
    }

    @Test
    void skippingVerificationIsSaidOnEveryRun() {
        List<String> args = new ArrayList<>(List.of("bmc", "-f", BmcStory.EXAMPLE, "gpu-a08", "--bmc", story.a08.url(),
                "--bmc-credentials", story.credentials.toString(), "--bmc-insecure-skip-tls-verify"));

        CliRun run = CliRun.run(args.toArray(String[]::new));

        assertThat(run.exitCode()).as(run.all()).isZero();
        assertThat(run.err()).startsWith("warning: --bmc-insecure-skip-tls-verify: BMC certificates are not verified");
        assertThat(run.out()).containsPattern("gpu-a08 .* running ");
    }

    @Test
    void badInputIsExit2BeforeAnyBmcIsAsked() throws Exception {
        int before = story.a07.requests().size();
        assertThat(CliRun.run("bmc", "-f", BmcStory.EXAMPLE).err()).contains("needs the BMCs to ask");
        assertThat(CliRun.run("bmc", "-f", BmcStory.EXAMPLE, "--bmc", "http://10.0.30.7", "--bmc-credentials",
                story.credentials.toString()).err()).contains("plain HTTP would send the BMC password in the clear");
        assertThat(CliRun.run("bmc", "-f", BmcStory.EXAMPLE, "--bmc", story.a07.url()).err())
                .contains("no credentials (give --bmc-credentials FILE)");
        assertThat(CliRun.run("bmc", "-f", BmcStory.EXAMPLE, "--bmc", story.a07.url(), "--bmc-credentials",
                story.credentials.toString(), "--bmc-ca", story.ca.toString(), "--bmc-insecure-skip-tls-verify")
                .exitCode()).isEqualTo(2);
        assertThat(CliRun.run("bmc", "-f", BmcStory.EXAMPLE, "no-such-node", "--bmc", story.a07.url(),
                "--bmc-credentials", story.credentials.toString()).err()).contains("Node no-such-node not found");
        Path broken = dir.resolve("broken.yaml");
        Files.writeString(broken, "username: root\npassword: \"" + BmcStory.PASSWORD + "\n  : [");
        CliRun bad = CliRun.run("bmc", "-f", BmcStory.EXAMPLE, "--bmc", story.a07.url(), "--bmc-credentials",
                broken.toString());
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--bmc-credentials " + broken + ": not valid YAML or JSON");
        assertThat(bad.all()).doesNotContain(BmcStory.PASSWORD);
        assertThat(story.a07.requests()).hasSize(before);
    }

    @Test
    void aBaseboardUuidTwoGpuTraysShareIsReportedAndChangesNoVerdictNorTheExitCode() throws Exception {
        // two real Supermicro GB300 NVL trays (NVIDIA OpenBMC, ../shared/field/redfish): each lists HGX_Baseboard_0
        // with UUID c01dc250-5678-11ed-9b6a-0242ac120002, a version-1 UUID whose node field is a Docker bridge MAC
        try (RedfishTestServer n1 = RedfishTestServer.capture(certs.serverCert, certs.serverKey,
                FieldCaptures.redfish("supermicro-gb300-nvl-n1")).account("root", BmcStory.PASSWORD);
             RedfishTestServer n2 = RedfishTestServer.capture(certs.serverCert, certs.serverKey,
                     FieldCaptures.redfish("supermicro-gb300-nvl-n2")).account("root", BmcStory.PASSWORD)) {
            List<String> args = new ArrayList<>(List.of("bmc", "-f", BmcStory.EXAMPLE, "gpu-a07", "gpu-a10"));
            args.addAll(story.flags());
            args.addAll(List.of("--bmc", n1.url(), "--bmc", n2.url()));

            CliRun json = CliRun.run(java.util.stream.Stream.concat(args.stream(), java.util.stream.Stream.of("-o",
                    "json")).toArray(String[]::new));
            CliRun table = CliRun.run(args.toArray(String[]::new));

            assertThat(json.exitCode()).as(json.all()).isZero();
            JsonNode out = JSON.readTree(json.out());
            assertThat(out.get("nodes").get(0).get("power").asString()).isEqualTo("running");
            assertThat(out.get("nodes").get(1).get("power").asString()).isEqualTo("powered-off");
            JsonNode dup = out.get("duplicateUuids");
            assertThat(dup).hasSize(1);
            assertThat(dup.get(0).get("uuid").asString()).isEqualTo("c01dc250-5678-11ed-9b6a-0242ac120002");
            assertThat(dup.get(0).get("systems")).extracting(s -> s.get("bmc").asString() + s.get("system").asString())
                    .containsExactly(n1.url() + "/redfish/v1/Systems/HGX_Baseboard_0",
                            n2.url() + "/redfish/v1/Systems/HGX_Baseboard_0");
            assertThat(dup.get(0).get("nodes")).isEmpty();
            assertThat(table.exitCode()).as(table.all()).isZero();
            // the table wraps long lines: compare with the whitespace folded
            assertThat(table.out().replaceAll("\\s+", " ")).contains("UUIDs reported by more than one system:")
                    .contains("no Node has it: a UUID several machines share identifies none of them");
        }
    }

    @Test
    void aPasswordInABmcUrlIsAUsageErrorThatNeverEchoesIt() throws Exception {
        Path inventory = Files.writeString(dir.resolve("pw-inventory.yaml"), "bmcs:\n  - url: https://root:"
                + BmcStory.PASSWORD + "@10.0.30.9\n");
        for (List<String> flags : List.of(List.of("--bmc", "https://root:" + BmcStory.PASSWORD + "@10.0.30.7"),
                List.of("--bmc", "https://root:" + BmcStory.PASSWORD + " @10.0.30.7"),
                List.of("--bmc-inventory", inventory.toString()))) {
            List<String> args = new ArrayList<>(List.of("bmc", "-f", BmcStory.EXAMPLE));
            args.addAll(flags);
            args.addAll(List.of("--bmc-credentials", story.credentials.toString()));

            CliRun run = CliRun.run(args.toArray(String[]::new));

            assertThat(run.exitCode()).as(run.all()).isEqualTo(2);
            assertThat(run.all()).doesNotContain(BmcStory.PASSWORD).contains("<user:password hidden>@10.0.30.");
        }
    }
}
