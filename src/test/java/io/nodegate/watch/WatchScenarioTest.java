package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.TestClock;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The field cases played as streams of changes against the test API server over real HTTP (LIST + WATCH with
 * resourceVersions, bookmarks, 410 Gone), with the watch's real informers, HTTP endpoints, Events and leader
 * election. Durations are scaled down (interval 400 ms, debounce 100 ms, Lease 2 s) and ages run on a test clock,
 * so nothing waits for real minutes.
 */
class WatchScenarioTest {

    private static final Map<String, String> WORKER = Map.of("node-role.kubernetes.io/worker", "true");
    /** How long a wait for a condition may take before the test fails: an upper bound, not a pause. */
    private static final Duration BUDGET = Await.LOADED_MACHINE;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private ApiTestServer api;
    private TestClock clock;
    private final List<WatchService> services = new ArrayList<>();
    private final List<KubernetesClient> clients = new ArrayList<>();
    private final List<String> log = new CopyOnWriteArrayList<>();

    @BeforeEach
    void cluster() {
        api = ApiTestServer.start().bookmarkEvery(Duration.ofMillis(300));
        clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        api.create(new NamespaceBuilder().withNewMetadata().withName("nodegate-system").endMetadata().build());
        for (String name : List.of("w1", "w2", "w3", "w4", "w5", "w6")) {
            api.create(node(name, "uuid-" + name, WORKER), SeedCluster.lease(name, clock.instant()));
        }
    }

    @AfterEach
    void stop() {
        log.forEach(l -> System.err.println("WATCHLOG " + l));
        services.forEach(WatchService::close);
        clients.forEach(KubernetesClient::close);
        api.close();
    }

    private Node node(String name, String uuid, Map<String, String> roles) {
        return SeedCluster.node(name, "10.0.0." + (10 + Math.abs(name.hashCode() % 200)), "True", false, roles,
                "boot-" + name, uuid, 0, clock.instant(), clock.instant());
    }

    /**
     * One replica, alone: its leader Lease is long (30 s, renewed within 20 s), because these tests are not about
     * failing over. With the 2 s Lease of the fail-over test, a loaded machine delays a renewal past its 1.5 s
     * deadline now and then; the replica stops leading for a moment, and a finding that appears in that moment is
     * followed without an Event (by design a replica that does not lead posts nothing, and on taking over it
     * announces only what changes from then on), so the test waited for an Event that never came.
     */
    private WatchService watchAlone() {
        return watch("replica-a", true, Duration.ofSeconds(30), Duration.ofSeconds(20), Duration.ofMillis(500));
    }

    /** A replica of a pair: a short Lease, so that a fail-over happens within the test's budgets. */
    private WatchService watch(String identity, boolean releaseOnStop) {
        return watch(identity, releaseOnStop, Duration.ofSeconds(2), Duration.ofMillis(1500), Duration.ofMillis(250));
    }

    private WatchService watch(String identity, boolean releaseOnStop, Duration lease, Duration renewDeadline,
                               Duration retry) {
        KubernetesClient client = api.newClient();
        clients.add(client);
        var settings = new WatchService.Settings(Duration.ofMillis(400), Duration.ofMillis(100),
                new InetSocketAddress("127.0.0.1", 0), "nodegate-system", identity, lease,
                renewDeadline, retry, releaseOnStop, 50, 100, true,
                AuditSettings.DEFAULTS, Detectors.all(), Duration.ofSeconds(5), "live: test", null, api.url(), "test");
        WatchService service = new WatchService(settings, io.nodegate.source.kube.KubeConnection.wrapping(client, java.time.Duration.ofSeconds(10)), clock, line -> log.add(identity + ": " + line));
        services.add(service);
        service.start();
        return service;
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(50);
        }
        assertThat(condition.getAsBoolean()).as("timed out waiting for: " + what).isTrue();
    }

    private static HttpResponse<String> get(WatchService s, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.httpPort() + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private List<Event> events() {
        return api.client().v1().events().inNamespace("default").list().getItems();
    }

    private List<Event> events(String reason, String node) {
        return events().stream().filter(e -> reason.equals(e.getReason())
                && node.equals(e.getInvolvedObject().getName())).toList();
    }

    /** Keeps the healthy kubelets' Leases renewing at the test clock's time. */
    private void renew(String... nodes) {
        for (String n : nodes) {
            api.apply(SeedCluster.lease(n, clock.instant()));
        }
    }

    @Test
    void renamedRejoinAndBareNewcomerAreEventsAndMetricsOnceAndResolveWhenTheOldNameGoes() throws Exception {
        WatchService s = watchAlone();
        await("ready", BUDGET, () -> get(s, "/readyz").statusCode() == 200);
        assertThat(get(s, "/findings").body()).doesNotContain("NG110");
        assertThat(get(s, "/metrics").body()).contains("nodegate_informer_synced{kind=\"nodes\"} 1",
                "nodegate_leader 1", "nodegate_host_info{node=\"w1\",system_uuid=\"uuid-w1\"");

        // the host of w1 is reinstalled as w1-new: a brand-new Node (no role, no cordon) with w1's systemUUID
        api.create(node("w1-new", "uuid-w1", Map.of()), SeedCluster.lease("w1-new", clock.instant()));
        await("SameHostTwoNames Event", BUDGET, () -> !events("SameHostTwoNames", "w1-new").isEmpty());
        await("BareNewcomer Event", BUDGET, () -> !events("BareNewcomer", "w1-new").isEmpty());
        Event rejoin = events("SameHostTwoNames", "w1-new").get(0);
        assertThat(rejoin.getType()).isEqualTo("Warning");
        assertThat(rejoin.getMessage()).startsWith("NG110 ");
        assertThat(rejoin.getInvolvedObject().getKind()).isEqualTo("Node");
        // one Event on each node the finding names, posted one after the other: wait for the second too
        await("SameHostTwoNames Event on w1", BUDGET,
                () -> !events("SameHostTwoNames", "w1").isEmpty());
        assertThat(events("SameHostTwoNames", "w1")).hasSize(1);
        assertThat(get(s, "/metrics").body())
                .contains("nodegate_finding{code=\"NG110\",name=\"SameHostTwoNames\",severity=\"warning\",node=\"w1-new\"} 1")
                .contains("nodegate_finding{code=\"NG111\",name=\"BareNewcomer\",severity=\"warning\",node=\"w1-new\"} 1")
                .contains("nodegate_findings{code=\"NG110\",severity=\"warning\"} 1");

        // many passes later (interval and bookmarks keep them coming): still one Event per appearance
        long passes = s.engine().last() == null ? 0 : 1;
        long before = evaluations(s);
        await("five more passes", BUDGET, () -> evaluations(s) >= before + 5);
        assertThat(events("SameHostTwoNames", "w1-new")).hasSize(1);
        assertThat(events("BareNewcomer", "w1-new")).hasSize(1);
        assertThat(passes).isEqualTo(1);

        // recovery: the old name is cleaned up; NG110 goes, and says so once on each node it named
        api.delete(api.client().nodes().withName("w1").get());
        await("NodegateResolved on w1-new", BUDGET,
                () -> !events("NodegateResolved", "w1-new").isEmpty());
        assertThat(events("NodegateResolved", "w1-new")).hasSize(1)
                .allSatisfy(e -> assertThat(e.getMessage()).startsWith("NG110 ").contains("resolved"));
        await("NodegateResolved on w1", BUDGET, () -> !events("NodegateResolved", "w1").isEmpty());
        assertThat(events("NodegateResolved", "w1").get(0).getType()).isEqualTo("Normal");
        // resolved: no per-node series, and the per-code count reads 0 (checked, none), not absent (not checked)
        assertThat(get(s, "/metrics").body()).doesNotContain("nodegate_finding{code=\"NG110\"")
                .contains("nodegate_findings{code=\"NG110\",severity=\"warning\"} 0\n");
    }

    private static long evaluations(WatchService s) {
        return s.metrics().render().lines().filter(l -> l.startsWith("nodegate_evaluations_total "))
                .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(' ') + 1))).findFirst().orElse(0);
    }

    @Test
    void fourLeasesStoppingWithin12SecondsAreABatchAfterTheGracePeriod() throws Exception {
        WatchService s = watchAlone();
        await("ready", BUDGET, () -> get(s, "/readyz").statusCode() == 200);
        Instant t0 = clock.instant();
        // w1..w4 renew for the last time 0, 4, 8 and 12 s after t0; w5 and w6 go on renewing
        for (int i = 0; i < 4; i++) {
            clock.set(t0.plusSeconds(4L * i));
            renew("w" + (i + 1), "w5", "w6");
        }
        // 42 s after w1's last renewal: within the 50 s grace period (v1.34), nothing is silent yet
        clock.set(t0.plusSeconds(12 + 30));
        renew("w5", "w6");
        long passes = evaluations(s);
        await("two more passes", BUDGET, () -> evaluations(s) >= passes + 2);
        assertThat(events("BatchSilence", "w1")).as("within the grace period").isEmpty();

        clock.set(t0.plusSeconds(12 + 51));
        renew("w5", "w6");
        // one Event on each of the four nodes, posted one after the other: wait for all of them
        await("BatchSilence Events", BUDGET, () -> List.of("w1", "w2", "w3", "w4").stream()
                .noneMatch(n -> events("BatchSilence", n).isEmpty()));
        assertThat(events("BatchSilence", "w1")).hasSize(1)
                .allSatisfy(e -> assertThat(e.getMessage()).startsWith("NG103 4 node Leases stopped renewing"));
        assertThat(events("BatchSilence", "w5")).isEmpty();
        assertThat(get(s, "/metrics").body()).contains("nodegate_node_lease_renew_timestamp_seconds{node=\"w4\"} "
                + t0.plusSeconds(12).getEpochSecond());
    }

    /**
     * A replica that starts alone may run its first passes before its first read of the leader Lease answers (on a
     * loaded machine it often does). Those passes must not count as followed: when the replica then wins the Lease,
     * what it found before is announced. The Lease's reads fail at first, so the passes certainly come first here.
     */
    @Test
    void findingsOfThePassesBeforeTheReplicaKnowsWhoLeadsAreAnnouncedWhenItLeads() throws Exception {
        String leasePath = "/apis/coordination.k8s.io/v1/namespaces/nodegate-system/leases/" + WatchService.LEASE_NAME;
        api.failOn("GET", leasePath, 500);
        api.create(node("w1-new", "uuid-w1", WORKER), SeedCluster.lease("w1-new", clock.instant()));
        WatchService s = watchAlone();
        await("a good pass with NG110", BUDGET, () -> get(s, "/findings").body().contains("NG110"));
        long passes = evaluations(s);
        await("two more passes", BUDGET, () -> evaluations(s) >= passes + 2);
        assertThat(s.leads()).as("the Lease cannot be read yet").isFalse();
        assertThat(log).noneMatch(l -> l.startsWith("replica-a: leader is"));
        assertThat(events("SameHostTwoNames", "w1")).isEmpty();

        api.clearFailures();
        await("replica-a leads", BUDGET, s::leads);
        await("SameHostTwoNames Event", BUDGET, () -> !events("SameHostTwoNames", "w1").isEmpty());
        assertThat(events("SameHostTwoNames", "w1")).hasSize(1);
    }

    @Test
    void whileTheNodeListFailsNothingResolvesAndReadyzFails() throws Exception {
        api.create(node("w1-new", "uuid-w1", WORKER), SeedCluster.lease("w1-new", clock.instant()));
        WatchService s = watchAlone();
        await("SameHostTwoNames Event", BUDGET, () -> !events("SameHostTwoNames", "w1").isEmpty());
        // the pass that posted it has finished: its findings are the last good ones, and the watch is ready
        await("ready with NG110", BUDGET, () -> get(s, "/readyz").statusCode() == 200
                && get(s, "/findings").body().contains("NG110"));

        // etcd compaction expires the watches, and every LIST of Nodes fails (the 30 s of the field case, scaled)
        api.failOn("GET", "/api/v1/nodes", 500);
        api.expireWatches();
        // every watch expires at once; the one this test is about is the Nodes' (wait for it, not for the first)
        await("readyz fails naming the Nodes", BUDGET, () -> {
            HttpResponse<String> readyz = get(s, "/readyz");
            return readyz.statusCode() == 503 && readyz.body().contains("informer nodes");
        });
        assertThat(get(s, "/metrics").body()).contains("nodegate_informer_synced{kind=\"nodes\"} 0")
                .contains("nodegate_finding{code=\"NG110\"");
        // the cause goes away while the watch cannot see it: nothing may resolve on an error
        api.delete(api.client().nodes().withName("w1-new").get());
        long errorsBefore = errors(s);
        await("failed passes", BUDGET, () -> errors(s) >= errorsBefore + 3);
        assertThat(events("NodegateResolved", "w1")).isEmpty();
        assertThat(get(s, "/findings").body()).contains("NG110");
        assertThat(log).anyMatch(l -> l.contains("informer nodes") && l.contains("500"));

        // the API recovers: the informer re-lists, sees w1-new gone, and only now the finding resolves
        api.clearFailures();
        await("NodegateResolved", Duration.ofSeconds(40), () -> !events("NodegateResolved", "w1").isEmpty());
        await("ready again", BUDGET, () -> get(s, "/readyz").statusCode() == 200);
        assertThat(events("NodegateResolved", "w1")).hasSize(1);
    }

    private static long errors(WatchService s) {
        return s.metrics().render().lines().filter(l -> l.startsWith("nodegate_evaluation_errors_total "))
                .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(' ') + 1))).findFirst().orElse(0);
    }

    @Test
    void whenTheLeaderStopsTheOtherReplicaLeadsWithinTheLeaseAndEventsAreNotRepeated() throws Exception {
        WatchService a = watch("replica-a", false);
        await("a leads", BUDGET, a::leads);
        WatchService b = watch("replica-b", false);
        await("b ready", BUDGET, () -> get(b, "/readyz").statusCode() == 200);
        assertThat(b.leads()).isFalse();
        assertThat(get(b, "/metrics").body()).contains("nodegate_leader 0");

        api.create(node("w1-new", "uuid-w1", WORKER), SeedCluster.lease("w1-new", clock.instant()));
        await("Event from the leader", BUDGET, () -> !events("SameHostTwoNames", "w1").isEmpty());
        await("b saw it too", BUDGET, () -> get(b, "/findings").body().contains("NG110"));

        // the leader process dies without releasing the Lease
        Instant killed = Instant.now();
        a.close();
        await("b leads", Duration.ofSeconds(10), b::leads);
        assertThat(Duration.between(killed, Instant.now())).isLessThan(Duration.ofSeconds(2 + 3));
        assertThat(get(b, "/metrics").body()).contains("nodegate_leader 1");
        Thread.sleep(1000);
        assertThat(events("SameHostTwoNames", "w1")).as("the new leader does not repeat what was announced")
                .hasSize(1);

        // what changes from now on, the new leader says
        api.delete(api.client().nodes().withName("w1").get());
        await("NodegateResolved from b", BUDGET, () -> !events("NodegateResolved", "w1-new").isEmpty());
        assertThat(events("NodegateResolved", "w1-new")).hasSize(1)
                .allSatisfy(e -> assertThat(e.getReportingInstance()).isEqualTo("replica-b"));
    }
}
