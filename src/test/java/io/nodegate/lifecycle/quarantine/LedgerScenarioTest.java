package io.nodegate.lifecycle.quarantine;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.SeedCluster;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.TombstoneShards;
import io.nodegate.policy.AdmissionSimulator;
import io.nodegate.policy.EmittedQuarantine;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tombstones ledger end to end over HTTP (and the hand-over's case): the ledger is read, parsed,
 * placed and written with a dry run before the DELETE; thousands of tombstones fit across shards and the quarantine
 * sees them all; a malformed entry is named and skipped and never stops audit or the watch; a Node that existed at
 * removal stays exempt; a hand-over is recorded and read as the expected arrival.
 */
class LedgerScenarioTest extends SeededClusterTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String NS = "nodegate-system";
    private static final Instant LONG_AGO = Instant.parse("2026-01-05T03:00:00Z");

    @BeforeEach
    void setUp() {
        seedAtGateTime();
    }

    /** A removed host shaped like the field's (see TombstoneShardsTest), removed long ago. */
    private static Tombstone removedLongAgo(int i) {
        return new Tombstone(String.format("gpu-w%05d", i), java.util.UUID.nameUUIDFromBytes(("w" + i).getBytes())
                .toString(),
                String.format("4c4c4544-0037-3010-8047-%012x", 0xb4c000000000L + i), String.format("%032x", 0x9b1fL * 31 + i),
                LONG_AGO.plusSeconds(i), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "kim via kubeconfig user ops-kim");
    }

    /** The shards `remove` would have written for these tombstones, created on the server (labelled or not). */
    private List<String> seedLedger(List<Tombstone> tombstones, boolean labelled) {
        List<TombstoneShards.Shard> shards = new ArrayList<>();
        for (Tombstone t : tombstones) {
            TombstoneShards.Placement p = TombstoneShards.place(shards, t).orElseThrow();
            shards.removeIf(s -> s.name().equals(p.shard()));
            shards.add(new TombstoneShards.Shard(p.shard(), p.book(), "1", Map.of()));
        }
        for (TombstoneShards.Shard s : shards) {
            api.create(shardConfigMap(s.name(), s.book().data(), labelled));
        }
        return shards.stream().map(TombstoneShards.Shard::name).toList();
    }

    private static ConfigMap shardConfigMap(String name, Map<String, String> data, boolean labelled) {
        return new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace(NS)
                .withLabels(labelled ? Map.of(TombstoneShards.LABEL, TombstoneShards.LABEL_VALUE) : Map.of())
                .endMetadata().withData(data).build();
    }

    private List<ConfigMap> shardsOnTheServer() {
        return api.client().configMaps().inNamespace(NS).list().getItems().stream()
                .filter(cm -> TombstoneShards.isShard(cm.getMetadata().getName())).toList();
    }

    private CliRun remove(String... extra) {
        List<String> args = new ArrayList<>(List.of("remove", "gpu-a11", "--baseline", baseline.toString(),
                "--override", "kim: test"));
        args.addAll(List.of(extra));
        return cli(args.toArray(String[]::new));
    }

    /** The emitted quarantine policy's decision on a kubelet's registration, with the server's ConfigMaps as params. */
    @SuppressWarnings("unchecked")
    private AdmissionSimulator.Decision admit(Node node) {
        List<Map<String, Object>> params = new ArrayList<>();
        for (ConfigMap cm : api.client().configMaps().inNamespace(NS).list().getItems()) {
            params.add(JSON.convertValue(cm, Map.class));
        }
        Map<String, Object> json = JSON.convertValue(node, Map.class);
        Map<String, Object> meta = (Map<String, Object>) json.get("metadata");
        for (String serverSet : List.of("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields")) {
            meta.remove(serverSet);
        }
        return EmittedQuarantine.load().registration(json, params);
    }

    private static Node worker(String name, String uuid, String machineId) {
        Node n = SeedCluster.node(name, "198.51.100.30", "True", false, Map.of(), "boot-" + name, uuid, 8,
                Instant.now(), null);
        n.getStatus().getNodeInfo().setMachineID(machineId);
        return n;
    }

    @Test
    void twoThousandSixHundredTombstonesTakeOneMoreAndTheQuarantineSeesEveryShard() {
        List<Tombstone> many = new ArrayList<>();
        for (int i = 0; i < 2_600; i++) {
            many.add(removedLongAgo(i));
        }
        assertThat(seedLedger(many, true)).containsExactly("nodegate-tombstones", "nodegate-tombstones-1");
        playGarbageCollector("gpu-a11");

        long started = System.nanoTime();
        CliRun removed = remove();
        long millis = (System.nanoTime() - started) / 1_000_000;

        assertThat(removed.exitCode()).as(removed.all()).isZero();
        System.out.printf("remove with a 2,600-tombstone ledger: %d ms (test server, under load)%n", millis);
        int total = 0;
        String holder = null;
        for (ConfigMap cm : shardsOnTheServer()) {
            assertThat(TombstoneBook.bytes(cm.getData())).isLessThanOrEqualTo(TombstoneShards.BUDGET);
            total += TombstoneBook.parse(cm.getData()).size();
            holder = cm.getData().containsKey("node.gpu-a11") ? cm.getMetadata().getName() : holder;
        }
        assertThat(total).isEqualTo(2_601);
        assertThat(removed.out()).contains("the tombstone of gpu-a11 fits in ConfigMap nodegate-system/" + holder
                + " (checked with a dry-run write)", "recorded tombstone gpu-a11 in ConfigMap nodegate-system/" + holder);
        String shardOfA11 = holder;

        // the policy is evaluated once per shard: a host from the first shard and the one just removed are refused
        assertThat(admit(worker("new-1", removedLongAgo(7).systemUuid(), "0d6c1e0f4a4b4c3d9e8f7a6b5c4d3e2f")))
                .satisfies(d -> assertThat(d.message()).contains("tombstoned as gpu-w00007 in ConfigMap nodegate-tombstones)"));
        assertThat(admit(worker("new-2", "uuid-a11", "0d6c1e0f4a4b4c3d9e8f7a6b5c4d3e2f")))
                .satisfies(d -> assertThat(d.message()).contains("tombstoned as gpu-a11 in ConfigMap " + shardOfA11 + ")"));
        // and one from the second shard
        assertThat(admit(worker("new-4", removedLongAgo(2_599).systemUuid(), "")))
                .satisfies(d -> assertThat(d.message()).contains("tombstoned as gpu-w02599 in ConfigMap nodegate-tombstones-1)"));
        assertThat(admit(worker("new-3", "4c4c4544-0099-3010-8047-b4c04f443099", "aa00bb11cc22dd33ee44ff5566778899"))
                .allowed()).isTrue();
    }

    @Test
    void theFieldsOldConfigMapNearItsLimitSendsTheNextTombstoneToANewShardAndIsLabelled() {
        // the field case: 2,230 tombstones in the one ConfigMap of earlier versions (no label); the next
        // remove got 422 after the delete. Now the entry goes to a new shard, and the old one is labelled first
        TombstoneBook old = TombstoneBook.empty();
        for (int i = 0; i < 2_230; i++) {
            old = old.with(removedLongAgo(i));
        }
        assertThat(old.bytes()).isGreaterThan(TombstoneShards.BUDGET);
        api.create(shardConfigMap("nodegate-tombstones", old.data(), false));
        playGarbageCollector("gpu-a11");

        CliRun removed = remove();

        assertThat(removed.exitCode()).as(removed.all()).isZero();
        ConfigMap first = api.client().configMaps().inNamespace(NS).withName("nodegate-tombstones").get();
        assertThat(first.getMetadata().getLabels()).containsEntry(TombstoneShards.LABEL, TombstoneShards.LABEL_VALUE);
        assertThat(TombstoneBook.parse(first.getData()).size()).isEqualTo(2_230);
        ConfigMap second = api.client().configMaps().inNamespace(NS).withName("nodegate-tombstones-1").get();
        assertThat(TombstoneBook.parse(second.getData()).get("gpu-a11")).isPresent();
    }

    @Test
    void aLedgerWithNoRoomLeftRefusesBeforeTheDelete() {
        // 16 MB to LIST: more than the seeded client's 1.5 s allows on a loaded test machine
        client.close();
        client = SeedCluster.client(api.url(), 30_000);
        // every shard holds one entry of ~1 MB: nothing fits anywhere
        for (String name : TombstoneShards.names()) {
            api.create(shardConfigMap(name, TombstoneBook.empty().with(new Tombstone(name + "-x", null, null, null,
                    LONG_AGO, null, "x".repeat(999_800))).data(), true));
        }
        playGarbageCollector("gpu-a11");

        CliRun removed = remove();

        assertThat(removed.exitCode()).as(removed.all()).isEqualTo(5);
        assertThat(removed.err()).contains("the tombstone of gpu-a11 cannot be recorded in the ledger (nodegate-system):"
                + " all 16 shards are full", "Nothing deleted");
        assertThat(api.client().nodes().withName("gpu-a11").get()).isNotNull();
        assertThat(api.requestLog()).noneMatch(l -> l.startsWith("DELETE "));
    }

    @Test
    void aMalformedEntryIsNamedAndSkippedByAuditAndTheWatchAndKeptByTheNextRemove() throws Exception {
        // a hand edit left removedAt "2026-13-01" on gpu-a10's entry; gpu-a09's entry is fine and its host is back
        TombstoneBook book = TombstoneBook.empty()
                .with(new Tombstone("gpu-a09", "uid-a09", "uuid-a09", "machine-gpu-a09", LONG_AGO, null, "kim"))
                .with(new Tombstone("gpu-a10-old", "uid-a10o", "uuid-a10-old", null, LONG_AGO, null, "kim"));
        Map<String, String> data = new java.util.TreeMap<>(book.data());
        data.put("node.gpu-a10-old", data.get("node.gpu-a10-old").replace(LONG_AGO.toString(), "2026-13-01"));
        api.create(shardConfigMap("nodegate-tombstones", data, true));
        api.create(worker("new-09", "uuid-a09", "machine-gpu-a09"));
        Path kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));

        CliRun audit = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "-o", "json");
        assertThat(audit.exitCode()).as(audit.all()).isEqualTo(1);
        JsonNode report = JSON.readTree(audit.out());
        assertThat(report.get("findings").findValuesAsString("code")).contains("NG302");
        assertThat(report.get("notes").toString()).contains("unreadable tombstone skipped: tombstone node.gpu-a10-old:"
                + " removedAt '2026-13-01' is not an ISO-8601 UTC time");

        // the watch builds the same state from its informers: one pass, not a failed one
        CliRun watch = CliRun.run(io.nodegate.cli.Environment.system().withClient(client), "watch", "--once");
        assertThat(watch.exitCode()).as(watch.all()).isEqualTo(1);
        JsonNode fromWatch = JSON.readTree(watch.out());
        assertThat(fromWatch.get("findings").findValuesAsString("code")).contains("NG302");
        assertThat(fromWatch.get("notes").toString()).contains("node.gpu-a10-old", "2026-13-01");

        // and the next removal keeps the entry and its quarantine keys exactly as they were
        playGarbageCollector("gpu-a11");
        CliRun removed = remove();
        assertThat(removed.exitCode()).as(removed.all()).isZero();
        Map<String, String> after = api.client().configMaps().inNamespace(NS).withName("nodegate-tombstones").get()
                .getData();
        assertThat(after).containsEntry("node.gpu-a10-old", data.get("node.gpu-a10-old"))
                .containsEntry("systemuuid.uuid-a10-old", "gpu-a10-old").containsKey("node.gpu-a11");
        assertThat(admit(worker("new-10", "uuid-a10-old", "")).allowed()).isFalse();
    }

    /**
     * Hosts built from one image share /etc/machine-id (siderolabs/talos#4759): a machineID that live Nodes report
     * with other systemUUIDs is the image's, and a tombstone on it would refuse every new host built from that image.
     * It is not recorded; the quarantine follows the host by its systemUUID.
     */
    @Test
    void aMachineIdThatLiveNodesReportWithOtherSystemUuidsIsAnImagesAndIsNotTombstoned() throws Exception {
        String image = "ad432f2cb0c28bbcd1f87a20199237f9";
        api.client().nodes().withName("gpu-a11").edit(n -> {
            n.getStatus().getNodeInfo().setMachineID(image);
            return n;
        });
        api.create(worker("clone-1", "uuid-clone-1", image));
        playGarbageCollector("gpu-a11");

        CliRun removed = remove();

        assertThat(removed.exitCode()).as(removed.all()).isZero();
        assertThat(removed.out()).contains("its machineID " + image + " is also reported by live Nodes with other "
                + "systemUUIDs (clone-1): an image's, not the host's, so it was not recorded");
        Tombstone t = new TombstoneLedger(client, NS).find("gpu-a11").orElseThrow();
        assertThat(t.systemUuid()).isEqualTo("uuid-a11");
        assertThat(t.machineId()).isNull();
        assertThat(api.client().configMaps().inNamespace(NS).withName("nodegate-tombstones").get().getData())
                .doesNotContainKey("machineid." + image);
        // a new host from the same image registers; the removed host under a new name is still refused
        QuarantineScenarioTest.waitUntilTheServerClockPasses(t.removedAt());
        assertThat(admit(worker("new-vm", "uuid-new-vm", image)).allowed()).isTrue();
        assertThat(admit(worker("new-a11", "uuid-a11", image)).allowed()).isFalse();
    }

    @Test
    void aNodeThatSharesTheIdentityWhenTheHostIsRemovedStaysExemptAndANewNameDoesNot() throws Exception {
        // twin-a11 is a cloned VM with gpu-a11's firmware UUID, live when gpu-a11 is removed
        Node twin = worker("twin-a11", "UUID-A11", "machine-twin-a11");
        api.create(twin);
        playGarbageCollector("gpu-a11");

        CliRun removed = remove();

        assertThat(removed.exitCode()).as(removed.all()).isZero();
        assertThat(removed.out()).contains("live Nodes sharing its identity stay exempt from the quarantine: systemUUID"
                + " [twin-a11]");
        Tombstone t = new TombstoneLedger(client, NS).find("gpu-a11").orElseThrow();
        assertThat(t.liveSameSystemUuid()).containsExactly("twin-a11");
        assertThat(t.liveSameMachineId()).isEmpty();

        // its kubelet restarts and POSTs its Node (tryRegisterWithAPIServer): admission runs before AlreadyExists
        assertThat(admit(twin).allowed()).isTrue();
        QuarantineScenarioTest.waitUntilTheServerClockPasses(t.removedAt());
        Node newcomer = worker("new-a11", "uuid-a11", "machine-new-a11");
        assertThat(admit(newcomer)).satisfies(d -> {
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("systemUUID uuid-a11 is tombstoned as gpu-a11");
        });

        // audit: twin-a11 existed before the removal, so it is no return; new-a11 is one (warning: its machine-id differs)
        api.create(newcomer);
        Path kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));
        JsonNode report = JSON.readTree(CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "-o", "json").out());
        List<JsonNode> ng302 = new ArrayList<>();
        report.get("findings").forEach(f -> {
            if ("NG302".equals(f.get("code").asString())) {
                ng302.add(f);
            }
        });
        assertThat(ng302).singleElement().satisfies(f -> assertThat(f.get("nodes").get(0).asString())
                .isEqualTo("new-a11"));
    }

    @Test
    void theHandOverReplayIsNoReturnAndAHandedToDestinationIsTheExpectedArrival() throws Exception {
        try (ApiTestServer clusterB = ApiTestServer.start()) {
            // the host has served cluster-b since before A removes its stale Node
            clusterB.create(worker("b-gpu-11", "uuid-a11", "machine-gpu-a11"));
            playGarbageCollector("gpu-a11");
            CliRun removed = remove("--handed-to", "cluster-b");
            assertThat(removed.exitCode()).as(removed.all()).isZero();
            assertThat(removed.out()).contains("; handed to cluster-b");
            Tombstone t = new TombstoneLedger(client, NS).find("gpu-a11").orElseThrow();
            assertThat(t.handedTo()).isEqualTo("cluster-b");

            Path kcA = api.writeKubeconfig(tmp.resolve("a.yaml"), "cluster-a");
            Path kcB = clusterB.writeKubeconfig(tmp.resolve("b.yaml"), "cluster-b");
            CliRun fleet = CliRun.run("fleet", "--kubeconfig", kcA.toString(), "--kubeconfig", kcB.toString(),
                    "-o", "json");
            assertThat(fleet.exitCode()).as(fleet.all()).isZero();
            assertThat(JSON.readTree(fleet.out()).get("findings")).singleElement().satisfies(f -> {
                assertThat(f.get("code").asString()).isEqualTo("NG302");
                assertThat(f.get("severity").asString()).isEqualTo("info");
                assertThat(f.get("message").asString()).contains("handed to cluster-b", "the expected arrival");
            });

            // without a recorded destination the same replay says nothing: B's Node predates the removal
            new TombstoneLedger(client, NS).record(new Tombstone(t.name(), t.uid(), t.systemUuid(), t.machineId(),
                    t.removedAt(), t.gateRecordSha256(), t.removedBy()));
            CliRun replay = CliRun.run("fleet", "--kubeconfig", kcA.toString(), "--kubeconfig", kcB.toString(),
                    "-o", "json");
            assertThat(replay.exitCode()).as(replay.all()).isZero();
            assertThat(JSON.readTree(replay.out()).get("findings")).isEmpty();

            // the same host registering in A after its removal is a return: critical, and only A is told to act
            QuarantineScenarioTest.waitUntilTheServerClockPasses(t.removedAt());
            api.create(worker("gpu-a11-back", "uuid-a11", "machine-gpu-a11"));
            JsonNode back = JSON.readTree(CliRun.run("fleet", "--kubeconfig", kcA.toString(), "--kubeconfig",
                    kcB.toString(), "-o", "json").out()).get("findings");
            assertThat(back.findValuesAsString("code")).contains("NG302");
            back.forEach(f -> {
                if ("NG302".equals(f.get("code").asString())) {
                    assertThat(f.get("severity").asString()).isEqualTo("critical");
                    assertThat(f.get("evidence").get("cluster").asString()).isEqualTo("cluster-a");
                }
            });
        }
        assertThat(remove("--handed-to", "  ").exitCode()).isEqualTo(2);
    }
}
