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

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** `audit --bmc`: the seed's batch read against its hosts' BMCs gives NG304 for the three that were running. */
class AuditBmcTest {

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

    private static CliRun audit(String... extra) {
        List<String> args = new ArrayList<>(List.of("audit", "-f", BmcStory.EXAMPLE, "-o", "json"));
        args.addAll(story.flags());
        args.addAll(List.of(extra));
        return CliRun.run(args.toArray(String[]::new));
    }

    @Test
    void theThreeHostsThatWentToClusterBAreRunningButSilentAndA10IsNot() throws Exception {
        CliRun run = audit();

        assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
        JsonNode report = JSON.readTree(run.out());
        List<String> ng304 = new ArrayList<>();
        report.get("findings").forEach(f -> {
            if (f.get("code").asString().equals("NG304")) {
                ng304.add(f.get("nodes").get(0).asString());
            }
        });
        assertThat(ng304).containsExactly("gpu-a07", "gpu-a08", "gpu-a09");
        assertThat(report.get("findings").toString()).doesNotContain("NG305");
        assertThat(report.get("notes").toString()).contains("BMCs asked over Redfish: 4 (4 systems); Nodes: "
                + "30 not-found, 1 powered-off, 3 running");
        assertThat(run.all()).doesNotContain(BmcStory.PASSWORD);
    }

    @Test
    void withoutBmcTheAuditIsWhatItWasAndSkipSilencesNg304() {
        CliRun plain = CliRun.run("audit", "-f", BmcStory.EXAMPLE, "-o", "json");
        assertThat(plain.out()).doesNotContain("NG304").doesNotContain("BMCs asked");

        CliRun skipped = audit("--skip", "NG304");
        assertThat(skipped.out()).doesNotContain("\"NG304\"");
    }

    @Test
    void aBmcThatCannotBeReadPrintsTheReportThenExits3() {
        RedfishTestServer busy = RedfishTestServer.start(certs.serverCert, certs.serverKey,
                RedfishTestServer.Layout.DMTF).failWith(503);
        try {
            CliRun run = audit("--bmc", busy.url());

            assertThat(run.exitCode()).isEqualTo(3);
            assertThat(run.out()).contains("unreadable (never evidence either way): BMC " + busy.url()
                    + ": GET /redfish/v1: HTTP 503");
            assertThat(run.out()).contains("\"NG304\"");
            assertThat(run.err()).contains("BMC " + busy.url() + ": GET /redfish/v1: HTTP 503");
        } finally {
            busy.close();
        }
    }

    @Test
    void aBaseboardUuidTwoGpuTraysShareIsANoteAndTheExitCodeStaysThatOfTheFindings() throws Exception {
        // the real GB300 NVL trays of ../shared/field/redfish: both list HGX_Baseboard_0 with one UUID, no Node has it
        try (RedfishTestServer n1 = RedfishTestServer.capture(certs.serverCert, certs.serverKey,
                FieldCaptures.redfish("supermicro-gb300-nvl-n1")).account("root", BmcStory.PASSWORD);
             RedfishTestServer n2 = RedfishTestServer.capture(certs.serverCert, certs.serverKey,
                     FieldCaptures.redfish("supermicro-gb300-nvl-n2")).account("root", BmcStory.PASSWORD)) {
            CliRun run = audit("--bmc", n1.url(), "--bmc", n2.url());

            assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
            JsonNode report = JSON.readTree(run.out());
            assertThat(report.get("notes").toString()).contains("UUID c01dc250-5678-11ed-9b6a-0242ac120002 is reported "
                    + "by 2 systems").contains("reported, not a failed collection").doesNotContain("unreadable");
        }
    }
}
