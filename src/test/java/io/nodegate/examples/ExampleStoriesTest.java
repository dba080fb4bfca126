package io.nodegate.examples;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each example's STORY.md promises what the CLI finds on it. These run the real CLI on every example directory
 * and hold it to those promises: the codes, how many, on which nodes, and the exit code, so a story and the code
 * cannot drift apart silently.
 */
class ExampleStoriesTest {

    private static final Path EXAMPLES = Path.of("examples");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** One CLI run's exit code and its findings as (code, sorted subject nodes). */
    record Outcome(int exit, List<Finding> findings, JsonNode json) {
        List<Finding> of(String code) {
            return findings.stream().filter(f -> f.code().equals(code)).toList();
        }

        Set<String> codes() {
            return findings.stream().map(Finding::code).collect(Collectors.toCollection(TreeSet::new));
        }

        /** Every subject node of one code, as one sorted set. */
        Set<String> nodes(String code) {
            return of(code).stream().flatMap(f -> f.nodes().stream()).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    record Finding(String code, String severity, Set<String> nodes) {
    }

    private static Outcome run(String... args) {
        String[] full = Stream.concat(Stream.of(args), Stream.of("-o", "json")).toArray(String[]::new);
        CliRun run = CliRun.run(full);
        assertThat(run.err()).as("stderr of %s", String.join(" ", full)).doesNotContain("Exception");
        JsonNode json = JSON.readTree(run.out());
        List<Finding> findings = json.path("findings").values().stream()
                .map(f -> new Finding(f.path("code").asString(), f.path("severity").asString(),
                        f.path("nodes").values().stream().map(JsonNode::asString)
                                .collect(Collectors.toCollection(TreeSet::new))))
                .toList();
        return new Outcome(run.exitCode(), findings, json);
    }

    private static String dir(String name) {
        return EXAMPLES.resolve(name).toString();
    }

    private static Set<String> set(String... names) {
        return new TreeSet<>(List.of(names));
    }

    private static Set<String> range(String prefix, int from, int to) {
        return IntStream.rangeClosed(from, to).mapToObj(i -> String.format("%s%02d", prefix, i))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static final Set<String> UNKNOWN_8 = set("gpu-a01", "gpu-a02", "gpu-a04", "gpu-a06", "gpu-a07",
            "gpu-a08", "gpu-a09", "gpu-a10");
    private static final Set<String> BATCH = set("gpu-a07", "gpu-a08", "gpu-a09", "gpu-a10");

    private static Set<String> cordoned13() {
        Set<String> s = range("gpu-a", 1, 11);
        s.addAll(set("gpu-b01", "gpu-b02"));
        return s;
    }

    /** Guards the list below: a new example directory needs its story here too. */
    @Test
    void everyExampleDirectoryHasAStoryAndIsCoveredHere() throws IOException {
        try (Stream<Path> dirs = Files.list(EXAMPLES)) {
            List<String> names = dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
            assertThat(names).containsExactly("cluster-a-batch-stop", "cluster-a-renamed-rejoin", "fleet-departure",
                    "handover-case-2", "healthy", "k3s-six-nodes", "lab-duplicate-ip", "split-brain");
            assertThat(names).allSatisfy(n -> assertThat(EXAMPLES.resolve(n).resolve("STORY.md")).isRegularFile());
        }
    }

    @Test
    void clusterABatchStop() {
        Outcome audit = run("audit", "-f", dir("cluster-a-batch-stop"));
        assertThat(audit.exit()).isEqualTo(1);
        assertThat(audit.codes()).containsExactly("NG101", "NG103", "NG150", "NG170", "NG171");
        assertThat(audit.of("NG101")).hasSize(8);
        assertThat(audit.nodes("NG101")).isEqualTo(UNKNOWN_8);
        assertThat(audit.of("NG103")).singleElement().satisfies(f -> assertThat(f.nodes()).isEqualTo(BATCH));
        assertThat(audit.of("NG150")).singleElement().satisfies(f -> assertThat(f.nodes()).containsExactly("gpu-a07"));
        assertThat(audit.of("NG170")).hasSize(13);
        assertThat(audit.nodes("NG170")).isEqualTo(cordoned13());
        // cordoned 14 days with no reason; a dump holds no NodeHandovers, so a hand-over cannot be ruled out: info
        assertThat(audit.nodes("NG171")).isEqualTo(cordoned13());
        assertThat(audit.of("NG171")).allSatisfy(f -> assertThat(f.severity().toString()).isEqualToIgnoringCase("info"));
    }

    @Test
    void clusterARenamedRejoin() {
        Outcome audit = run("audit", "-f", dir("cluster-a-renamed-rejoin"));
        assertThat(audit.exit()).isEqualTo(1);
        assertThat(audit.codes()).containsExactly("NG101", "NG103", "NG110", "NG111", "NG150", "NG170", "NG171");
        assertThat(audit.nodes("NG101")).isEqualTo(UNKNOWN_8);
        assertThat(audit.of("NG103")).singleElement().satisfies(f -> assertThat(f.nodes()).isEqualTo(BATCH));
        assertThat(audit.of("NG110")).extracting(Finding::nodes).containsExactlyInAnyOrder(
                set("gpu-a01", "new-02"), set("gpu-a02", "new-01"), set("gpu-a04", "new-03"));
        assertThat(audit.nodes("NG111")).isEqualTo(set("new-01", "new-02", "new-03"));
        assertThat(audit.of("NG150")).hasSize(4);
        assertThat(audit.nodes("NG150")).isEqualTo(BATCH);
        assertThat(audit.of("NG170")).hasSize(13);
        assertThat(audit.nodes("NG170")).isEqualTo(cordoned13());
    }

    @Test
    void fleetDepartureSeenFromBothClusters() {
        String a = dir("fleet-departure/cluster-a");
        String b = dir("fleet-departure/cluster-b");

        Outcome fleet = run("fleet", "-f", a, "-f", b);
        assertThat(fleet.exit()).isEqualTo(1);
        assertThat(fleet.codes()).containsExactly("NG301");
        assertThat(fleet.of("NG301")).extracting(Finding::severity).containsOnly("critical");
        assertThat(fleet.of("NG301")).extracting(Finding::nodes).containsExactlyInAnyOrder(
                set("gpu-a07", "b-gpu-07"), set("gpu-a08", "b-gpu-08"), set("gpu-a09", "b-gpu-09"));
        assertThat(fleet.json().path("hosts").size()).isEqualTo(3);
        assertThat(fleet.json().path("findings").toString())
                .contains("gpu-a07 in cluster-a: Unknown, Lease stopped 2026-10-22T05:23:42Z; the same host is b-gpu-07"
                        + " in cluster-b, created 05:23:45Z (3 s later), Ready");
        // gpu-a10 stopped in the same batch but never reached B: nothing in fleet names it
        assertThat(fleet.json().toString()).doesNotContain("gpu-a10");

        // each side alone cannot tell: A is cluster-a-batch-stop; in B no worker carries a role label (RKE2 agents get
        // none), so the three newcomers look like the other workers and are no NG111
        Outcome auditA = run("audit", "-f", a);
        assertThat(auditA.codes()).containsExactly("NG101", "NG103", "NG150", "NG170", "NG171");
        Outcome auditB = run("audit", "-f", b);
        assertThat(auditB.codes()).isEmpty();
    }

    @Test
    void healthyAuditsClean() {
        Outcome audit = run("audit", "-f", dir("healthy"));
        assertThat(audit.findings()).isEmpty();
        assertThat(audit.exit()).isZero();
    }

    @Test
    void labDuplicateIpFindsOnlyTheSharedAddress() {
        Outcome audit = run("audit", "-f", dir("lab-duplicate-ip"));
        assertThat(audit.exit()).isEqualTo(1);
        assertThat(audit.findings()).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG120");
            assertThat(f.nodes()).isEqualTo(set("node01", "node02"));
        });
    }

    @Test
    void splitBrainSeenFromBothSides() {
        String original = dir("split-brain/original-side");
        String separated = dir("split-brain/separated-side");

        Outcome views = run("views", "-f", original, "-f", separated);
        assertThat(views.exit()).isEqualTo(1);
        assertThat(views.of("NG207")).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo("critical");
            assertThat(f.nodes()).contains("cp-node-c");
        });

        Outcome etcd = run("etcd", "-f", original + "/member-list.json", "-f", original + "/endpoint-status.json",
                "-f", separated + "/member-list.json", "-f", separated + "/endpoint-status.json");
        assertThat(etcd.exit()).isNotZero();
        assertThat(etcd.of("NG201")).singleElement().satisfies(f -> assertThat(f.severity()).isEqualTo("critical"));

        // each side alone: the original sees cp-node-c silent, the separated one looks like a healthy cluster
        Outcome originalAudit = run("audit", "-f", original);
        assertThat(originalAudit.exit()).isEqualTo(1);
        assertThat(originalAudit.findings()).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG101");
            assertThat(f.nodes()).containsExactly("cp-node-c");
        });
        Outcome separatedAudit = run("audit", "-f", separated);
        assertThat(separatedAudit.findings()).isEmpty();
        assertThat(separatedAudit.exit()).isZero();
    }

    @Test
    void k3sSixNodesRedundancyCountsRolesNotNodes() {
        Outcome redundancy = run("redundancy", "-f", dir("k3s-six-nodes"));
        assertThat(redundancy.exit()).isEqualTo(1);
        assertThat(redundancy.findings()).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG210");
            assertThat(f.nodes()).containsExactly("solomon");
        });
        Map<String, JsonNode> layers = new TreeMap<>();
        redundancy.json().path("layers").values().forEach(l -> layers.put(l.path("role").asString(), l));
        assertLayer(layers.get("etcd voters"), 3, 1, "ilwon", "lemuel", "solomon");
        assertThat(layers.get("etcd voters").path("basis").asString()).startsWith("etcd member list");
        // one member list in the input, three statuses of one cluster: no talk of split brain
        assertThat(redundancy.json().path("notes").toString()).doesNotContain("different clusters");
        assertLayer(layers.get("kube-apiserver"), 2, 1, "ilwon", "lemuel");
        assertLayer(layers.get("agent failover list"), 2, 1, "ilwon", "lemuel");
        assertLayer(layers.get("kube-scheduler"), 2, 1, "ilwon", "lemuel");
        assertThat(layers.get("kube-scheduler").path("holder").asString()).isEqualTo("ilwon");
        assertLayer(layers.get("kube-controller-manager"), 2, 1, "ilwon", "lemuel");
        assertThat(layers.get("kube-controller-manager").path("holder").asString()).isEqualTo("lemuel");

        Map<String, Integer> pods = new TreeMap<>();
        redundancy.json().path("serverNodes").values()
                .forEach(n -> pods.put(n.path("name").asString(), n.path("runningPods").asInt()));
        assertThat(pods).isEqualTo(Map.of("ilwon", 34, "lemuel", 6, "solomon", 6));
        JsonNode solomon = redundancy.json().path("serverNodes").values().stream()
                .filter(n -> "solomon".equals(n.path("name").asString())).findFirst().orElseThrow();
        assertThat(solomon.path("etcdVoter").asBoolean()).isTrue();
        assertThat(solomon.path("apiserver").asBoolean()).isFalse();
        assertThat(solomon.path("disabled").values().stream().map(JsonNode::asString))
                .containsExactlyInAnyOrder("apiserver", "scheduler", "controller-manager");
    }

    @Test
    void k3sSixNodesAuditsCleanAndEtcdHasOneClusterOfThree() {
        Outcome audit = run("audit", "-f", dir("k3s-six-nodes"));
        assertThat(audit.findings()).isEmpty();
        assertThat(audit.exit()).isZero();

        Outcome etcd = run("etcd", "-f", dir("k3s-six-nodes"));
        assertThat(etcd.exit()).isZero();
        assertThat(etcd.codes()).containsExactly("NG202");
        assertThat(etcd.of("NG202")).singleElement().satisfies(f -> assertThat(f.severity()).isEqualTo("info"));
        assertThat(etcd.json().path("endpoints").values()).hasSize(3);
    }

    /** The hand-over record of gpu-a06..a10 read against fleet-departure's clusters on D+15 (seed 000, case 2). */
    @Test
    void handoverCase2ShowsTheDontsBrokenBeforeStep2And3() throws IOException {
        CliRun run = CliRun.run("handover", "status", "--record", dir("handover-case-2") + "/nodehandover.json",
                "-f", dir("fleet-departure/cluster-a"), "--fleet-dump", dir("fleet-departure/cluster-b"), "-o", "json");
        assertThat(run.err()).doesNotContain("Exception");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
        JsonNode status = JSON.readTree(run.out()).path("status");
        Map<String, Set<String>> byKind = new TreeMap<>();
        Map<String, String> happened = new TreeMap<>();
        for (JsonNode v : status.path("violations")) {
            byKind.computeIfAbsent(v.path("kind").asString(), k -> new TreeSet<>()).add(v.path("node").asString());
            assertThat(v.path("firstSeenAt").asString()).isEqualTo("2026-10-22T06:10:00Z");
            if ("host-in-another-cluster".equals(v.path("kind").asString())) {
                happened.put(v.path("node").asString(), v.path("happenedAt").asString());
            }
        }
        assertThat(byKind).isEqualTo(Map.of(
                "host-in-another-cluster", set("gpu-a07", "gpu-a08", "gpu-a09"),
                "renamed-or-readdressed", set("gpu-a07", "gpu-a08", "gpu-a09")));
        assertThat(happened).isEqualTo(Map.of("gpu-a07", "2026-10-22T05:23:45Z", "gpu-a08", "2026-10-22T05:23:50Z",
                "gpu-a09", "2026-10-22T05:23:43Z"));
        assertThat(status.path("violations").toString()).contains("gpu-a07's host is b-gpu-07 in cluster-b (same "
                + "systemUUID and machineID, created 2026-10-22T05:23:45Z, Ready=True) before step 3");
        // near misses: gpu-a06 and gpu-a10 are named by no violation
        assertThat(status.path("violations").toString()).doesNotContain("gpu-a06", "gpu-a10");
        assertThat(status.path("next").asString()).isEqualTo("2: host cleanup: HOLD");
        assertThat(status.path("checks").toString()).contains("\"id\":\"cordoned\",\"node\":\"gpu-a10\","
                + "\"outcome\":\"PASS\"");

        // the picture, from what that look recorded
        Path looked = Files.createTempFile("handover-case-2", ".json");
        Path page = Files.createTempFile("handover-case-2", ".html");
        try {
            Files.writeString(looked, run.out());
            CliRun report = CliRun.run("handover", "report", "--record", looked.toString(), "--html", page.toString());
            assertThat(report.exitCode()).as(report.all()).isZero();
            assertThat(Files.readString(page)).contains("violation: host-in-another-cluster",
                    "first seen in cluster-b", "b-gpu-07 in cluster-b");
        } finally {
            Files.deleteIfExists(looked);
            Files.deleteIfExists(page);
        }
    }

    private static void assertLayer(JsonNode layer, int count, int tolerates, String... members) {
        assertThat(layer).as("layer present").isNotNull();
        assertThat(layer.path("count").asInt()).as(layer.path("role").asString()).isEqualTo(count);
        assertThat(layer.path("tolerates").asInt()).isEqualTo(tolerates);
        assertThat(layer.path("members").values().stream().map(JsonNode::asString)).containsExactly(members);
    }
}
