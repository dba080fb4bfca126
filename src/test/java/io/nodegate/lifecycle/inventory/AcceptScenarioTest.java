package io.nodegate.lifecycle.inventory;

import io.nodegate.lifecycle.quarantine.QuarantineScenarioTest;
import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.SeedCluster;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.nodegate.model.NewcomerHold;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.source.kube.LiveSource;
import io.nodegate.testing.CliRun;
import io.nodegate.watch.NewcomerHolder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seed's case end to end, over HTTP: gpu-a11 is removed with a baseline (its tombstone recorded), the host
 * reboots with its config in place under a new name, the watch's hold taints the newcomer, and `nodegate accept`
 * lifts the hold only on evidence: without --yes nothing changes, on a FAIL nothing changes, on a fault nothing
 * changes, and with --yes on a PASS the taint goes, the Node records who accepted it, the record is saved, and the
 * tombstone is released after its copy is saved.
 */
class AcceptScenarioTest extends SeededClusterTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String NEWCOMER = "new-01";

    @BeforeEach
    void setUp() {
        seedAtGateTime();
    }

    private ConfigMap tombstones() {
        return api.client().configMaps().inNamespace("nodegate-system").withName(TombstoneBook.CONFIGMAP).get();
    }

    private Node newcomer() {
        return api.client().nodes().withName(NEWCOMER).get();
    }

    private boolean held() {
        Node n = newcomer();
        return n.getSpec().getTaints() != null
                && n.getSpec().getTaints().stream().anyMatch(t -> NewcomerHold.TAINT_KEY.equals(t.getKey()));
    }

    private void assertNothingChanged(String resourceVersion) {
        assertThat(held()).isTrue();
        assertThat(newcomer().getMetadata().getAnnotations()).doesNotContainKeys(NewcomerHold.ACCEPTED_BY,
                NewcomerHold.ACCEPTED_AT);
        assertThat(tombstones().getData()).containsKey("node.gpu-a11");
        if (resourceVersion != null) {
            assertThat(newcomer().getMetadata().getResourceVersion()).isEqualTo(resourceVersion);
        }
    }

    private List<Path> files(String name) throws Exception {
        try (Stream<Path> s = Files.walk(evidence)) {
            return s.filter(p -> p.getFileName().toString().equals(name)).sorted().toList();
        }
    }

    /**
     * Runs accept with no earlier record left, and returns the one record it wrote (runs within one second share a
     * directory, so an earlier run's record could stand in for a run that wrote none).
     */
    private JsonNode recorded(CliRun[] ran, String... args) throws Exception {
        for (Path p : files("accept.json")) {
            Files.delete(p);
        }
        ran[0] = cli(args);
        List<Path> written = files("accept.json");
        assertThat(written).as(ran[0].all()).hasSize(1);
        return JSON.readTree(Files.readString(written.get(0)));
    }

    @Test
    void aRemovedHostBackUnderANewNameIsHeldByTheWatchAndAcceptedOnlyOnEvidence() throws Exception {
        removeA11();

        List<String> log = new ArrayList<>();
        Path kc = api.writeKubeconfig(tmp.resolve("watch.yaml"));
        try (KubeConnection connection = KubeConnection.open(kc, null, Duration.ofSeconds(10))) {
            LiveSource live = new LiveSource(connection);
            NewcomerHolder holder = new NewcomerHolder(new NodeHolds(connection.client()), () -> true,
                    NewcomerHold.NO_SCHEDULE, Clock.systemUTC(), log::add);
            assertThat(holder.afterPass(live.load(false))).isEmpty();

            // the host rebooted with its RKE2 config in place, under a new name: same firmware UUID and machine-id,
            // its GPU taint put back by its config, Ready
            Node back = SeedCluster.node(NEWCOMER, "198.51.100.21", "True", false,
                    Map.of("node-role.kubernetes.io/burnin", "true"), "boot-n1", "uuid-a11", 8, Instant.now(), null);
            back.getStatus().getNodeInfo().setMachineID("machine-gpu-a11");
            back.getSpec().setTaints(new ArrayList<>(List.of(new TaintBuilder().withKey("nvidia.com/gpu")
                    .withEffect("NoSchedule").build())));
            api.create(back);
            assertThat(holder.afterPass(live.load(false))).containsExactly(NEWCOMER);
            assertThat(log).anySatisfy(l -> assertThat(l).contains("held newcomer Node new-01",
                    "systemUUID is tombstoned: host gpu-a11"));
        }
        assertThat(held()).isTrue();

        // FAIL: the host has no node-password Secret under its new name yet. --yes changes nothing; the attempt is
        // recorded with its checks
        CliRun[] ran = new CliRun[1];
        JsonNode failed = recorded(ran, "accept", NEWCOMER, "--baseline", baseline.toString(), "--yes");
        CliRun fail = ran[0];
        assertThat(fail.exitCode()).as(fail.all()).isEqualTo(5);
        assertThat(fail.out()).contains("accept new-01: FAIL (compared with baseline target gpu-a11)",
                "held: its systemUUID is tombstoned: host gpu-a11");
        assertThat(fail.err()).contains("the taint stays");
        assertNothingChanged(null);
        assertThat(files("tombstone-gpu-a11.json")).isEmpty();
        assertThat(failed.get("verdict").asString()).isEqualTo("FAIL");
        assertThat(failed.get("accepted").asBoolean()).isFalse();
        assertThat(failed.get("checks").findValuesAsString("outcome")).contains("FAIL");
        assertThat(failed.get("error").isNull()).isTrue();

        api.create(SeedCluster.secret(NEWCOMER));

        // a failed read: no verdict, nothing changed, and the attempt is recorded with why it stopped
        api.failOn("GET", "/api/v1/nodes", 500);
        JsonNode unread = recorded(ran, "accept", NEWCOMER, "--baseline", baseline.toString(), "--yes");
        assertThat(ran[0].exitCode()).as(ran[0].all()).isEqualTo(3);
        assertThat(ran[0].err()).containsIgnoringWhitespaces("accept new-01 failed; the attempt is recorded in");
        api.clearFailures();
        assertThat(unread.get("node").asString()).isEqualTo(NEWCOMER);
        assertThat(unread.get("verdict").isNull()).isTrue();
        assertThat(unread.get("uid").isNull()).isTrue();
        assertThat(unread.get("accepted").asBoolean()).isFalse();
        assertThat(unread.get("acceptedBy").asString()).isNotBlank();
        assertThat(unread.get("error").asString()).contains("500");
        assertNothingChanged(null);

        // PASS without --yes: the checks, nothing changed
        String rv = newcomer().getMetadata().getResourceVersion();
        CliRun plan = cli("accept", NEWCOMER, "--baseline", baseline.toString());
        assertThat(plan.exitCode()).as(plan.all()).isZero();
        assertThat(plan.out()).contains("accept new-01: PASS (compared with baseline target gpu-a11)",
                "nothing changed: add --yes to accept");
        assertNothingChanged(rv);

        // a fault on the Node's write: nothing changed, the tombstone included; the attempt is recorded: a PASS that
        // was not acted on, and the failed PATCH
        api.failOn("PATCH", "/api/v1/nodes/" + NEWCOMER, 500);
        JsonNode unwritten = recorded(ran, "accept", NEWCOMER, "--baseline", baseline.toString(), "--yes");
        CliRun fault = ran[0];
        assertThat(fault.exitCode()).as(fault.all()).isEqualTo(3);
        assertNothingChanged(rv);
        api.clearFailures();
        assertThat(unwritten.get("verdict").asString()).isEqualTo("PASS");
        assertThat(unwritten.get("uid").asString()).isEqualTo(newcomer().getMetadata().getUid());
        assertThat(unwritten.get("accepted").asBoolean()).isFalse();
        assertThat(unwritten.get("released")).isEmpty();
        assertThat(unwritten.get("error").asString()).contains("removing the taint nodegate.io/unaccepted from Node "
                + "new-01 failed with HTTP 500");

        // the Node changed between the checks and the write (a kubelet's update): refused, nothing changed
        api.beforeServing("PATCH", "/api/v1/nodes/" + NEWCOMER, "{\"metadata\":{\"labels\":{\"example.com/rack\":\"r7\"}}}");
        JsonNode refused = recorded(ran, "accept", NEWCOMER, "--baseline", baseline.toString(), "--yes");
        CliRun raced = ran[0];
        assertThat(refused.get("accepted").asBoolean()).isFalse();
        assertThat(refused.get("error").asString()).contains("removing the taint nodegate.io/unaccepted from Node "
                + "new-01");
        assertThat(raced.exitCode()).as(raced.all()).isNotZero();
        // (the stand-in drops the connection on a failed JSON Patch test where kube-apiserver answers an error
        // status, so the words differ; what matters is the same: the patch did not apply)
        assertThat(raced.all()).contains("removing the taint nodegate.io/unaccepted from Node new-01");
        assertNothingChanged(null);
        assertThat(newcomer().getMetadata().getLabels()).containsEntry("example.com/rack", "r7");

        // --yes on a PASS: taint lifted, who and when written, the record saved, the tombstone released after its copy
        CliRun yes = cli("accept", NEWCOMER, "--baseline", baseline.toString(), "--yes");
        assertThat(yes.exitCode()).as(yes.all()).isZero();
        assertThat(yes.out()).contains("accept new-01: PASS", "released tombstone gpu-a11",
                "accepted: taint nodegate.io/unaccepted removed");
        Node accepted = newcomer();
        assertThat(accepted.getSpec().getTaints()).extracting(x -> x.getKey()).containsExactly("nvidia.com/gpu");
        assertThat(accepted.getMetadata().getAnnotations()).containsKey(NewcomerHold.ACCEPTED_AT)
                .hasEntrySatisfying(NewcomerHold.ACCEPTED_BY, who -> assertThat(who).isNotBlank());
        assertThat(tombstones().getData()).doesNotContainKey("node.gpu-a11");

        List<Path> records = new ArrayList<>();
        for (Path p : files("accept.json")) {
            if (JSON.readTree(Files.readString(p)).get("accepted").asBoolean()) {
                records.add(p);
            }
        }
        Path record = records.stream().reduce((a, b) -> b).orElseThrow();
        assertThat(records).hasSize(1);
        Tombstone saved = JSON.readValue(Files.readString(record.resolveSibling("tombstone-gpu-a11.json")),
                Tombstone.class);
        assertThat(saved.name()).isEqualTo("gpu-a11");
        assertThat(saved.systemUuid()).isEqualTo("uuid-a11");
        JsonNode r = JSON.readTree(Files.readString(record));
        assertThat(r.get("accepted").asBoolean()).isTrue();
        assertThat(r.get("verdict").asString()).isEqualTo("PASS");
        assertThat(r.get("comparedWith").asString()).isEqualTo("gpu-a11");
        assertThat(r.get("released").get(0).get("name").asString()).isEqualTo("gpu-a11");
        assertThat(r.get("heldFor").get(0).asString()).contains("tombstoned");
        assertThat(r.get("error").isNull()).isTrue();

        // a watch that starts now, or runs on, never holds it again: it is accepted
        try (KubeConnection connection = KubeConnection.open(kc, null, Duration.ofSeconds(10))) {
            LiveSource live = new LiveSource(connection);
            NewcomerHolder holder = new NewcomerHolder(new NodeHolds(connection.client()), () -> true,
                    NewcomerHold.NO_SCHEDULE, Clock.systemUTC(), log::add);
            holder.afterPass(live.load(false));
            assertThat(holder.afterPass(live.load(false))).isEmpty();
        }
        assertThat(held()).isFalse();
        CliRun again = cli("accept", NEWCOMER, "--baseline", baseline.toString());
        assertThat(again.exitCode()).isZero();
        assertThat(again.out()).contains("carries no nodegate.io/unaccepted taint: nothing to accept");
    }

    /**
     * readmit of a held Node: the host registered anew under its own name and was held at CREATE (the admission
     * policy, or the watch). readmit --verify answers whether the host is back; it does not lift the hold and says
     * that accept must be run, because accept also checks the identity (the cloned-VM rule) and records who.
     */
    @Test
    void readmitOfAHeldNodeLeavesTheHoldAndNamesAccept() throws Exception {
        Node old = api.client().nodes().withName("gpu-a10").get();
        clock.set(Instant.now()); // readmission happens days later; the server stamps new objects with the real clock
        assertThat(cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--yes").exitCode()).isZero();
        api.delete(old);
        Instant deleted = Instant.now();
        while (Instant.now().isBefore(deleted.plusSeconds(1))) {
            Thread.sleep(50); // creation timestamps have whole seconds
        }
        Node fresh = SeedCluster.node("gpu-a10", "198.51.100.110", "True", false,
                Map.of("node-role.kubernetes.io/burnin", "true"), "boot-a10-new", "uuid-a10", 8, Instant.now(), null);
        fresh.getStatus().getNodeInfo().setMachineID("machine-gpu-a10");
        fresh.getSpec().setTaints(new ArrayList<>(List.of(new TaintBuilder().withKey("nvidia.com/gpu")
                .withEffect("NoSchedule").build(), new TaintBuilder().withKey(NewcomerHold.TAINT_KEY)
                .withEffect("NoExecute").build()))); // held NoExecute (policy --hold-effect NoExecute): any effect
        // an annotation nodegate does not read (the kubelet writes this one on every Node it registers): the model
        // does not keep it, and accept's write must not erase it
        fresh.getMetadata().setAnnotations(new java.util.HashMap<>(Map.of(
                "volumes.kubernetes.io/controller-managed-attach-detach", "true")));
        api.create(fresh, SeedCluster.secret("gpu-a10"));

        CliRun v = cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--verify", "--yes", "-o", "json");
        assertThat(v.exitCode()).as(v.all()).isZero();
        assertThat(JSON.readTree(v.out()).get("verdict").asString()).isEqualTo("PASS");
        assertThat(v.err()).containsIgnoringWhitespaces("gpu-a10 is held (taint nodegate.io/unaccepted): readmit does"
                + " not lift the hold. Run 'nodegate accept gpu-a10 --baseline FILE --yes'");
        Node after = api.client().nodes().withName("gpu-a10").get();
        assertThat(after.getSpec().getTaints()).extracting(x -> x.getKey()).contains(NewcomerHold.TAINT_KEY);
        assertThat(after.getMetadata().getAnnotations()).doesNotContainKey(NewcomerHold.ACCEPTED_BY);

        // accept, with the same evidence, lifts it
        CliRun yes = cli("accept", "gpu-a10", "--baseline", baseline.toString(), "--yes");
        assertThat(yes.exitCode()).as(yes.all()).isZero();
        Node accepted = api.client().nodes().withName("gpu-a10").get();
        assertThat(accepted.getSpec().getTaints()).extracting(x -> x.getKey()).containsExactly("nvidia.com/gpu");
        assertThat(accepted.getMetadata().getAnnotations())
                .containsEntry("volumes.kubernetes.io/controller-managed-attach-detach", "true")
                .containsKey(NewcomerHold.ACCEPTED_BY);
    }

    /**
     * readmit of a removed host that is back already: it registered under a new name while its tombstone stood (no
     * quarantine policy) and was held at birth. Lifting the tombstone lets it register again, but the held Node
     * stays held: readmit says so, names that Node and says that accept releases it; a Node that matches nothing,
     * and one that matches but is not held, are not named.
     */
    @Test
    void readmitOfARemovedHostNamesTheHeldNodeThatMatchesItsTombstone() throws Exception {
        removeA11();

        Node back = SeedCluster.node(NEWCOMER, "198.51.100.21", "True", false, Map.of(), "boot-n1", "uuid-a11", 8,
                Instant.now(), null);
        back.getStatus().getNodeInfo().setMachineID("machine-gpu-a11");
        back.getSpec().setTaints(new ArrayList<>(List.of(new TaintBuilder().withKey(NewcomerHold.TAINT_KEY)
                .withEffect("NoSchedule").build())));
        // held for another reason (not in an inventory, say): its identity is its own, so readmit does not name it
        Node other = SeedCluster.node("new-02", "198.51.100.22", "True", false, Map.of(), "boot-n2", "uuid-other", 0,
                Instant.now(), null);
        other.getSpec().setTaints(new ArrayList<>(List.of(new TaintBuilder().withKey(NewcomerHold.TAINT_KEY)
                .withEffect("NoSchedule").build())));
        api.create(back, other);

        // the plan: the note says the Node is held, nothing changed
        CliRun plan = cli("readmit", "gpu-a11", "--baseline", baseline.toString());
        assertThat(plan.exitCode()).as(plan.all()).isZero();
        assertThat(plan.err()).containsIgnoringWhitespaces("Node new-01 matches gpu-a11's tombstone (systemUUID) and is"
                + " held (taint nodegate.io/unaccepted): readmit does not lift the hold. 'nodegate accept new-01"
                + " --baseline FILE --yes' releases it");
        assertThat(plan.err()).doesNotContain("new-02");
        assertThat(tombstones().getData()).containsKey("node.gpu-a11");

        // --yes: the tombstone goes, the hold stays, and readmit says that accept releases it; -o json stays one
        // document on stdout and carries the held Node
        CliRun yes = cli("readmit", "gpu-a11", "--baseline", baseline.toString(), "--yes", "-o", "json");
        assertThat(yes.exitCode()).as(yes.all()).isZero();
        assertThat(yes.err()).containsIgnoringWhitespaces("Node new-01 matches gpu-a11's tombstone (systemUUID) and is"
                + " still held (taint nodegate.io/unaccepted): releasing the tombstone does not lift the hold."
                + " 'nodegate accept new-01 --baseline FILE --yes' releases it");
        assertThat(yes.err()).doesNotContain("new-02");
        JsonNode out = JSON.readTree(yes.out());
        assertThat(out.get("released").asBoolean()).isTrue();
        assertThat(out.get("held")).hasSize(1);
        assertThat(out.get("held").get(0).get("name").asString()).isEqualTo(NEWCOMER);
        assertThat(out.get("held").get(0).get("match").asString()).isEqualTo("systemUUID");
        assertThat(tombstones().getData()).doesNotContainKey("node.gpu-a11");
        assertThat(held()).isTrue();
        assertThat(newcomer().getMetadata().getAnnotations()).doesNotContainKey(NewcomerHold.ACCEPTED_BY);
    }

    /**
     * A removed host back under its old name, held at birth: the Node readmit would keep is not the baseline's (a new
     * uid), so readmit refuses, and it refuses before the tombstone is lifted: nothing changes on a path that ends in
     * an error. The refusal names accept, which admits such a Node.
     */
    @Test
    void readmitOfARemovedHostBackUnderItsOldNameRefusesBeforeReleasingTheTombstone() throws Exception {
        removeA11();
        Node back = SeedCluster.node("gpu-a11", "198.51.100.21", "True", false, Map.of(), "boot-a11-new", "uuid-a11",
                8, Instant.now(), null);
        back.getStatus().getNodeInfo().setMachineID("machine-gpu-a11");
        back.getSpec().setTaints(new ArrayList<>(List.of(new TaintBuilder().withKey(NewcomerHold.TAINT_KEY)
                .withEffect("NoSchedule").build())));
        api.create(back);

        CliRun yes = cli("readmit", "gpu-a11", "--baseline", baseline.toString(), "--yes");
        assertThat(yes.exitCode()).as(yes.all()).isEqualTo(2);
        assertThat(yes.err()).containsIgnoringWhitespaces("it registered again since it was removed and is held")
                .containsIgnoringWhitespaces("'nodegate accept gpu-a11 --baseline FILE --yes'")
                .containsIgnoringWhitespaces("Nothing was released: the tombstone stays");
        assertThat(tombstones().getData()).containsKey("node.gpu-a11");
        assertThat(api.client().nodes().withName("gpu-a11").get().getSpec().getTaints()).extracting(x -> x.getKey())
                .contains(NewcomerHold.TAINT_KEY);
    }

    /** A removed host whose identity no held Node carries: readmit says nothing about holds. */
    @Test
    void readmitOfARemovedHostWithNoHeldNodeSaysNothingOfHolds() throws Exception {
        removeA11();
        // back under a new name, but not held (the watch was off): nothing to accept, so nothing is said
        Node back = SeedCluster.node(NEWCOMER, "198.51.100.21", "True", false, Map.of(), "boot-n1", "uuid-a11", 8,
                Instant.now(), null);
        api.create(back);

        CliRun yes = cli("readmit", "gpu-a11", "--baseline", baseline.toString(), "--yes");
        assertThat(yes.exitCode()).as(yes.all()).isZero();
        assertThat(yes.err()).doesNotContain(NewcomerHold.TAINT_KEY);
        assertThat(tombstones().getData()).doesNotContainKey("node.gpu-a11");
    }

    /**
     * nodegate removes gpu-a11 (its tombstone written), and the test's clock moves to the server's, past the removal:
     * what the host does next happens later than its removal, as in the field.
     */
    private void removeA11() throws InterruptedException {
        playGarbageCollector("gpu-a11");
        CliRun removed = cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--override", "kim: test");
        assertThat(removed.exitCode()).as(removed.all()).isZero();
        Tombstone t = TombstoneBook.parse(tombstones().getData()).get("gpu-a11").orElseThrow();
        QuarantineScenarioTest.waitUntilTheServerClockPasses(t.removedAt());
        clock.set(Instant.now());
    }
}
