package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.TestClock;
import io.nodegate.model.LeaseInfo;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lease renewals are heartbeats, not changes: over real HTTP against the test API server, kubelets renewing their
 * Leases cause no debounced pass (counted on nodegate_evaluations_total), while a Lease deleted or taken by another
 * holder does. The interval pass (here called by hand: the interval is an hour, so no pass runs unasked) sees the
 * renewals, through the cache that keeps each Lease's model and moves only its renewTime.
 */
class WatchRenewalTest {

    private static final Map<String, String> WORKER = Map.of("node-role.kubernetes.io/worker", "true");
    private static final List<String> NODES = List.of("w1", "w2", "w3", "w4");

    private ApiTestServer api;
    private TestClock clock;
    private KubernetesClient client;
    private WatchService service;
    private final List<String> log = new CopyOnWriteArrayList<>();

    @BeforeEach
    void cluster() {
        api = ApiTestServer.start().bookmarkEvery(Duration.ofMillis(300));
        clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        api.create(new NamespaceBuilder().withNewMetadata().withName("nodegate-system").endMetadata().build());
        for (String name : NODES) {
            api.create(node(name), SeedCluster.lease(name, clock.instant()));
        }
    }

    @AfterEach
    void stop() {
        log.forEach(l -> System.err.println("WATCHLOG " + l));
        if (service != null) {
            service.close();
        }
        if (client != null) {
            client.close();
        }
        api.close();
    }

    private Node node(String name) {
        return SeedCluster.node(name, "10.0.1." + (10 + NODES.indexOf(name)), "True", false, WORKER, "boot-" + name,
                "uuid-" + name, 0, clock.instant(), clock.instant());
    }

    /** A watch whose only passes are the debounced ones (100 ms after a change): its interval is an hour. */
    private WatchService watch() throws InterruptedException {
        client = api.newClient();
        var settings = new WatchService.Settings(Duration.ofHours(1), Duration.ofMillis(100), null, null, "renewals",
                Duration.ofSeconds(2), Duration.ofMillis(1500), Duration.ofMillis(250), true, 50, 100, false,
                AuditSettings.DEFAULTS, Detectors.all(), Duration.ofSeconds(5), "live: test", null, api.url(), "test");
        service = new WatchService(settings, io.nodegate.source.kube.KubeConnection.wrapping(client, java.time.Duration.ofSeconds(10)), clock, log::add);
        service.start();
        await("informers synced", () -> service.cache().started() && service.cache().unhealthy().isEmpty());
        // a Node change after sync: its debounced pass is the first good one
        api.apply(labelled(node("w1"), "synced"));
        await("a good pass", () -> service.engine().lastGood() != null);
        awaitQuiet();
        return service;
    }

    /**
     * A Node change the watch holds: an annotation of nodegate's own (KeptNodeMetadata keeps nodegate.io/*); a label no
     * check reads is dropped while parsing, so changing it changes nothing the watch holds.
     */
    private static Node labelled(Node node, String value) {
        java.util.Map<String, String> annotations = new java.util.HashMap<>();
        if (node.getMetadata().getAnnotations() != null) {
            annotations.putAll(node.getMetadata().getAnnotations());
        }
        annotations.put("nodegate.io/test-mark", value);
        node.getMetadata().setAnnotations(annotations);
        return node;
    }

    private long evaluations() {
        return service.metrics().render().lines().filter(l -> l.startsWith("nodegate_evaluations_total "))
                .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(' ') + 1))).findFirst().orElseThrow();
    }

    /** Waits until no pass has run for 600 ms (six debounce periods). */
    private void awaitQuiet() throws InterruptedException {
        long seen = -1;
        while (seen != evaluations()) {
            seen = evaluations();
            Thread.sleep(600);
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(20);
        }
        assertThat(condition.getAsBoolean()).as("timed out waiting for: " + what).isTrue();
    }

    private LeaseInfo leaseInPass(WatchEngine.Pass pass, String node) {
        return pass.state().nodeLeases().stream().filter(l -> l.name().equals(node)).findFirst().orElse(null);
    }

    @Test
    void renewalsAloneCauseNoPassButTheIntervalPassSeesThem() throws Exception {
        watch();
        long passes = evaluations();
        long updatesBefore = service.cache().updatesSeen();
        long renewalsBefore = service.cache().renewalsSeen();
        Instant t0 = clock.instant();

        // three rounds of kubelet heartbeats, 10 s apart on the cluster's clock
        for (int round = 1; round <= 3; round++) {
            clock.set(t0.plusSeconds(10L * round));
            for (String n : NODES) {
                api.apply(SeedCluster.lease(n, clock.instant()));
            }
        }
        await("the informer saw all 12 updates", () -> service.cache().updatesSeen() >= updatesBefore + 12);
        Thread.sleep(600);
        assertThat(evaluations()).as("renewals are heartbeats: no debounced pass").isEqualTo(passes);
        assertThat(service.cache().renewalsSeen() - renewalsBefore).as("each one a renewal").isEqualTo(12);

        // the interval pass (run by hand here) sees the newest renewTimes
        WatchEngine.Pass pass = service.engine().evaluate();
        assertThat(pass.ok()).as(pass.error()).isTrue();
        for (String n : NODES) {
            assertThat(leaseInPass(pass, n).renewTime()).isEqualTo(t0.plusSeconds(30));
        }
        assertThat(evaluations()).isEqualTo(passes + 1);
    }

    /**
     * A kubelet's periodic Node status post that moves only lastHeartbeatTime is a heartbeat too (NodeHeartbeat): no
     * debounced pass, the interval pass sees the new times. The same post with Ready gone Unknown is a change.
     */
    @Test
    void nodeStatusHeartbeatsCauseNoPassButANodeGoingNotReadyDoes() throws Exception {
        watch();
        long passes = evaluations();
        long renewalsBefore = service.cache().renewalsSeen();
        Instant t0 = clock.instant();

        clock.set(t0.plusSeconds(300)); // nodeStatusReportFrequency: 5 minutes
        for (String n : List.of("w2", "w3", "w4")) {
            api.apply(SeedCluster.node(n, "10.0.1." + (10 + NODES.indexOf(n)), "True", false, WORKER, "boot-" + n,
                    "uuid-" + n, 0, clock.instant(), t0));
        }
        await("the informer saw the three posts", () -> service.cache().renewalsSeen() >= renewalsBefore + 3);
        Thread.sleep(600);
        assertThat(evaluations()).as("heartbeat posts: no debounced pass").isEqualTo(passes);

        WatchEngine.Pass pass = service.engine().evaluate();
        assertThat(pass.ok()).as(pass.error()).isTrue();
        assertThat(pass.state().nodes().stream().filter(n -> n.name().equals("w3")).findFirst().orElseThrow()
                .condition("Ready").lastHeartbeatTime()).isEqualTo(t0.plusSeconds(300));
        long afterInterval = evaluations();

        api.apply(SeedCluster.node("w4", "10.0.1.13", "Unknown", false, WORKER, "boot-w4", "uuid-w4", 0,
                t0.plusSeconds(300), clock.instant()));
        await("a pass after w4 went Unknown", () -> evaluations() > afterInterval);
        await("w4 Unknown in a pass", () -> "Unknown".equals(service.engine().lastGood().state().nodes().stream()
                .filter(n -> n.name().equals("w4")).findFirst().orElseThrow().condition("Ready").status()));
    }

    @Test
    void aLeaseDeletedOrTakenOverIsAChangeAndRunsAPass() throws Exception {
        watch();
        long passes = evaluations();

        api.delete(api.client().leases().inNamespace("kube-node-lease").withName("w3").get());
        await("a pass after the Lease went", () -> evaluations() > passes);
        await("the pass without w3's Lease", () -> service.engine().lastGood() != null
                && leaseInPass(service.engine().lastGood(), "w3") == null);
        awaitQuiet();

        long afterDelete = evaluations();
        Lease takenOver = new LeaseBuilder(SeedCluster.lease("w2", clock.instant())).editSpec()
                .withHolderIdentity("someone-else").endSpec().build();
        api.apply(takenOver);
        await("a pass after the holder changed", () -> evaluations() > afterDelete);
        await("the new holder in a pass", () -> "someone-else".equals(
                leaseInPass(service.engine().lastGood(), "w2").holderIdentity()));
    }

    /** The value /metrics shows for {@code node}'s Lease renewal gauge, in Unix seconds, or null without a series. */
    private Double renewGauge(String node) {
        String prefix = "nodegate_node_lease_renew_timestamp_seconds{node=\"" + node + "\"} ";
        return service.metrics().render().lines().filter(l -> l.startsWith(prefix))
                .map(l -> Double.parseDouble(l.substring(prefix.length()))).findFirst().orElse(null);
    }

    private static double seconds(Instant t) {
        return t.toEpochMilli() / 1000.0;
    }

    /**
     * The renewal gauge is read from the watch's Leases at scrape time: a renewal that arrived after the last pass
     * (and runs none) is on /metrics at once; a Lease nobody renewed keeps its renewTime while the clock moves on,
     * and a change that is not a renewal (a label) does not move it. Thread-safety: the scrape walks the Lease
     * watch's ConcurrentHashMap while the watch thread puts into it (KindWatch#forEachHeld): each model is an
     * immutable LeaseInfo published by the put, and the renderer never reads the plain object a renewal edits in
     * place.
     */
    @Test
    void theRenewalGaugeShowsARenewalThatArrivedAfterTheLastPassAndNoneThatDidNot() throws Exception {
        watch();
        long passes = evaluations();
        Instant t0 = clock.instant();
        WatchEngine.Pass last = service.engine().lastGood();
        assertThat(renewGauge("w2")).isEqualTo(seconds(t0));

        // w2's kubelet renews 10 s later (with microseconds, as kubelets stamp renewTime); w3's does not
        Instant renewed = t0.plusSeconds(10).plusNanos(123_456_000);
        clock.set(t0.plusSeconds(30));
        long renewalsBefore = service.cache().renewalsSeen();
        api.apply(SeedCluster.lease("w2", renewed));
        await("the informer saw the renewal", () -> service.cache().renewalsSeen() > renewalsBefore);

        assertThat(renewGauge("w2")).as("the renewal, on the next scrape").isEqualTo(seconds(renewed));
        assertThat(evaluations()).as("without a pass").isEqualTo(passes);
        assertThat(leaseInPass(service.engine().lastGood(), "w2").renewTime())
                .as("the last pass still holds the older renewTime").isEqualTo(t0);
        assertThat(service.engine().lastGood()).isSameAs(last);
        assertThat(renewGauge("w3")).as("no renewal happened: the clock moving changes nothing")
                .isEqualTo(seconds(t0));

        // a label on w3's Lease is a change, not a renewal: its renewTime stays what the kubelet wrote
        Lease labelledLease = new LeaseBuilder(SeedCluster.lease("w3", t0)).editMetadata()
                .addToLabels("example.com/mark", "x").endMetadata().build();
        long updatesBefore = service.cache().updatesSeen();
        api.apply(labelledLease);
        await("the informer saw the label", () -> service.cache().updatesSeen() > updatesBefore);
        assertThat(renewGauge("w3")).isEqualTo(seconds(t0));

        // a Lease deleted is gone from the next scrape: the gauge says what the watch holds
        long beforeDelete = service.cache().updatesSeen();
        api.delete(api.client().leases().inNamespace("kube-node-lease").withName("w4").get());
        await("the informer saw the delete", () -> service.cache().updatesSeen() > beforeDelete);
        assertThat(renewGauge("w4")).isNull();
        assertThat(renewGauge("w1")).isEqualTo(seconds(t0));
    }
}
