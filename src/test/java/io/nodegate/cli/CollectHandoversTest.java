package io.nodegate.cli;

import io.nodegate.handover.NodeHandover;
import io.nodegate.testing.CordonedPair;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `collect` saves the NodeHandovers it can read, so `audit -f` of the directory judges NG171 (a cordon an open
 * hand-over explains) as the live audit does; a hand-over read that fails is said and nothing is saved, so the
 * offline audit keeps NG171 at info; a cluster without the CRD has none open, and the empty list says so.
 */
class CollectHandoversTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path tmp;
    private ApiTestServer api;
    private Path kubeconfig;

    @BeforeEach
    void serve() {
        api = ApiTestServer.start();
        CordonedPair.serve(api);
        kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void anOfflineAuditOfACollectionJudgesTheCordonsAsTheLiveAuditDoes() throws Exception {
        NodeHandover record = CordonedPair.openCase2(api);

        Path dir = collect();
        JsonNode saved = JSON.readTree(Files.readString(dir.resolve("nodehandovers.json")));
        assertThat(saved.get("kind").asString()).isEqualTo("NodeHandoverList");
        assertThat(saved.get("items")).hasSize(1);
        assertThat(saved.get("items").get(0).get("metadata").get("name").asString())
                .isEqualTo(record.metadata().name());

        List<String> live = summary(run("audit", "--kubeconfig", kubeconfig.toString(), "-o", "json"));
        List<String> offline = summary(run("audit", "-f", dir.toString(), "-o", "json"));
        assertThat(offline).containsExactly("NG171 gpu-x01 warning").isEqualTo(live);
    }

    @Test
    void aRefusedReadIsSaidAndNothingIsSavedSoTheOfflineAuditKeepsItAtInfo() {
        api.failOn("GET", NodeHandover.PATH, 403);
        CliRun collect = CliRun.run("collect", "--kubeconfig", kubeconfig.toString(), "--dir",
                tmp.resolve("dump").toString());
        assertThat(collect.exitCode()).as(collect.all()).isZero();
        assertThat(collect.out()).containsIgnoringWhitespaces("NodeHandovers could not be read",
                "NG171 at info");
        assertThat(tmp.resolve("dump").resolve("nodehandovers.json")).doesNotExist();
        assertThat(summary(run("audit", "-f", tmp.resolve("dump").toString(), "-o", "json")))
                .containsExactly("NG171 gpu-a07 info", "NG171 gpu-x01 info");
    }

    @Test
    void withoutTheCrdNoneIsOpenAndTheEmptyListSaysSo() throws Exception {
        api.unserve(NodeHandover.PATH);
        Path dir = collect();
        assertThat(JSON.readTree(Files.readString(dir.resolve("nodehandovers.json"))).get("items")).isEmpty();
        assertThat(summary(run("audit", "-f", dir.toString(), "-o", "json")))
                .containsExactly("NG171 gpu-a07 warning", "NG171 gpu-x01 warning");
    }

    private Path collect() {
        Path dir = tmp.resolve("dump");
        CliRun collect = CliRun.run("collect", "--kubeconfig", kubeconfig.toString(), "--dir", dir.toString());
        assertThat(collect.exitCode()).as(collect.all()).isZero();
        assertThat(collect.out()).contains("nodehandovers.json");
        return dir;
    }

    private static JsonNode run(String... args) {
        CliRun run = CliRun.run(args);
        assertThat(run.exitCode()).as(run.all()).isIn(0, 1);
        return JSON.readTree(run.out());
    }

    /** "CODE node severity" of every NG171 finding. */
    private static List<String> summary(JsonNode report) {
        List<String> out = new ArrayList<>();
        report.get("findings").forEach(f -> {
            if (f.get("code").asString().equals("NG171")) {
                out.add("NG171 " + f.get("nodes").get(0).asString() + " " + f.get("severity").asString());
            }
        });
        return out;
    }

}
