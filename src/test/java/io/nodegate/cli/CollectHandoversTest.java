package io.nodegate.cli;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.nodegate.deploy.CrdRules;
import io.nodegate.handover.NodeHandover;
import io.nodegate.lifecycle.SeedCluster;
import io.nodegate.handover.run.HandoverApi;
import io.nodegate.source.kube.ApiReader;
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
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
        api.setGitVersion("v1.34.3+rke2r3");
        CrdRules.install(api);
        Instant fiveDaysAgo = Instant.now().minus(Duration.ofDays(5)).truncatedTo(ChronoUnit.SECONDS);
        api.create(cordonedBy(SeedCluster.node("gpu-a07", "192.0.2.107", "True", true, Map.of(), "boot-a07",
                "uuid-a07", 8, Instant.now(), null), "kubectl", fiveDaysAgo));
        api.create(cordonedBy(SeedCluster.node("gpu-x01", "192.0.2.201", "True", true, Map.of(), "boot-x01",
                "uuid-x01", 8, Instant.now(), null), "rancher", fiveDaysAgo));
        kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void anOfflineAuditOfACollectionJudgesTheCordonsAsTheLiveAuditDoes() throws Exception {
        // nodegate's own record of seed 000's case 2 (gpu-a06..a10, open), stored as `handover open` stores it
        NodeHandover record = HandoverApi.readSaved(Path.of("examples/handover-case-2/nodehandover.json"));
        new HandoverApi(new ApiReader(api.client())).create(new NodeHandover(record.apiVersion(), record.kind(),
                new NodeHandover.Meta(record.metadata().name(), null, null, null), record.spec(), null));

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

    /** The Node as a LIST returns it after {@code manager} cordoned it: the taint and the managedFields entry. */
    private static Node cordonedBy(Node node, String manager, Instant at) {
        node.getSpec().setTaints(List.of(new TaintBuilder().withKey("node.kubernetes.io/unschedulable")
                .withEffect("NoSchedule").withTimeAdded(at.toString()).build()));
        node.getMetadata().setManagedFields(List.of(
                new ManagedFieldsEntryBuilder().withApiVersion("v1").withFieldsType("FieldsV1")
                        .withNewFieldsV1().addToAdditionalProperties("f:spec",
                                Map.of("f:unschedulable", Map.of())).endFieldsV1()
                        .withManager(manager).withOperation("Update").withTime(at.toString()).build()));
        return node;
    }
}
