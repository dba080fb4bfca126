package io.nodegate.watch;

import io.nodegate.watch.informer.Freshness;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.TestClock;
import io.nodegate.source.kube.KubeConnection;
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
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The field case of the frozen apiserver host and its relatives, against the test API server playing a dead or broken apiserver:
 * the watch never reports from a copy it cannot prove fresh.
 *
 * <p>Time is played ten times faster, through the same code path: the watch's freshness limits are
 * {@link Freshness#DEFAULTS} divided by {@value #SCALE} (idle 7.5 s, Lease idle 3 s, back-off 80 ms to 3 s), the
 * passes run every 1.5 s (15 s / 10), and the kubelets renew every real second while the cluster's clock (a test
 * clock the passes judge ages by) moves 10 s: one renewal per kubelet per 10 cluster-seconds, as kubelets do. The
 * request timeout stays 1 s. So the field's 80 s freeze is 8 real seconds, the grace period of 50 s is 5 real
 * seconds, and "within 60 s" is within 6 real seconds.
 */
class WatchFreshnessTest {

    private static final int SCALE = 10;
    private static final Freshness LIMITS = Freshness.DEFAULTS.scaled(SCALE);
    private static final Duration INTERVAL = Duration.ofMillis(1500);
    private static final Duration CLUSTER_SECONDS_PER_TICK = Duration.ofSeconds(10);
    private static final Map<String, String> WORKER = Map.of("node-role.kubernetes.io/worker", "true");
    private static final Pattern SILENCE = Pattern.compile("\"code\" ?: ?\"(NG101|NG102|NG103)\"");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private ApiTestServer api;
    private TestClock clock;
    private final List<String> nodes = new CopyOnWriteArrayList<>();
    private final List<WatchService> services = new ArrayList<>();
    private final List<KubernetesClient> clients = new ArrayList<>();
    private final List<String> log = new CopyOnWriteArrayList<>();
    private Thread kubelets;
    private volatile boolean stop;

    @BeforeEach
    void cluster() {
        api = ApiTestServer.start().bookmarkEvery(Duration.ofSeconds(6)); // a real apiserver: every minute
        clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        api.create(new NamespaceBuilder().withNewMetadata().withName("nodegate-system").endMetadata().build());
        for (int i = 1; i <= 12; i++) {
            String name = String.format("w%02d", i);
            nodes.add(name);
            api.create(node(name, WORKER), SeedCluster.lease(name, clock.instant()));
        }
    }

    @AfterEach
    void stop() throws InterruptedException {
        stop = true;
        if (kubelets != null) {
            kubelets.join(5_000);
        }
        log.forEach(l -> System.err.println("WATCHLOG " + l));
        services.forEach(WatchService::close);
        clients.forEach(KubernetesClient::close);
        api.close();
    }

    private Node node(String name, Map<String, String> roles) {
        return SeedCluster.node(name, "10.0.1." + (10 + nodes.size()), "True", false, roles, "boot-" + name,
                "uuid-" + name, 0, clock.instant(), clock.instant());
    }

    /** The kubelets: every real second the cluster's clock moves 10 s and every Lease is renewed at it. */
    private void kubeletsRenew() {
        kubelets = new Thread(() -> {
            while (!stop) {
                clock.advance(CLUSTER_SECONDS_PER_TICK);
                for (String n : List.copyOf(nodes)) {
                    if (stop) {
                        return;
                    }
                    api.apply(SeedCluster.lease(n, clock.instant()));
                }
                sleep(1000);
            }
        }, "test-kubelets");
        kubelets.setDaemon(true);
        kubelets.start();
    }

    private WatchService watch(String identity) {
        KubernetesClient client = api.newClient();
        clients.add(client);
        var settings = new WatchService.Settings(INTERVAL, Duration.ofMillis(100),
                new InetSocketAddress("127.0.0.1", 0), "nodegate-system", identity, Duration.ofSeconds(2),
                Duration.ofMillis(1500), Duration.ofMillis(250), true, 50, 100, true,
                AuditSettings.DEFAULTS, Detectors.all(), Duration.ofSeconds(1), "live: test", null, api.url(), "test")
                .withFreshness(LIMITS);
        WatchService service = new WatchService(settings, KubeConnection.wrapping(client, Duration.ofSeconds(1)),
                clock, line -> log.add(identity + ": " + line));
        services.add(service);
        service.start();
        return service;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static HttpResponse<String> get(WatchService s, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.httpPort() + path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** The newest nodegate_node_lease_renew_timestamp_seconds value in a /metrics text; null when none. */
    private static Instant latestRenewal(String metrics) {
        return metrics.lines().filter(l -> l.startsWith("nodegate_node_lease_renew_timestamp_seconds{"))
                .map(l -> Instant.ofEpochMilli(Math.round(Double.parseDouble(l.substring(l.indexOf("} ") + 2)) * 1000)))
                .max(Instant::compareTo).orElse(null);
    }

    private static int status(WatchService s, String path) {
        return get(s, path).statusCode();
    }

    /** The active findings as "CODE node,node" (what /findings says; empty before the first good pass). */
    private static Set<String> findings(WatchService s) {
        Set<String> out = new TreeSet<>();
        WatchEngine.Pass good = s.engine().lastGood();
        if (good != null) {
            good.report().findings().forEach(f -> out.add(f.code() + " " + String.join(",", f.nodes())));
        }
        return out;
    }

    private List<String> eventReasons() {
        return api.client().v1().events().inNamespace("default").list().getItems().stream()
                .map(e -> e.getReason() + " " + e.getInvolvedObject().getName()).toList();
    }

    /** Watches /findings and /metrics all along, noting any silence finding either shows. */
    private final class Sampler implements AutoCloseable {
        final List<String> seen = new CopyOnWriteArrayList<>();
        private final Thread thread;
        private volatile boolean done;

        Sampler(WatchService s) {
            thread = new Thread(() -> {
                while (!done) {
                    HttpResponse<String> findings = get(s, "/findings");
                    Matcher m = SILENCE.matcher(findings.body());
                    if (m.find()) {
                        seen.add("/findings: " + m.group(1));
                    }
                    String metrics = get(s, "/metrics").body();
                    for (String code : List.of("NG101", "NG102", "NG103")) {
                        if (metrics.contains("nodegate_finding{code=\"" + code + "\"")) {
                            seen.add("/metrics: " + code);
                        }
                    }
                    sleep(50);
                }
            }, "test-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            done = true;
            thread.join(10_000);
        }
    }

    /**
     * An HA control plane loses the apiserver host the watch's streams go through. Its connections
     * stay half-open and silent, new requests get no answer for 80 s, and the kubelets keep renewing through the other
     * apiservers. Before, the frozen copy made all 12 Leases look stopped at once: NG103 for the whole cluster, and
     * the Node watch was never replaced (a Node created after recovery never appeared).
     */
    @Test
    void aFrozenApiserverHostMakesNoSilenceFindingAndTheWatchComesBackFresh() throws Exception {
        kubeletsRenew();
        WatchService s = watch("replica-a");
        Await.until("ready", Await.LOADED_MACHINE, () -> status(s, "/readyz") == 200);
        assertThat(findings(s)).noneMatch(f -> f.startsWith("NG10"));

        try (Sampler sampler = new Sampler(s)) {
            // the host dies: open streams freeze for good, nothing new is answered
            api.holdRequests(r -> true);
            api.freezeOpenWatches();
            // every renewal delivered was made before this moment (the kubelets stamp the clock's time)
            Instant frozenAt = clock.instant();
            Duration unready = Await.until("readyz 503", LIMITS.idleLimit(), () -> status(s, "/readyz") == 503);
            // 80 s of the cluster's time, the Leases renewed all along (the outage's length, not a wait)
            sleep(8_000);
            assertThat(status(s, "/readyz")).isEqualTo(503);
            // the frozen Lease stream is closed at the Lease idle limit while a Lease it saw renewing is valid, or
            // at the general limit when that check came late (a loaded machine); either way the copy it left is not
            // fresh from then until the server answers again
            Await.until("readyz names the Lease copy", Await.LOADED_MACHINE,
                    () -> get(s, "/readyz").body().contains("informer node-leases"));
            // the Lease gauge (read from the watch's copy at each scrape) shows no renewal it did not see, and the
            // freshness gauge says the copy is not fresh
            String frozen = get(s, "/metrics").body();
            assertThat(frozen).contains("nodegate_informer_synced{kind=\"node-leases\"} 0\n");
            assertThat(latestRenewal(frozen)).as("the newest renewTime on /metrics during the freeze")
                    .isNotNull().isBeforeOrEqualTo(frozenAt);

            // the other apiservers answer; the dead host's connections stay frozen
            api.answerRequests();
            Duration back = Await.until("readyz 200 again", Await.LOADED_MACHINE,
                    () -> status(s, "/readyz") == 200);
            System.err.println("readyz 503 after " + unready.toMillis() + " ms of freeze, 200 again "
                    + back.toMillis() + " ms after recovery");
            Await.until("renewals after the freeze on /metrics", Await.LOADED_MACHINE,
                    () -> latestRenewal(get(s, "/metrics").body()).isAfter(frozenAt));

            // a bare Node created now is reported within one pass
            // within a pass or so, counted in passes, not seconds: on a loaded machine a pass takes longer than its
            // interval, and the polling below may see one or two more end before it reads the count
            long passesBefore = evaluations(s);
            nodes.add("newcomer");
            api.create(node("newcomer", Map.of()), SeedCluster.lease("newcomer", clock.instant()));
            Await.until("NG111 on the newcomer", Await.LOADED_MACHINE, () -> findings(s).contains("NG111 newcomer"));
            assertThat(evaluations(s)).as("passes until NG111 was reported (one may have been under way)")
                    .isLessThanOrEqualTo(passesBefore + 3);
            // and after the freeze, some more passes: still no silence
            long passes = s.engine().last() == null ? 0 : evaluations(s);
            Await.until("three more passes", Await.LOADED_MACHINE, () -> evaluations(s) >= passes + 3);
            sampler.close();
            assertThat(sampler.seen).as("a silence finding on /findings or /metrics during or after the freeze")
                    .isEmpty();
        }
        assertThat(eventReasons()).noneMatch(r -> r.startsWith("BatchSilence") || r.startsWith("NodeUnknown")
                || r.startsWith("NodeNotReady"));
        assertThat(s.cache().restarts().get("node-leases").get("idle")).as("the frozen Lease stream was closed")
                .isPositive();
        assertThat(log).anyMatch(l -> l.contains("informer node-leases: idle"));
    }

    /**
     * A server (or proxy) that ends every WATCH at once with 200 and no event. Before, each new watch
     * started without delay (36 WATCHes in 2 s with no log line), the copy went stale, NG103 appeared and an active
     * NG111 disappeared. client-go's reflector calls a watch under a second with no event an error and backs off.
     */
    @Test
    void aServerThatEndsEveryWatchAtOnceIsAskedAHandfulOfTimesAndNothingAppearsOrDisappears() throws Exception {
        nodes.add("newcomer");
        api.create(node("newcomer", Map.of()), SeedCluster.lease("newcomer", clock.instant()));
        kubeletsRenew();
        WatchService s = watch("replica-a");
        Await.until("ready with NG111", Await.LOADED_MACHINE, () -> status(s, "/readyz") == 200
                && findings(s).contains("NG111 newcomer"));
        Set<String> before = findings(s);

        int requestsBefore = api.requestLog().size();
        api.endWatchesAtOnce(true);
        api.dropOpenWatches();
        int logged = log.size();
        long start = System.nanoTime();
        List<Set<String>> seen = new ArrayList<>();
        // 20 s of the cluster's time for the count, then on past the grace period (a stale copy would show NG103)
        while (System.nanoTime() - start < Duration.ofSeconds(2).toNanos()) {
            seen.add(findings(s));
            sleep(50);
        }
        List<String> requests = api.requestLog();
        Map<String, Integer> watches = watchesPerPath(requests.subList(requestsBefore, requests.size()));
        while (System.nanoTime() - start < Duration.ofSeconds(7).toNanos()) {
            seen.add(findings(s));
            sleep(50);
        }
        System.err.println("WATCHes per collection in 20 s of the cluster's time: " + watches);
        assertThat(watches).isNotEmpty().allSatisfy((path, n) -> assertThat(n).as("WATCHes of " + path)
                .isLessThanOrEqualTo(6));
        assertThat(seen).as("the findings while every watch ends at once").allMatch(before::equals);
        assertThat(status(s, "/readyz")).isEqualTo(503);
        assertThat(get(s, "/readyz").body()).contains("very short watch");
        List<String> said = log.subList(logged, log.size()).stream()
                .filter(l -> l.contains("informer node-leases") && l.contains("very short watch")).toList();
        // Said once per run of very short watches, not at every retry. On a loaded machine one of the server's
        // "at once" endings can take over a second, which is an ordinary watch by client-go's rule and ends the run,
        // so the count is bounded by the retries rather than fixed at one.
        List<String> after = api.requestLog();
        int leaseWatches = watchesPerPath(after.subList(requestsBefore, after.size())).entrySet().stream()
                .filter(e -> e.getKey().contains("kube-node-lease")).mapToInt(Map.Entry::getValue).sum();
        assertThat(said).as("the failure is said, once per run of short watches").isNotEmpty();
        if (leaseWatches > 1) {
            assertThat(said.size()).as("lines saying it, against the " + leaseWatches + " WATCHes of Leases")
                    .isLessThan(leaseWatches);
        }

        // the server behaves again: the watch comes back and the next pass decides
        api.endWatchesAtOnce(false);
        Await.until("ready again", Await.LOADED_MACHINE, () -> status(s, "/readyz") == 200);
        assertThat(findings(s)).contains("NG111 newcomer").noneMatch(f -> f.startsWith("NG103"));
    }

    /**
     * The Lease watch is re-opened after the server dropped it, and the new request is accepted
     * and never answered. Before, `watching` stayed true while it waited: /readyz 200 for six minutes, BatchSilence
     * Events for every node at +51 s, NodegateResolved for all of them when the request finally timed out.
     */
    @Test
    void aWatchRequestAcceptedAndNeverAnsweredFailsReadyzAndPostsNoEventUntilTheCopyIsFreshAgain()
            throws Exception {
        List<String> posted = new CopyOnWriteArrayList<>();
        api.onRequest((request, body) -> {
            if (request.startsWith("POST /api/v1/namespaces/default/events")) {
                posted.add(body);
            }
        });
        kubeletsRenew();
        WatchService s = watch("replica-a");
        Await.until("ready", Await.LOADED_MACHINE, () -> status(s, "/readyz") == 200 && s.leads());
        int postedBefore = posted.size();

        api.holdRequests(r -> r.startsWith("GET /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?")
                && r.contains("watch="));
        api.dropOpenWatches();
        Await.until("readyz 503 within the idle limit", LIMITS.leaseIdleLimit(), () -> status(s, "/readyz") == 503);
        // 80 s of the cluster's time: past the 50 s grace period, the frozen Leases would be a batch silence
        sleep(8_000);
        assertThat(status(s, "/readyz")).isEqualTo(503);
        assertThat(posted.subList(postedBefore, posted.size())).as("Events while the Lease copy is not fresh")
                .isEmpty();

        api.answerRequests();
        Await.until("ready again", Await.LOADED_MACHINE, () -> status(s, "/readyz") == 200);
        long passes = evaluations(s);
        Await.until("two more passes", Await.LOADED_MACHINE, () -> evaluations(s) >= passes + 2);
        assertThat(posted).noneMatch(body -> body.contains("BatchSilence") || body.contains("NodegateResolved"));
        assertThat(findings(s)).noneMatch(f -> f.startsWith("NG103"));
    }

    private static long evaluations(WatchService s) {
        return s.metrics().render().lines().filter(l -> l.startsWith("nodegate_evaluations_total "))
                .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(' ') + 1))).findFirst().orElse(0);
    }

    /** WATCH requests per collection path in the request log. */
    private static Map<String, Integer> watchesPerPath(List<String> requests) {
        Map<String, Integer> out = new java.util.TreeMap<>();
        for (String r : requests) {
            if (r.startsWith("GET ") && r.contains("watch=")) {
                String path = r.substring(4, r.indexOf('?'));
                out.merge(path, 1, Integer::sum);
            }
        }
        return out;
    }
}
