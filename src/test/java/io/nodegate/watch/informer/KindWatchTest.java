package io.nodegate.watch.informer;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.nodegate.testing.SeedCluster;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.source.kube.FabricJson;
import io.nodegate.source.kube.Kinds;
import io.nodegate.source.kube.StateAssembler;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.kube.ReadKind;
import io.nodegate.source.kube.ApiCalls;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * nodegate's own list-then-watch, over real HTTP against the test API server's streaming watches: what a
 * client-go reflector guarantees, because the watch's findings are only as true as this store.
 */
class KindWatchTest {

    @TempDir
    Path tmp;

    private ApiTestServer api;
    private KubeConnection connection;
    private KindWatch watch;
    /** Names of the objects mapped into the model, in the order they arrived. */
    private final List<String> mapped = new CopyOnWriteArrayList<>();
    private final AtomicInteger changes = new AtomicInteger();
    private final AtomicInteger renewals = new AtomicInteger();
    private final List<String> log = new CopyOnWriteArrayList<>();

    @BeforeEach
    void server() {
        api = ApiTestServer.start();
    }

    @AfterEach
    void stop() {
        if (watch != null) {
            watch.close();
        }
        if (connection != null) {
            connection.close();
        }
        api.close();
    }

    private static Node node(String name) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().endSpec().build();
    }

    private KindWatch start(ReadKind<?, ?> kind, int minWatchSeconds) {
        return start(kind, minWatchSeconds, Freshness.DEFAULTS, Duration.ofSeconds(5));
    }

    private KindWatch start(ReadKind<?, ?> kind, int minWatchSeconds, Freshness limits, Duration requestTimeout) {
        connection = KubeConnection.openForModel(api.writeKubeconfig(tmp.resolve("kubeconfig")), null,
                requestTimeout);
        watch = new KindWatch(new ApiCalls(connection), kind, (k, object) -> {
            mapped.add(name(object));
            return new KindWatch.Held(object, k.fromJson(StateAssembler.incremental(), object), List.of(), null);
        }, new KindWatch.Listener() {
            @Override
            public void changed(ReadKind<?, ?> k) {
                changes.incrementAndGet();
            }

            @Override
            public void renewed(ReadKind<?, ?> k) {
                renewals.incrementAndGet();
            }
        }, log::add, minWatchSeconds, limits, java.time.Clock.systemUTC());
        watch.start();
        return watch;
    }

    @SuppressWarnings("unchecked")
    private static String name(Map<String, Object> object) {
        return (String) ((Map<String, Object>) object.get("metadata")).get("name");
    }

    private List<String> names() {
        return watch.heldKeys().stream().sorted().toList();
    }

    /** Listed, and a watch open at the server (its answer came), not merely asked for. */
    private boolean watching() {
        return watch.phase() == KindWatch.Phase.WATCHING && watch.healthy();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline).as("timed out waiting for: " + what).isTrue();
            Thread.sleep(20);
        }
    }

    private NodeInfo model(String name) {
        return watch.held().stream().map(h -> (NodeInfo) h.model()).filter(n -> n.name().equals(name))
                .findFirst().orElseThrow();
    }

    @Test
    void listsThenFollowsAddsUpdatesAndDeletes() throws Exception {
        api.create(node("n1"), node("n2"));
        start(Kinds.NODES, 300);
        await("listed and watching", this::watching);
        assertThat(names()).containsExactly("n1", "n2");
        assertThat(mapped).containsExactlyInAnyOrder("n1", "n2");
        assertThat(changes.get()).as("one LIST, one change").isEqualTo(1);

        api.create(node("n3"));
        await("n3 added", () -> names().contains("n3"));
        api.apply(new NodeBuilder(node("n1")).editSpec().withUnschedulable(true).endSpec().build());
        await("n1 updated", () -> model("n1").unschedulable());
        api.delete(node("n2"));
        await("n2 deleted", () -> !names().contains("n2"));
        assertThat(names()).containsExactly("n1", "n3");
        assertThat(changes.get()).isEqualTo(4);
        assertThat(api.requests("GET", "/api/v1/nodes")).as("one LIST, then one watch").isEqualTo(2);
    }

    @Test
    void aWatchTheServerEndsIsOpenedAgainFromTheLastVersionWithoutListing() throws Exception {
        api.bookmarkEvery(Duration.ofMillis(100));
        api.create(node("n1"));
        start(Kinds.NODES, 1);
        await("listed and watching", this::watching);
        api.create(node("n2"));
        await("n2 added", () -> names().contains("n2"));
        // each watch asks the server to end it after 1-2 s: wait for two more watches
        await("watched again twice", () -> watchRequests().size() >= 3);
        List<String> watches = watchRequests();
        assertThat(listRequests()).as("a watch that ended is not a reason to LIST").hasSize(1);
        long listed = versionOf(watches.get(0));
        assertThat(versionOf(watches.get(2))).as("later watches start after n2 (and bookmarks), not from the LIST")
                .isGreaterThan(listed);
        assertThat(watches.get(0)).contains("allowWatchBookmarks=true").contains("timeoutSeconds=");
        assertThat(watch.healthy()).isTrue();
        assertThat(names()).containsExactly("n1", "n2");
    }

    @Test
    void goneMeansListAgainAndTheNewListReplacesTheStore() throws Exception {
        api.create(node("n1"), node("n2"));
        start(Kinds.NODES, 300);
        await("listed and watching", this::watching);

        // compaction: the open watch gets ERROR 410 and closes; changes land before the client can list again
        api.failOn("GET", "/api/v1/nodes", 500);
        api.expireWatches();
        api.delete(node("n1"));
        api.create(node("n9"));
        await("the re-list failed and is said", () -> watch.lastError() != null && !watch.healthy());
        assertThat(watch.lastError()).contains("500");
        assertThat(names()).as("an error never empties the store").containsExactly("n1", "n2");
        int mappedBefore = mapped.size();

        api.clearFailures();
        await("listed again", watch::healthy);
        assertThat(names()).containsExactly("n2", "n9");
        assertThat(mapped.subList(mappedBefore, mapped.size())).as("n2 is held at the same version: not mapped again")
                .containsExactly("n9");
        assertThat(log).anySatisfy(line -> assertThat(line).contains("410 Gone"));
    }

    @Test
    void aLeaseRenewalMovesTheHeldLeaseAndIsNoChange() throws Exception {
        Instant t0 = Instant.parse("2026-12-01T09:00:00Z");
        api.create(SeedCluster.lease("w1", t0));
        start(Kinds.NODE_LEASES, 300);
        await("listed and watching", this::watching);
        int changesBefore = changes.get();

        Lease renewed = SeedCluster.lease("w1", t0.plusSeconds(10));
        api.apply(renewed);
        await("renewed", () -> renewals.get() == 1);
        assertThat(changes.get()).as("a heartbeat is not a change").isEqualTo(changesBefore);
        KindWatch.Held held = watch.held().iterator().next();
        assertThat(held.object()).as("held as its model and a digest, no plain JSON").isNull();
        assertThat(held.heartbeatDigest()).hasSize(32);
        assertThat(((LeaseInfo) held.model()).renewTime()).isEqualTo(t0.plusSeconds(10));
        assertThat(held.model()).as("what a fresh mapping of the renewed Lease gives")
                .isEqualTo(Kinds.NODE_LEASES.fromJson(StateAssembler.incremental(),
                        FabricJson.toPlain(api.client().leases().inNamespace("kube-node-lease").withName("w1").get(),
                                KubeJson.MODEL)));

        api.apply(new LeaseBuilder(renewed).editSpec().withHolderIdentity("someone-else").endSpec().build());
        await("taken over", () -> changes.get() == changesBefore + 1);
        assertThat(((LeaseInfo) watch.held().iterator().next().model()).holderIdentity()).isEqualTo("someone-else");
    }

    /**
     * The watch's cache holds a Node with only the labels and annotations a check reads (KeptNodeMetadata), from its
     * LIST and from its watch events alike: a GPU node's feature-discovery labels are most of its JSON.
     */
    @Test
    void aNodeIsHeldWithOnlyTheLabelsAndAnnotationsTheChecksRead() throws Exception {
        Node gpu = new NodeBuilder(node("gpu-1")).editMetadata()
                .addToLabels(NodeInfo.ROLE_PREFIX + "worker", "true")
                .addToLabels("feature.node.kubernetes.io/cpu-cpuid.AVX2", "true")
                .addToLabels("nvidia.com/gpu.product", "NVIDIA-A16-4Q")
                .addToAnnotations("rke2.io/node-args", "[\"agent\"]")
                .addToAnnotations("nfd.node.kubernetes.io/feature-labels", "cpu-cpuid.AVX2")
                .endMetadata().build();
        api.create(gpu);
        start(Kinds.NODES, 300);
        await("listed and watching", this::watching);
        assertThat(model("gpu-1").labels()).containsOnlyKeys(NodeInfo.ROLE_PREFIX + "worker");

        api.apply(new NodeBuilder(gpu).editMetadata().addToLabels("nvidia.com/gpu.count", "1")
                .addToLabels(NodeInfo.ROLE_PREFIX + "gpu", "true").endMetadata().build());
        await("the watch event mapped", () -> model("gpu-1").roles().contains("gpu"));
        assertThat(model("gpu-1").labels()).containsOnlyKeys(NodeInfo.ROLE_PREFIX + "worker",
                NodeInfo.ROLE_PREFIX + "gpu");
        assertThat(model("gpu-1").annotations()).containsOnlyKeys("rke2.io/node-args");
        assertThat(watch.held().toString()).doesNotContain("nvidia.com", "feature.node", "nfd.node");
    }

    /**
     * A Node is held once, as its model: change detection reads a digest of its plain JSON, not the JSON itself. An
     * update that moves only labels and annotations no check reads (dropped while parsing) is no change and asks for
     * no pass; one that moves a kept label is a change. The feature-discovery labels are those of the field's GPU node
     * (../shared/field/k8s/edgexr-nori-rke2/nodes.json).
     */
    @Test
    void aNodeIsHeldOnceAndAnUpdateOfDroppedLabelsAsksForNoPass() throws Exception {
        Node gpu = new NodeBuilder(node("gpu-1")).editMetadata()
                .addToLabels(NodeInfo.ROLE_PREFIX + "worker", "true")
                .addToLabels("nvidia.com/gpu.product", "NVIDIA-A16-4Q")
                .addToAnnotations("nfd.node.kubernetes.io/feature-labels", "cpu-cpuid.AVX2")
                .endMetadata().editSpec().endSpec().withNewStatus().addNewCondition().withType("Ready")
                .withStatus("True").withLastHeartbeatTime("2026-12-01T09:00:00Z").endCondition().endStatus().build();
        api.create(gpu);
        start(Kinds.NODES, 300);
        await("listed and watching", this::watching);
        assertThat(watch.held()).singleElement().satisfies(h -> {
            assertThat(h.object()).as("no plain JSON beside the model").isNull();
            assertThat(h.heartbeatDigest()).isNotNull();
        });
        int changesBefore = changes.get();

        api.apply(new NodeBuilder(gpu).editMetadata().addToLabels("nvidia.com/gpu.product", "NVIDIA-A100-80GB")
                .addToLabels("feature.node.kubernetes.io/cpu-cpuid.AVX512F", "true")
                .addToAnnotations("nfd.node.kubernetes.io/feature-labels", "cpu-cpuid.AVX512F").endMetadata().build());
        await("the update of dropped labels arrives", () -> renewals.get() == 1);
        assertThat(changes.get()).as("dropped labels are no change").isEqualTo(changesBefore);

        api.apply(new NodeBuilder(api.client().nodes().withName("gpu-1").get()).editMetadata()
                .addToLabels(NodeInfo.ROLE_PREFIX + "gpu", "true").endMetadata().build());
        await("the update of a kept label is a change", () -> changes.get() == changesBefore + 1);
        assertThat(renewals.get()).isEqualTo(1);
        assertThat(model("gpu-1").roles()).contains("gpu");
        assertThat(model("gpu-1")).as("what a fresh mapping of the Node gives, its repeated texts shared or not")
                .isEqualTo(Kinds.NODES.fromJson(StateAssembler.incremental(),
                        FabricJson.toPlain(api.client().nodes().withName("gpu-1").get(), KubeJson.MODEL)));
    }

    @Test
    void aSecretIsHeldWithoutItsValues() throws Exception {
        Secret secret = new SecretBuilder().withNewMetadata().withName("w1.node-password.rke2")
                .withNamespace("kube-system").endMetadata()
                .addToData("hash", "c2VjcmV0LXZhbHVlLW5ldmVyLWhlbGQ=").build();
        api.create(secret);
        start(Kinds.KUBE_SYSTEM_SECRETS, 300);
        await("listed and watching", this::watching);
        api.apply(new SecretBuilder(secret).addToData("other", "YW5vdGhlcg==").build());
        await("updated", () -> changes.get() == 2);
        assertThat(watch.held()).singleElement().satisfies(h -> assertThat(h.object()).as("held as its model only")
                .isNull());
        assertThat(watch.held().toString()).doesNotContain("c2VjcmV0");
    }

    @Test
    void aServerThatAnswers410ToEveryWatchIsNotListedAgainInATightLoop() throws Exception {
        // a broken server (or proxy): the LIST answers, every WATCH from its version answers 410 Gone
        AtomicInteger lists = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            boolean watching = exchange.getRequestURI().getQuery().contains("watch=true");
            if (!watching) {
                lists.incrementAndGet();
            }
            byte[] body = (watching
                    ? "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Expired\","
                    + "\"code\":410,\"message\":\"too old resource version\"}"
                    : "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"5\"},"
                    + "\"items\":[]}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(watching ? 410 : 200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            connection = KubeConnection.openForModel(ApiTestServer.writeKubeconfig(tmp.resolve("kc-410"), "c",
                    "http://127.0.0.1:" + server.getAddress().getPort()), null, Duration.ofSeconds(5));
            watch = new KindWatch(new ApiCalls(connection), Kinds.NODES,
                    (k, object) -> new KindWatch.Held(object, null, List.of(), null), new KindWatch.Listener() {
                        @Override
                        public void changed(ReadKind<?, ?> k) {
                        }

                        @Override
                        public void renewed(ReadKind<?, ?> k) {
                        }
                    }, log::add, 300);
            watch.start();
            Thread.sleep(2300);
            // LIST, 410, LIST at once, 410 again: then 0.8-1.6 s, LIST, 410, 1.6-3.2 s ... at most 3 LISTs in 2.3 s
            assertThat(lists.get()).as("LISTs in 2.3 s").isBetween(2, 3);
            assertThat(watch.healthy()).isFalse();
        } finally {
            server.stop(0);
        }
    }

    /** Idle limits of a second; the rest as in production. */
    private static Freshness idleAfter(Duration idle) {
        return new Freshness(idle, idle, Duration.ofMillis(500), Duration.ofHours(1), Duration.ofMillis(500),
                Duration.ofMillis(50), Duration.ofSeconds(1), Backoff.CLIENT_GO.scaled(10));
    }

    @Test
    void aStreamThatFallsSilentIsClosedAndWatchedAgainFromItsLastVersion() throws Exception {
        api.bookmarkEvery(Duration.ofMillis(100));
        api.create(node("n1"));
        start(Kinds.NODES, 300, idleAfter(Duration.ofSeconds(1)), Duration.ofSeconds(5));
        await("listed and watching", this::watching);
        api.create(node("n2"));
        await("n2 added", () -> names().contains("n2"));
        // the apiserver host goes away: the stream stays open and says nothing more, not even a bookmark, and a new
        // watch request gets no answer either
        api.holdRequests(r -> r.contains("watch="));
        api.freezeOpenWatches();
        String lastSeen = watch.version();
        int watchesBefore = watchRequests().size();
        api.create(node("n3"));
        await("not fresh once silent past the idle limit", () -> !watch.healthy());
        assertThat(watch.freshnessProblem(System.nanoTime())).containsAnyOf("no event or bookmark", "not answered");
        await("the silent stream closed", () -> watch.restarts().get("idle") == 1);
        assertThat(log).anySatisfy(l -> assertThat(l).startsWith("informer nodes: idle: "));
        // the watch that replaces it is not answered: the copy the dead stream left is not fresh meanwhile, not even
        // within the grace a healthy stream's next request gets (here 500 ms)
        assertThat(watch.healthy()).as(String.valueOf(watch.freshnessProblem(System.nanoTime()))).isFalse();
        assertThat(watch.freshnessProblem(System.nanoTime())).contains("not answered yet");
        // the other apiservers answer: the watch is opened again from the last version it saw
        api.answerRequests();
        await("n3 arrives on a new watch", () -> names().contains("n3"));
        assertThat(listRequests()).as("a silent stream is watched again, not listed again").hasSize(1);
        List<String> watches = watchRequests();
        assertThat(watches.size()).isGreaterThan(watchesBefore);
        assertThat(versionOf(watches.get(watches.size() - 1))).as("from the last version seen")
                .isGreaterThanOrEqualTo(Long.parseLong(lastSeen));
        await("fresh again", watch::healthy);
    }

    @Test
    void aWatchTheServerEndsAtOnceIsAFailureThatBacksOffAndIsSaidOnce() throws Exception {
        api.create(node("n1"));
        api.endWatchesAtOnce(true);
        start(Kinds.NODES, 300);
        Thread.sleep(2200);
        // client-go's back-off: the first watch at once, the next after 0.8-1.6 s, the third after 1.6-3.2 s more
        assertThat(watchRequests()).as("WATCHes in 2.2 s").hasSizeBetween(1, 2);
        assertThat(watch.healthy()).isFalse();
        assertThat(watch.freshnessProblem(System.nanoTime())).contains("very short watch");
        assertThat(log.stream().filter(l -> l.contains("very short watch"))).as("said once, not at each retry")
                .hasSize(1);
        assertThat(watch.restarts().get("short")).isPositive();

        api.endWatchesAtOnce(false);
        await("watching again", watch::healthy);
        api.create(node("n2"));
        await("n2 added", () -> names().contains("n2"));
    }

    @Test
    void aWatchRequestThatIsNeverAnsweredIsNotFreshAndFailsAtTheRequestTimeout() throws Exception {
        api.create(node("n1"));
        start(Kinds.NODES, 300, idleAfter(Duration.ofMinutes(1)), Duration.ofSeconds(1));
        await("listed and watching", () -> watch.phase() == KindWatch.Phase.WATCHING);
        Thread.sleep(1200); // past the short-watch second: the server ending it is no failure
        api.holdRequests(r -> r.contains("watch="));
        api.dropOpenWatches();
        long dropped = System.nanoTime();
        await("not fresh", () -> !watch.healthy());
        assertThat(Duration.ofNanos(System.nanoTime() - dropped)).as("within the answer grace and a tick")
                .isLessThan(Duration.ofSeconds(2));
        assertThat(watch.freshnessProblem(System.nanoTime())).contains("watch request sent").contains("not answered");
        await("the request fails at the request timeout", () -> watch.lastError() != null
                && watch.lastError().contains("no status line or headers"));
        api.answerRequests();
        await("fresh again", watch::healthy);
        api.create(node("n2"));
        await("n2 added", () -> names().contains("n2"));
    }

    private List<String> watchRequests() {
        return api.requestLog().stream().filter(r -> r.startsWith("GET /api/v1/nodes?") && r.contains("watch=true"))
                .toList();
    }

    private List<String> listRequests() {
        return api.requestLog().stream().filter(r -> r.startsWith("GET /api/v1/nodes?") && !r.contains("watch=true"))
                .toList();
    }

    private static long versionOf(String request) {
        String rv = request.replaceFirst(".*[?&]resourceVersion=([0-9]+).*", "$1");
        return Long.parseLong(rv);
    }
}
