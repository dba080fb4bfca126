package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.nodegate.source.Kinds;
import io.nodegate.source.ReadKind;
import io.nodegate.source.live.ApiCalls;
import io.nodegate.source.live.KubeConnection;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
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
    private final List<String> heard = new CopyOnWriteArrayList<>();
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
        connection = KubeConnection.openForModel(api.writeKubeconfig(tmp.resolve("kubeconfig")), null,
                Duration.ofSeconds(5));
        watch = new KindWatch(new ApiCalls(connection), kind, new KindWatch.Listener() {
            @Override
            public void added(ReadKind<?, ?> k, Map<String, Object> object) {
                heard.add("added " + name(object));
            }

            @Override
            public void updated(ReadKind<?, ?> k, Map<String, Object> before, Map<String, Object> after) {
                heard.add("updated " + name(after));
            }

            @Override
            public void deleted(ReadKind<?, ?> k, Map<String, Object> object) {
                heard.add("deleted " + name(object));
            }
        }, log::add, minWatchSeconds);
        watch.start();
        return watch;
    }

    @SuppressWarnings("unchecked")
    private static String name(Map<String, Object> object) {
        return (String) ((Map<String, Object>) object.get("metadata")).get("name");
    }

    private List<String> names() {
        return watch.objects().stream().map(KindWatchTest::name).sorted().toList();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline).as("timed out waiting for: " + what).isTrue();
            Thread.sleep(20);
        }
    }

    @Test
    void listsThenFollowsAddsUpdatesAndDeletes() throws Exception {
        api.create(node("n1"), node("n2"));
        start(Kinds.NODES, 300);
        await("listed and watching", watch::healthy);
        assertThat(names()).containsExactly("n1", "n2");
        assertThat(heard).containsExactlyInAnyOrder("added n1", "added n2");

        api.create(node("n3"));
        await("n3 added", () -> heard.contains("added n3"));
        api.apply(new NodeBuilder(node("n1")).editSpec().withUnschedulable(true).endSpec().build());
        await("n1 updated", () -> heard.contains("updated n1"));
        api.delete(node("n2"));
        await("n2 deleted", () -> heard.contains("deleted n2"));
        assertThat(names()).containsExactly("n1", "n3");
        assertThat(watch.objects()).filteredOn(o -> name(o).equals("n1")).singleElement()
                .satisfies(o -> assertThat(o.get("spec")).isEqualTo(Map.of("unschedulable", true)));
        assertThat(api.requests("GET", "/api/v1/nodes")).as("one LIST, then one watch").isEqualTo(2);
    }

    @Test
    void aWatchTheServerEndsIsOpenedAgainFromTheLastVersionWithoutListing() throws Exception {
        api.bookmarkEvery(Duration.ofMillis(100));
        api.create(node("n1"));
        start(Kinds.NODES, 1);
        await("listed and watching", watch::healthy);
        api.create(node("n2"));
        await("n2 added", () -> heard.contains("added n2"));
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
        await("listed and watching", watch::healthy);

        // compaction: the open watch gets ERROR 410 and closes; a change lands before the client lists again
        api.failOn("GET", "/api/v1/nodes", 500);
        api.expireWatches();
        api.delete(node("n1"));
        api.create(node("n9"));
        await("the re-list failed and is said", () -> watch.lastError() != null && !watch.healthy());
        assertThat(watch.lastError()).contains("500");
        assertThat(names()).as("an error never empties the store").containsExactly("n1", "n2");
        assertThat(heard).doesNotContain("deleted n1");

        api.clearFailures();
        await("listed again", watch::healthy);
        assertThat(names()).containsExactly("n2", "n9");
        assertThat(heard).contains("deleted n1", "added n9");
        assertThat(log).anySatisfy(line -> assertThat(line).contains("410 Gone"));
    }

    @Test
    void aSecretIsHeldWithoutItsValues() throws Exception {
        Secret secret = new SecretBuilder().withNewMetadata().withName("w1.node-password.rke2")
                .withNamespace("kube-system").endMetadata()
                .addToData("hash", "c2VjcmV0LXZhbHVlLW5ldmVyLWhlbGQ=").build();
        api.create(secret);
        start(Kinds.KUBE_SYSTEM_SECRETS, 300);
        await("listed and watching", watch::healthy);
        api.apply(new SecretBuilder(secret).addToData("other", "YW5vdGhlcg==").build());
        await("updated", () -> heard.contains("updated w1.node-password.rke2"));
        assertThat(watch.objects()).singleElement().satisfies(o -> assertThat(o).doesNotContainKeys("data"));
        assertThat(watch.objects().toString()).doesNotContain("c2VjcmV0");
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
