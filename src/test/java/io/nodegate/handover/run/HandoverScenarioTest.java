package io.nodegate.handover.run;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.SeedCluster;
import io.nodegate.source.kube.ApiReader;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.nodegate.deploy.CrdRules;
import io.nodegate.handover.NodeHandover;
import io.nodegate.handover.StepRecord;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

import javax.xml.parsers.DocumentBuilderFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 000's gpu-a11, handed to cluster B through the whole procedure on two API test servers with the NodeHandover
 * CRD installed (its rules reviewed on every write): open, each step recorded only when its checks pass, the
 * lifecycle's own gate, remove and verify-gone in between, the host admitted in B, the record, the close, the page.
 */
class HandoverScenarioTest extends SeededClusterTest {

    /** The agreed date, a month ahead: `open` refuses one in the past. */
    private static final String DUE = java.time.LocalDate.now(java.time.ZoneOffset.UTC).plusDays(30).toString();

    private ApiTestServer clusterB;
    private Path kubeconfigB;

    @BeforeEach
    void setUp() {
        pollInterval = Duration.ofSeconds(5);
        CliRun saved = seedAndSaveBaseline();
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        CrdRules.install(api);
        clusterB = ApiTestServer.start();
        kubeconfigB = clusterB.writeKubeconfig(tmp.resolve("b.yaml"), "cluster-b");
        clusterB.create(SeedCluster.node("b-ctl-1", "198.51.100.50", "True", false,
                Map.of("node-role.kubernetes.io/control-plane", "true"), "boot-b-ctl-1", "uuid-b-ctl-1", 0,
                Instant.now(), null));
    }

    @AfterEach
    void stopB() {
        clusterB.close();
    }

    private NodeHandover read() {
        return new HandoverApi(new ApiReader(client)).get("a11-to-b").orElseThrow();
    }

    private CliRun open() {
        return cli("handover", "open", "a11-to-b", "--nodes", "gpu-a11", "--type", "move", "--to", "cluster-b",
                "--due", DUE, "--requester", "lee", "--ticket", "https://chat.example/t/1",
                "--note", "gpu-a11 to team B");
    }

    /** gpu-a11's host (same systemUUID and machineID) registered in cluster B as b-gpu-11. */
    private void gpuA11JoinsClusterB() {
        Node n = SeedCluster.node("b-gpu-11", "198.51.100.71", "True", false,
                Map.of("node-role.kubernetes.io/burnin", "true"), "boot-b11", "uuid-a11", 8, clock.instant(), null);
        n.getStatus().getNodeInfo().setMachineID("machine-gpu-a11");
        clusterB.create(n);
    }

    @Test
    void gpuA11IsHandedToClusterBStepByStep() throws Exception {
        CliRun opened = open();
        assertThat(opened.exitCode()).as(opened.all()).isZero();
        NodeHandover h = read();
        assertThat(h.spec().steps()).extracting(StepRecord::step).containsExactly(0);
        assertThat(h.spec().targets()).singleElement().satisfies(t -> {
            assertThat(t.uid()).isEqualTo(client.nodes().withName("gpu-a11").get().getMetadata().getUid());
            assertThat(t.systemUuid()).isEqualTo("uuid-a11");
            assertThat(t.gpus()).isEqualTo(8L);
            assertThat(t.taints()).contains("nvidia.com/gpu:NoSchedule");
        });
        assertThat(h.status().step()).isEqualTo("0: request");
        assertThat(h.status().next()).isEqualTo("1: empty: PASS");
        assertThat(opened.out()).contains("[1] PASS        cordoned: gpu-a11",
                "[1] PASS        only DaemonSet or mirror pods: gpu-a11", "[1] not checked silences effective");

        // a step out of order is an input error, and nothing is recorded
        CliRun early = cli("handover", "step", "a11-to-b", "2", "--by", "infra-kim", "--removed-at", seed.a11Reply);
        assertThat(early.exitCode()).as(early.all()).isEqualTo(2);
        assertThat(early.err()).contains("step 2: the next step of a11-to-b is 1 (empty)");

        CliRun one = cli("handover", "step", "a11-to-b", "1", "--by", "kim", "--note", "cordoned and drained");
        assertThat(one.exitCode()).as(one.all()).isZero();
        assertThat(read().step(1).orElseThrow().value("pods/gpu-a11")).hasValueSatisfying(v ->
                assertThat(v).contains("2 bound (2 DaemonSet/mirror/finished)"));

        CliRun two = cli("handover", "step", "a11-to-b", "2", "--by", "infra-kim", "--removed-at",
                "gpu-a11=" + seed.a11Reply);
        assertThat(two.exitCode()).as(two.all()).isZero();
        assertThat(read().step(2).orElseThrow().value("removedAt/gpu-a11")).contains(seed.t0.plus(
                Duration.ofMinutes(69)).toString());

        // step 3 before the gate: HOLD, nothing recorded
        CliRun three = cli("handover", "step", "a11-to-b", "3", "--by", "kim", "--baseline", baseline.toString());
        assertThat(three.exitCode()).as(three.all()).isEqualTo(4);
        assertThat(three.err()).contains("was not recorded", "no gate record for gpu-a11");
        assertThat(read().recorded(3)).isFalse();

        clock.set(seed.gateTime);
        assertThat(cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", seed.a11Reply)
                .exitCode()).isZero();
        playGarbageCollector("gpu-a11");
        CliRun removed = cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--handed-to", "cluster-b");
        assertThat(removed.exitCode()).as(removed.all()).isZero();
        CliRun firstCheck = cli("verify-gone", "--baseline", baseline.toString());
        assertThat(firstCheck.exitCode()).as(firstCheck.all()).isZero();

        three = cli("handover", "step", "a11-to-b", "3", "--by", "kim", "--baseline", baseline.toString());
        assertThat(three.exitCode()).as(three.all()).isZero();
        StepRecord s3 = read().step(3).orElseThrow();
        assertThat(s3.value("gate/gpu-a11")).hasValueSatisfying(v -> assertThat(v).startsWith("PASS "));
        assertThat(s3.value("leaseStopped/gpu-a11")).contains(seed.a11Lease.toString());
        assertThat(s3.value("removal/gpu-a11")).hasValueSatisfying(v -> assertThat(v).startsWith("complete deleted ")
                .endsWith(" handed to cluster-b"));
        assertThat(s3.value("verifyGone")).hasValueSatisfying(v -> assertThat(v).startsWith("PASS "));

        CliRun four = cli("handover", "step", "a11-to-b", "4", "--by", "infra-kim", "--new-name",
                "gpu-a11=b-gpu-11", "--new-ip", "gpu-a11=198.51.100.71", "--os", "Ubuntu 24.04", "--driver", "570");
        assertThat(four.exitCode()).as(four.all()).isZero();

        clock.advance(Duration.ofHours(20));
        gpuA11JoinsClusterB();
        // admitted without its GPU taint: FAIL, nothing recorded
        CliRun five = cli("handover", "step", "a11-to-b", "5", "--by", "team-b", "--to-kubeconfig",
                kubeconfigB.toString(), "--baseline", baseline.toString());
        assertThat(five.exitCode()).as(five.all()).isEqualTo(5);
        assertThat(five.err()).contains("b-gpu-11 lacks taint(s) [nvidia.com/gpu:NoSchedule]");

        clusterB.client().nodes().withName("b-gpu-11").edit(n -> {
            n.getSpec().setTaints(List.of(new TaintBuilder().withKey("nvidia.com/gpu").withEffect("NoSchedule").build()));
            return n;
        });
        clock.advance(Duration.ofHours(1));
        assertThat(cli("verify-gone", "--baseline", baseline.toString()).exitCode()).isZero();
        five = cli("handover", "step", "a11-to-b", "5", "--by", "team-b", "--to-kubeconfig", kubeconfigB.toString(),
                "--baseline", baseline.toString());
        assertThat(five.exitCode()).as(five.all()).isZero();
        assertThat(read().step(5).orElseThrow().value("admitted/gpu-a11")).hasValueSatisfying(v ->
                assertThat(v).startsWith("b-gpu-11 in cluster-b (same systemUUID and machineID)"));

        CliRun six = cli("handover", "step", "a11-to-b", "6", "--by", "lee", "--term", "2026-11 to 2027-04",
                "--return-date", "none");
        assertThat(six.exitCode()).as(six.all()).isZero();
        CliRun closed = cli("handover", "close", "a11-to-b", "--by", "lee");
        assertThat(closed.exitCode()).as(closed.all()).isZero();
        h = read();
        assertThat(h.closed()).isTrue();
        assertThat(h.status().phase()).isEqualTo("Closed");
        assertThat(h.status().violations()).isEmpty();
        assertThat(h.status().history()).extracting(e -> e.type()).contains("step", "seen", "closed");

        // kubectl get nodehandovers: the server's Table, with the CRD's printer columns
        HttpResponse<String> table = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(api.url() + NodeHandover.PATH)).header("Accept",
                        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json").build(),
                HttpResponse.BodyHandlers.ofString());
        var t = HandoverApi.JSON.readTree(table.body());
        assertThat(t.path("columnDefinitions").findValuesAsString("name")).startsWith("Name", "Step", "Nodes",
                "Destination", "Due", "Violations", "Age");
        assertThat(t.path("rows").get(0).path("cells").toString()).contains("\"a11-to-b\"", "\"6: record\"",
                "[\\\"gpu-a11\\\"]", "\"cluster-b\"", "\"" + DUE + "\"", ",0,");

        // the page
        Path page = tmp.resolve("a11.html");
        CliRun report = cli("handover", "report", "a11-to-b", "--html", page.toString());
        assertThat(report.exitCode()).as(report.all()).isZero();
        String html = Files.readString(page);
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(page.toFile());
        assertThat(doc.getDocumentElement().getTagName()).isEqualTo("html");
        String text = doc.getDocumentElement().getTextContent();
        assertThat(text).contains("cordoned, drained", "owner's reply", "stated removal time", "Lease stopped",
                "gate PASS", "DELETE", "verify-gone (1st) PASS", "verify-gone (2nd) PASS",
                "first seen in the destination", "b-gpu-11 in cluster-b", "closed");
        assertThat(html).doesNotContain("<script", " src=", " href=", "@import", "url(");
        assertThat(html.replace("http://www.w3.org/1999/xhtml", "").replace("http://www.w3.org/2000/svg", ""))
                .doesNotContain("http://").contains("https://chat.example/t/1");
    }

    @Test
    void aStepWhoseChecksFailIsRecordedOnlyOverThemWithAReason() {
        assertThat(open().exitCode()).isZero();
        client.nodes().withName("gpu-a11").edit(n -> {
            n.getSpec().setUnschedulable(false);
            return n;
        });
        api.create(new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().withName("train-0")
                .withNamespace("ml").withUid("uid-train-0").addNewOwnerReference().withApiVersion("apps/v1")
                .withKind("StatefulSet").withName("train").withUid("uid-sts").withController(true).endOwnerReference()
                .endMetadata().withNewSpec().withNodeName("gpu-a11").endSpec().withNewStatus().withPhase("Running")
                .endStatus().build());

        CliRun refused = cli("handover", "step", "a11-to-b", "1", "--by", "kim");
        assertThat(refused.exitCode()).as(refused.all()).isEqualTo(5);
        assertThat(refused.err()).contains("step 1 (empty) of a11-to-b was not recorded: its checks say FAIL",
                "gpu-a11 is not cordoned", "ml/train-0 (StatefulSet)", "--override");
        assertThat(read().recorded(1)).isFalse();

        CliRun over = cli("handover", "step", "a11-to-b", "1", "--by", "kim", "--override",
                "kim: the training job ends tonight, lee agreed");
        assertThat(over.exitCode()).as(over.all()).isZero();
        NodeHandover h = read();
        assertThat(h.step(1).orElseThrow().override()).isEqualTo("kim: the training job ends tonight, lee agreed");
        // step 1 is now done while the target still runs pods: the record says so, as a violation
        assertThat(h.status().violations()).extracting(v -> v.kind()).contains("step-contradicted");
        assertThat(h.status().violations()).extracting(v -> v.message()).anySatisfy(m ->
                assertThat(m).contains("step 1 was recorded done by kim", "runs 1 pod(s)", "ml/train-0"));
    }

    @Test
    void twoPeopleRecordingTheSameStepAtOnce() {
        assertThat(open().exitCode()).isZero();
        // while kim's step 1 is on its way, park records step 1 first: kim's write loses the race (409)
        boolean[] raced = {false};
        api.interleave(NodeHandover.PATH, (method, path, written, store) -> {
            if (!raced[0] && "PUT".equals(method) && !path.endsWith("/status")
                    && written.path("spec").path("steps").size() == 2) {
                raced[0] = true;
                var stored = (tools.jackson.databind.node.ObjectNode) store.get(path);
                var park = ((tools.jackson.databind.node.ArrayNode) stored.path("spec").path("steps")).addObject();
                park.put("step", 1);
                park.put("by", "park");
                park.put("at", clock.instant().toString());
                park.put("message", "done here too");
                store.put(path, stored);
            }
        });

        CliRun kim = cli("handover", "step", "a11-to-b", "1", "--by", "kim");

        assertThat(raced[0]).isTrue();
        assertThat(kim.exitCode()).as(kim.all()).isEqualTo(5);
        assertThat(kim.err()).contains("step 1 of a11-to-b was recorded meanwhile by park at", "this run recorded nothing");
        assertThat(read().step(1).orElseThrow().by()).isEqualTo("park");
        assertThat(read().spec().steps()).hasSize(2);
    }

    @Test
    void aStatusWrittenMeanwhileIsMergedNotLost() {
        assertThat(open().exitCode()).isZero();
        boolean[] raced = {false};
        api.interleave(NodeHandover.PATH, (method, path, written, store) -> {
            if (!raced[0] && path.endsWith("/status")
                    && written.path("status").path("observedBy").asString("").startsWith("handover status (")) {
                raced[0] = true;
                var stored = (tools.jackson.databind.node.ObjectNode) store.get(path.replaceFirst("/status$", ""));
                var entry = ((tools.jackson.databind.node.ArrayNode) stored.path("status").path("history")).addObject();
                entry.put("at", clock.instant().toString());
                entry.put("type", "silence-recreated");
                entry.put("message", "written by the watch meanwhile");
                ((tools.jackson.databind.node.ObjectNode) stored.path("status")).put("observedBy",
                        "watch/nodegate-watch-0");
                store.put(path, stored);
            }
        });

        CliRun status = cli("handover", "status", "a11-to-b");

        assertThat(raced[0]).isTrue();
        assertThat(status.exitCode()).as(status.all()).isZero();
        assertThat(read().status().history()).extracting(e -> e.message()).contains("written by the watch meanwhile");
        assertThat(read().status().observedBy()).startsWith("handover status (");
    }

    @Test
    void aRewrittenStepIsRefusedByTheApiServer() {
        assertThat(open().exitCode()).isZero();
        assertThat(cli("handover", "step", "a11-to-b", "1", "--by", "kim").exitCode()).isZero();
        NodeHandover h = read();
        List<StepRecord> steps = new java.util.ArrayList<>(h.spec().steps());
        StepRecord one = steps.get(1);
        steps.set(1, new StepRecord(1, "someone-else", one.at(), one.message(), null, one.evidence()));
        var rewritten = h.withSpec(new io.nodegate.handover.HandoverSpec(h.spec().nodes(), h.spec().type(),
                h.spec().destination(), h.spec().due(), h.spec().requester(), h.spec().ticket(),
                h.spec().alertmanagers(), h.spec().silence(), h.spec().targets(), steps, null));

        var refused = org.assertj.core.api.Assertions.catchThrowable(() ->
                new HandoverApi(new ApiReader(client)).updateSpec(rewritten));

        assertThat(refused).hasMessageContaining("refused by the API server")
                .hasMessageContaining("a recorded step cannot be changed");
        assertThat(read().step(1).orElseThrow().by()).isEqualTo("kim");
    }

    @Test
    void aFailedReadIsInvalidAndClearsNothing() {
        assertThat(open().exitCode()).isZero();
        client.nodes().withName("gpu-a11").edit(n -> {
            n.getSpec().setUnschedulable(false);
            return n;
        });
        assertThat(cli("handover", "step", "a11-to-b", "1", "--by", "kim", "--override", "kim: test").exitCode())
                .isZero();
        assertThat(read().status().violations()).singleElement().satisfies(v -> assertThat(v.seenNow()).isTrue());
        client.nodes().withName("gpu-a11").edit(n -> {
            n.getSpec().setUnschedulable(true);
            return n;
        });
        api.failOn("GET", "/api/v1/nodes", 500);

        CliRun look = cli("handover", "status", "a11-to-b");

        assertThat(look.exitCode()).as(look.all()).isEqualTo(3);
        assertThat(look.out()).contains("read errors (nothing they would have shown is known):",
                "500 Internal Server Error");
        NodeHandover h = read();
        assertThat(h.status().verdict()).isEqualTo("INVALID");
        // the cordon is back, but a look that could not read the Nodes says nothing about it
        assertThat(h.status().violations()).singleElement().satisfies(v -> assertThat(v.seenNow()).isTrue());

        api.clearFailures();
        CliRun list = cli("handover", "status");
        assertThat(list.exitCode()).as(list.all()).isEqualTo(1);
        assertThat(list.out()).isEqualTo(
                "NAME       STEP       NODES     DESTINATION   DUE          VIOLATIONS   NEXT                    PHASE\n"
                        + "a11-to-b   1: empty   gpu-a11   cluster-b     " + DUE + "   1            2: host cleanup: HOLD   Open\n");
        assertThat(read().status().violations()).singleElement().satisfies(v -> assertThat(v.seenNow()).isFalse());
    }
}
