package io.nodegate.lifecycle.quarantine;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.SeedCluster;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Node;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.policy.AdmissionSimulator;
import io.nodegate.policy.EmittedQuarantine;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The quarantine end to end over HTTP: `remove` records the tombstone, the host comes back renamed (NG302 in
 * `fleet` across two API servers), the emitted policy refuses its registration, `readmit --yes` releases exactly
 * that tombstone and the registration is allowed.
 */
public class QuarantineScenarioTest extends SeededClusterTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @BeforeEach
    void setUp() {
        seedAtGateTime();
    }

    private ConfigMap tombstones() {
        return api.client().configMaps().inNamespace("nodegate-system").withName("nodegate-tombstones").get();
    }

    /** The Node a registering kubelet POSTs: the stored object minus what the server sets, status included. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> registering(Node node) {
        Map<String, Object> map = JSON.convertValue(node, Map.class);
        Map<String, Object> meta = (Map<String, Object>) map.get("metadata");
        for (String serverSet : List.of("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields")) {
            meta.remove(serverSet);
        }
        return map;
    }

    private static AdmissionSimulator.Decision admit(Map<String, Object> node, ConfigMap params) {
        @SuppressWarnings("unchecked")
        Map<String, Object> cm = JSON.convertValue(params, Map.class);
        return EmittedQuarantine.load().registration(node, List.of(cm));
    }

    @Test
    void removeTombstonesTheHostItsRenamedReturnIsNg302AndRefusedUntilReadmit() throws Exception {
        playGarbageCollector("gpu-a11");
        CliRun removed = cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--override", "kim: test");
        assertThat(removed.exitCode()).as(removed.all()).isZero();
        assertThat(removed.out()).contains("recorded tombstone gpu-a11 in ConfigMap nodegate-system/nodegate-tombstones");

        // the tombstone on the server: the entry and both indexes, the removal's time and who ran it
        ConfigMap cm = tombstones();
        assertThat(cm.getData()).containsOnlyKeys("node.gpu-a11", "systemuuid.uuid-a11", "machineid.machine-gpu-a11");
        Tombstone t = TombstoneBook.parse(cm.getData()).get("gpu-a11").orElseThrow();
        assertThat(t.systemUuid()).isEqualTo("uuid-a11");
        assertThat(t.removedAt()).isNotNull();
        assertThat(t.removedBy()).isEqualTo(System.getProperty("user.name"));
        try (Stream<Path> files = Files.walk(evidence)) {
            assertThat(files.filter(p -> p.getFileName().toString().equals("tombstone.json"))).hasSize(1);
        }

        // later: the host was renamed and reinstalled (new machine-id), but its firmware UUID is the same. The
        // removal time is the API server's clock (its Date), whole seconds, like the creationTimestamp it will stamp
        assertThat(t.removedAt()).isEqualTo(t.removedAt().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        waitUntilTheServerClockPasses(t.removedAt());
        Node returned = SeedCluster.node("new-01", "198.51.100.21", "True", false, Map.of(), "boot-n1", "uuid-a11", 8,
                seed.gateTime, null);
        returned.getStatus().getNodeInfo().setMachineID("reinstalled-machine-id");
        assertThat(admit(registering(returned), cm)).satisfies(d -> {
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("systemUUID uuid-a11 is tombstoned as gpu-a11",
                    "run nodegate readmit gpu-a11 --yes");
        });
        api.create(returned); // no admission on the test server: the host got in, as without the policy

        try (ApiTestServer clusterB = ApiTestServer.start()) {
            clusterB.create(SeedCluster.node("b-ctl-1", "198.51.100.40", "True", false, Map.of(), "boot-b", "uuid-b-ctl-1",
                    0, Instant.now(), null));
            Path kcA = api.writeKubeconfig(tmp.resolve("a.yaml"), "cluster-a");
            Path kcB = clusterB.writeKubeconfig(tmp.resolve("b.yaml"), "cluster-b");
            CliRun fleet = CliRun.run("fleet", "--kubeconfig", kcA.toString(), "--kubeconfig", kcB.toString(),
                    "-o", "json");
            assertThat(fleet.exitCode()).as(fleet.all()).isEqualTo(1);
            JsonNode findings = JSON.readTree(fleet.out()).get("findings");
            assertThat(findings).hasSize(1);
            assertThat(findings.get(0).get("code").asString()).isEqualTo("NG302");
            assertThat(findings.get(0).get("nodes").get(0).asString()).isEqualTo("new-01");
            assertThat(findings.get(0).get("evidence").get("matchedBy").asString()).isEqualTo("systemUUID");
            // reinstalled: the machine-id differs, so the ledger cannot tell it from a clone: warning, not critical
            assertThat(findings.get(0).get("severity").asString()).isEqualTo("warning");
            assertThat(findings.get(0).get("evidence").get("otherIdDiffers").asBoolean()).isTrue();
            assertThat(JSON.readTree(fleet.out()).get("clusters").get(0).get("tombstones").asInt()).isEqualTo(1);
        }

        // readmit without --yes changes nothing; with --yes it releases exactly gpu-a11's tombstone
        api.client().nodes().withName("new-01").delete();
        new TombstoneLedger(client, "nodegate-system").record(new Tombstone("gpu-a10", "uid-x", "uuid-a10",
                "machine-gpu-a10", seed.gateTime, null, "other operator"));
        CliRun plan = cli("readmit", "gpu-a11", "--baseline", baseline.toString());
        assertThat(plan.exitCode()).as(plan.all()).isZero();
        assertThat(plan.out()).contains("would release tombstone gpu-a11");
        assertThat(tombstones().getData()).containsKey("node.gpu-a11");

        CliRun readmit = cli("readmit", "gpu-a11", "--baseline", baseline.toString(), "--yes");
        assertThat(readmit.exitCode()).as(readmit.all()).isZero();
        assertThat(readmit.out()).contains("released tombstone gpu-a11", "joins as a new Node");
        // the Node was deleted: the host steps never promise a kept cordon, and say what to put back instead
        assertThat(readmit.out()).doesNotContain("keep the name", "keeps cordon")
                .contains("registers a new Node with no cordon, role labels or taints", "kubectl cordon gpu-a11");
        ConfigMap after = tombstones();
        assertThat(after.getData()).containsOnlyKeys("node.gpu-a10", "systemuuid.uuid-a10", "machineid.machine-gpu-a10");
        assertThat(admit(registering(returned), after).allowed()).isTrue();
    }

    @Test
    void concurrentRemovalsLoseNoTombstone() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> runs = new ArrayList<>();
            for (int operator = 0; operator < 2; operator++) {
                int op = operator;
                runs.add(pool.submit(() -> {
                    TombstoneLedger ledger = new TombstoneLedger(SeedCluster.client(api.url(), 5000), "nodegate-system");
                    start.await();
                    int attempts = 0;
                    for (int i = 0; i < 8; i++) {
                        attempts += ledger.record(new Tombstone("w-" + op + "-" + i, "uid-" + op + i,
                                "uuid-" + op + "-" + i, "mid" + op + i, seed.gateTime, null, "operator " + op));
                    }
                    return attempts;
                }));
            }
            start.countDown();
            int attempts = 0;
            for (Future<Integer> f : runs) {
                attempts += f.get();
            }
            TombstoneBook book = TombstoneBook.parse(tombstones().getData());
            assertThat(book.tombstones()).hasSize(16);
            assertThat(attempts).isGreaterThanOrEqualTo(16);
            // what makes this hold: the server refuses a write computed from a stale resourceVersion
            ConfigMap read = tombstones();
            api.client().configMaps().inNamespace("nodegate-system").resource(new io.fabric8.kubernetes.api.model
                    .ConfigMapBuilder(read).addToData("x", "y").build()).update();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> api.client().configMaps()
                            .inNamespace("nodegate-system").resource(new io.fabric8.kubernetes.api.model
                                    .ConfigMapBuilder(read).addToData("z", "w").build()).update())
                    .isInstanceOfSatisfying(io.fabric8.kubernetes.client.KubernetesClientException.class,
                            e -> assertThat(e.getCode()).isEqualTo(409));
        } finally {
            pool.shutdownNow();
        }
    }

    /** The test server stamps creationTimestamp with its own clock, in whole seconds: let that second pass. */
    public static void waitUntilTheServerClockPasses(Instant t) throws InterruptedException {
        while (!Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).isAfter(t)) {
            Thread.sleep(50);
        }
    }

    @Test
    void aTombstoneThatCannotBeRecordedIsRefusedBeforeTheDelete() throws Exception {
        // in the field, remove deleted the Node, then failed to record it. The dry-run write now fails first.
        api.failOn("POST", "/api/v1/namespaces/nodegate-system/configmaps", 403);
        playGarbageCollector("gpu-a11");
        CliRun removed = cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--override", "kim: test");

        assertThat(removed.exitCode()).as(removed.all()).isEqualTo(3);
        assertThat(api.client().nodes().withName("gpu-a11").get()).isNotNull();
        assertThat(removed.err()).contains("the tombstone of gpu-a11 cannot be recorded: the dry-run write of ConfigMap"
                + " nodegate-system/nodegate-tombstones failed with HTTP 403", "the operators' Role", "Nothing deleted");
        assertThat(api.requestLog()).noneMatch(l -> l.startsWith("DELETE /api/v1/nodes/"));
        assertThat(api.requestLog()).anyMatch(l -> l.startsWith("POST /api/v1/namespaces/nodegate-system/configmaps")
                && l.contains("dryRun=All"));
        try (Stream<Path> files = Files.walk(evidence)) {
            assertThat(files.filter(p -> p.getFileName().toString().equals("removal.json"))).isEmpty();
        }
    }

    @Test
    void aTombstoneTheApiServerWouldRejectAsInvalidIsRefusedExitFive() {
        // 422 is the API server's validation (a shard over 1 MiB, a bad key): the entry cannot be recorded
        api.failOn("POST", "/api/v1/namespaces/nodegate-system/configmaps", 422);
        CliRun removed = cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--override", "kim: test");

        assertThat(removed.exitCode()).as(removed.all()).isEqualTo(5);
        assertThat(removed.err()).contains("refused the dry-run write of ConfigMap nodegate-system/nodegate-tombstones"
                + " as invalid (HTTP 422", "Nothing deleted");
        assertThat(api.client().nodes().withName("gpu-a11").get()).isNotNull();
    }

    @Test
    void aWriteThatFailsAfterTheDryRunIsReportedLoudlyWithTheCommandsToRecordIt() throws Exception {
        // the dry run passed, then the real write failed (someone changed RBAC in between): the Node is deleted
        api.failOn("POST", "/api/v1/namespaces/nodegate-system/configmaps", 403, 1);
        playGarbageCollector("gpu-a11");
        CliRun removed = cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--override", "kim: test");

        assertThat(removed.exitCode()).as(removed.all()).isEqualTo(3);
        assertThat(api.client().nodes().withName("gpu-a11").get()).isNull();
        assertThat(removed.out()).contains("!!! TOMBSTONE NOT RECORDED", "HTTP 403",
                "kubectl -n nodegate-system create configmap nodegate-tombstones",
                "kubectl -n nodegate-system label configmap nodegate-tombstones nodegate.io/ledger=tombstones",
                "kubectl -n nodegate-system patch configmap nodegate-tombstones --type merge -p '{\"data\":{\"machineid.machine-gpu-a11\":\"gpu-a11\"");
        assertThat(removed.err()).contains("Node gpu-a11 was deleted, but its tombstone was not recorded");
        try (Stream<Path> files = Files.walk(evidence)) {
            assertThat(files.filter(p -> p.getFileName().toString().equals("tombstone.json"))).hasSize(1);
        }
    }
}
