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

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The live audit reads NodeHandovers for NG171: a cordon an open hand-over names is explained; one it does not is a
 * warning naming who cordoned it (from the managedFields the LIST returns); a hand-over read that is refused leaves
 * NG171 at info with a note, never "no hand-over".
 */
class AuditHandoversTest {

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
    void anOpenHandoverExplainsItsTargetsCordonAndNoOther() {
        CordonedPair.openCase2(api);

        JsonNode report = audit();
        assertThat(ng171(report)).singleElement().satisfies(f -> {
            assertThat(f.get("nodes").get(0).asString()).isEqualTo("gpu-x01");
            assertThat(f.get("severity").asString()).isEqualTo("warning");
            assertThat(f.get("message").asString()).contains("cordoned by rancher (Update) for 5d",
                    "no open hand-over names it");
        });
        JsonNode a07 = node(report, "gpu-a07");
        assertThat(a07.get("cordonedBy").asString()).isEqualTo("kubectl");
        assertThat(a07.get("cordonAgeSeconds").asLong()).isBetween(5L * 86_400, 5L * 86_400 + 600);
    }

    @Test
    void withoutTheCrdThereIsNoHandoverToExplainEither() {
        api.unserve(NodeHandover.PATH);
        assertThat(ng171(audit())).hasSize(2).allSatisfy(f ->
                assertThat(f.get("severity").asString()).isEqualTo("warning"));
    }

    @Test
    void aRefusedHandoverReadLeavesItAtInfoAndSaysSo() {
        api.failOn("GET", NodeHandover.PATH, 403);
        JsonNode report = audit();
        assertThat(ng171(report)).hasSize(2).allSatisfy(f -> {
            assertThat(f.get("severity").asString()).isEqualTo("info");
            assertThat(f.get("message").asString()).contains("cannot be ruled out");
        });
        assertThat(report.get("notes").toString()).contains("NodeHandovers could not be read",
                "NG171 cannot rule an open hand-over out");
    }

    private JsonNode audit() {
        CliRun run = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "-o", "json");
        assertThat(run.exitCode()).as(run.all()).isIn(0, 1);
        return JsonMapper.builder().build().readTree(run.out());
    }

    private static List<JsonNode> ng171(JsonNode report) {
        List<JsonNode> out = new ArrayList<>();
        report.get("findings").forEach(f -> {
            if (f.get("code").asString().equals("NG171")) {
                out.add(f);
            }
        });
        return out;
    }

    private static JsonNode node(JsonNode report, String name) {
        for (JsonNode n : report.get("nodes")) {
            if (n.get("name").asString().equals(name)) {
                return n;
            }
        }
        throw new AssertionError("no node " + name);
    }

}
