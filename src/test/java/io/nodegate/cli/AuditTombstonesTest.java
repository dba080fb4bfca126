package io.nodegate.cli;

import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** `audit` reads the tombstones ConfigMap as one more kind and reports NG302 for a removed host that is back. */
class AuditTombstonesTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private static String node(String name, String uuid, String machineId) {
        return """
                {"apiVersion":"v1","kind":"Node","metadata":{"name":"%s","uid":"uid-%s",
                 "creationTimestamp":"2026-10-26T07:02:11Z"},
                 "status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady",
                   "lastHeartbeatTime":"2026-10-26T07:40:00Z","lastTransitionTime":"2026-10-26T07:02:40Z"}],
                   "nodeInfo":{"systemUUID":"%s","machineID":"%s","bootID":"b-%s","kubeletVersion":"v1.34.3+rke2r3"}}}
                """.formatted(name, name, uuid, machineId, name);
    }

    private void writeTombstones(TombstoneBook book) throws Exception {
        ObjectNode cm = JSON.createObjectNode();
        cm.put("apiVersion", "v1").put("kind", "ConfigMap");
        cm.putObject("metadata").put("name", "nodegate-tombstones").put("namespace", "nodegate-system");
        ObjectNode data = cm.putObject("data");
        book.data().forEach(data::put);
        Files.writeString(dir.resolve("tombstones.json"), JSON.writeValueAsString(cm));
    }

    @Test
    void aRenamedHostWhoseMachineIdIsTombstonedIsNg302InAudit() throws Exception {
        Files.writeString(dir.resolve("nodes.json"), "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
                + node("new-11", "4C4C4544-0000-1111-2222-333344445555", "a11machine") + ","
                + node("keep-1", "4C4C4544-9999-1111-2222-333344445555", "keepmachine") + "]}");
        // the removed host's board reported an all-zero UUID, so its machine-id was its one identity (a machine-id
        // found under another firmware UUID than the tombstone's would be an image's, and match nothing)
        writeTombstones(TombstoneBook.empty().with(new Tombstone("gpu-a11", "uid-old", "00000000-0000-0000-0000-000000000000",
                "A11MACHINE", Instant.parse("2026-10-21T06:31:10Z"), "c0ffee", "kim via kubeconfig user ops")));

        CliRun run = CliRun.run("audit", "-f", dir.toString(), "--now", "2026-10-26T08:00:00Z", "-o", "json");

        assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
        JsonNode findings = JSON.readTree(run.out()).get("findings");
        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.get("code").asString()).isEqualTo("NG302");
            assertThat(f.get("nodes").get(0).asString()).isEqualTo("new-11");
            assertThat(f.get("evidence").get("matchedBy").asString()).isEqualTo("machineID");
            assertThat(f.get("message").asString()).startsWith("gpu-a11 was removed at 2026-10-21T06:31:10Z, and the"
                    + " same host (machineID a11machine) is registered again as new-11");
        });
        assertThat(CliRun.run("audit", "-f", dir.toString(), "--now", "2026-10-26T08:00:00Z", "--skip", "NG302")
                .exitCode()).isZero();
    }

    @Test
    void inputWithoutTombstonesSaysSoInsteadOfClaimingNobodyWasRemoved() throws Exception {
        Files.writeString(dir.resolve("nodes.json"), node("keep-1", "4C4C4544-9999-1111-2222-333344445555", "k"));

        CliRun run = CliRun.run("audit", "-f", dir.toString(), "--now", "2026-10-26T08:00:00Z", "-o", "json");

        assertThat(run.exitCode()).as(run.all()).isZero();
        assertThat(JSON.readTree(run.out()).get("notes").toString()).contains("nodegate-tombstones");
    }
}
