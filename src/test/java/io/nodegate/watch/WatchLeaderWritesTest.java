package io.nodegate.watch;

import io.nodegate.watch.leadership.LeaderGuard;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
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
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two replicas act as leader at once. A pass checked leadership once, at its start; with slow
 * Event POSTs, the replica that lost the Lease kept posting for a minute, and the two replicas' Events contradicted
 * each other on the same Nodes. Now each Event is preceded by a read of the Lease ({@link LeaderGuard}).
 */
class WatchLeaderWritesTest {

    private static final Map<String, String> WORKER = Map.of("node-role.kubernetes.io/worker", "true");
    private static final Pattern INSTANCE = Pattern.compile("\"reportingInstance\" ?: ?\"([^\"]+)\"");
    private static final String EVENTS = "POST /api/v1/namespaces/default/events";

    /** One Event POST as it reached the store: when, and which replica sent it. */
    private record Write(long atNanos, String instance, String reason) {
    }

    private ApiTestServer api;
    private TestClock clock;
    private final List<WatchService> services = new ArrayList<>();
    private final List<KubernetesClient> clients = new ArrayList<>();
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final List<Write> writes = new CopyOnWriteArrayList<>();

    @BeforeEach
    void cluster() {
        api = ApiTestServer.start().bookmarkEvery(Duration.ofMillis(300));
        clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        api.create(new NamespaceBuilder().withNewMetadata().withName("nodegate-system").endMetadata().build());
        for (String name : List.of("w1", "w2", "w3")) {
            api.create(node(name, WORKER), SeedCluster.lease(name, clock.instant()));
        }
        api.onRequest((request, body) -> {
            if (request.startsWith(EVENTS)) {
                Matcher m = INSTANCE.matcher(body);
                Matcher reason = Pattern.compile("\"reason\" ?: ?\"([^\"]+)\"").matcher(body);
                writes.add(new Write(System.nanoTime(), m.find() ? m.group(1) : "?",
                        reason.find() ? reason.group(1) : "?"));
            }
        });
    }

    @AfterEach
    void stop() {
        log.forEach(l -> System.err.println("WATCHLOG " + l));
        services.forEach(WatchService::close);
        clients.forEach(KubernetesClient::close);
        api.close();
    }

    private Node node(String name, Map<String, String> roles) {
        return SeedCluster.node(name, "10.0.2." + (10 + Math.abs(name.hashCode() % 200)), "True", false, roles,
                "boot-" + name, "uuid-" + name, 0, clock.instant(), clock.instant());
    }

    private WatchService watch(String identity) {
        KubernetesClient client = api.newClient();
        clients.add(client);
        // debounce 2 s: the eight newcomers below are one pass with eight Events
        var settings = new WatchService.Settings(Duration.ofSeconds(30), Duration.ofSeconds(2),
                new InetSocketAddress("127.0.0.1", 0), "nodegate-system", identity, Duration.ofSeconds(2),
                Duration.ofMillis(1500), Duration.ofMillis(250), false, 50, 100, true,
                AuditSettings.DEFAULTS, Detectors.all(), Duration.ofSeconds(5), "live: test", null, api.url(), "test");
        WatchService service = new WatchService(settings, KubeConnection.wrapping(client, Duration.ofSeconds(10)),
                clock, line -> log.add(identity + ": " + line));
        services.add(service);
        service.start();
        return service;
    }

    private Lease leaderLease() {
        return api.client().leases().inNamespace("nodegate-system").withName(WatchService.LEASE_NAME).get();
    }

    /** Writes {@code who} as the leader Lease's holder (retrying when a renewal lands in between: 409). */
    private void takeOver(String who) {
        for (int attempt = 0; ; attempt++) {
            Lease lease = leaderLease();
            try {
                api.client().resource(new LeaseBuilder(lease).editSpec().withHolderIdentity(who)
                        .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC))
                        .withLeaseTransitions(lease.getSpec().getLeaseTransitions() == null ? 1
                                : lease.getSpec().getLeaseTransitions() + 1)
                        .endSpec().build()).update();
                return;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                if (e.getCode() != 409 || attempt > 20) {
                    throw e;
                }
            }
        }
    }

    @Test
    void aReplicaThatLostTheLeaseStopsPostingInTheMiddleOfAPassAndOnlyTheCurrentLeaderWrites() throws Exception {
        WatchService a = watch("replica-a");
        Await.until("a leads", Duration.ofSeconds(20), a::leads);
        WatchService b = watch("replica-b");
        Await.until("b follows, synced", Await.LOADED_MACHINE, () -> b.engine().lastGood() != null
                && a.engine().lastGood() != null);
        assertThat(b.leads()).isFalse();

        // every Event POST lands at once and is answered 1 s later; eight bare newcomers make a pass of 8 Events
        api.delayAnswers(r -> r.startsWith(EVENTS), Duration.ofSeconds(1));
        for (int i = 1; i <= 8; i++) {
            api.create(node("new-" + i, Map.of()), SeedCluster.lease("new-" + i, clock.instant()));
        }
        Await.until("a posts its first Events", Duration.ofSeconds(20), () -> writes.size() >= 2);

        // replica-a's renewals failed and replica-b took the Lease over, in the middle of a's pass
        long before = System.nanoTime();
        takeOver("replica-b");
        long takeover = System.nanoTime();
        Await.until("b leads", Duration.ofSeconds(10), b::leads);
        Await.until("a no longer leads", Duration.ofSeconds(10), () -> !a.leads());

        // what changes from now on, the new leader says
        api.delete(api.client().nodes().withName("new-1").get());
        Await.until("b posts NodegateResolved", Duration.ofSeconds(20),
                () -> writes.stream().anyMatch(w -> w.instance().equals("replica-b")));
        Thread.sleep(2000);

        List<Write> byA = writes.stream().filter(w -> w.instance().equals("replica-a")).toList();
        List<Write> byB = writes.stream().filter(w -> w.instance().equals("replica-b")).toList();
        assertThat(byA).as("replica-a wrote only while it held the Lease").allMatch(w -> w.atNanos() < takeover);
        assertThat(byA).as("replica-a stopped in the middle of its pass").hasSizeLessThan(8);
        assertThat(byB).as("replica-b wrote only after it took the Lease").allMatch(w -> w.atNanos() > before)
                .anyMatch(w -> w.reason().equals("NodegateResolved"));
        assertThat(log).anyMatch(l -> l.startsWith("replica-a: stopped posting Events in this pass"));
    }
}
