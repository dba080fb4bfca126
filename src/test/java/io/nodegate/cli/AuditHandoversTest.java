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

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
    void anOpenHandoverExplainsItsTargetsCordonAndNoOther() {
        // nodegate's own record of seed 000's case 2 (gpu-a06..a10, open), stored as `handover open` stores it
        NodeHandover record = HandoverApi.readSaved(Path.of("examples/handover-case-2/nodehandover.json"));
        new HandoverApi(new ApiReader(api.client())).create(new NodeHandover(record.apiVersion(), record.kind(),
                new NodeHandover.Meta(record.metadata().name(), null, null, null), record.spec(), null));

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

    /** The Node as a LIST returns it after {@code manager} cordoned it: the taint and the managedFields entry. */
    private static Node cordonedBy(Node node, String manager, Instant at) {
        node.getSpec().setTaints(List.of(new TaintBuilder().withKey("node.kubernetes.io/unschedulable")
                .withEffect("NoSchedule").withTimeAdded(at.toString()).build()));
        node.getMetadata().setManagedFields(List.of(
                new ManagedFieldsEntryBuilder().withApiVersion("v1").withFieldsType("FieldsV1")
                        .withNewFieldsV1().addToAdditionalProperties("f:status", Map.of()).endFieldsV1()
                        .withManager("kubelet").withOperation("Update").withSubresource("status")
                        .withTime(Instant.now().toString()).build(),
                new ManagedFieldsEntryBuilder().withApiVersion("v1").withFieldsType("FieldsV1")
                        .withNewFieldsV1().addToAdditionalProperties("f:spec",
                                Map.of("f:unschedulable", Map.of())).endFieldsV1()
                        .withManager(manager).withOperation("Update").withTime(at.toString()).build()));
        return node;
    }
}
