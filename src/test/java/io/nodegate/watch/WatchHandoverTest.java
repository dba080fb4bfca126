package io.nodegate.watch;

import io.nodegate.watch.publishing.ApiEventSink;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.cli.Environment;
import io.nodegate.deploy.CrdRules;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.NodeHandover;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.testing.SeedCluster;
import io.nodegate.handover.run.HandoverApi;
import io.nodegate.handover.run.SilenceKeeper;
import io.nodegate.model.ClusterState;
import io.nodegate.source.kube.LastServerAsked;
import io.nodegate.source.kube.LiveSource;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.testing.AlertmanagerReplicas;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.Await;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.SlowServer;
import io.nodegate.detect.registry.Detectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watch's leader keeping a NodeHandover current (HandoverReconciler): the silence re-created on a real
 * Alertmanager replica within one look, a don't broken after step 1 written to the status with one Event on the
 * NodeHandover, and a replica that does not lead writing nothing at all.
 */
class WatchHandoverTest {

    @TempDir
    Path tmp;
    private ApiTestServer api;
    private KubernetesClient client;
    private AlertmanagerReplicas am;
    private Path kubeconfig;
    private final boolean[] leading = {false};
    private final List<String> posted = new ArrayList<>();
    private final List<String> log = new ArrayList<>();
    /** What each look's LIST told the passes (which Nodes are part of an open hand-over). */
    private final List<io.nodegate.model.OpenHandovers> listed = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        AlertmanagerReplicas.require();
        api = ApiTestServer.start();
        CrdRules.install(api);
        api.create(SeedCluster.node("gpu-a07", "192.0.2.107", "Unknown", true, Map.of("node-role.kubernetes.io/burnin",
                "true"), "boot-a07", "uuid-a07", 8, Instant.now(), null));
        api.create(SeedCluster.dsPod("kube-system", "rke2-canal", "gpu-a07"));
        client = SeedCluster.client(api.url(), 5000);
        kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));
        am = AlertmanagerReplicas.start(tmp.resolve("am"), 1);
        CliRun open = CliRun.run(Environment.system().withClient(client), "handover", "open", "a07", "--nodes",
                "gpu-a07", "--type", "move", "--to", "cluster-b", "--due", java.time.LocalDate.now(java.time.ZoneOffset.UTC).plusDays(30).toString(), "--requester", "lee",
                "--alertmanager", am.urls().get(0));
        assertThat(open.exitCode()).as(open.all()).isZero();
        assertThat(CliRun.run(Environment.system().withClient(client), "handover", "step", "a07", "1", "--by", "kim")
                .exitCode()).isZero();
    }

    @AfterEach
    void tearDown() {
        if (am != null) {
            am.close();
        }
        if (client != null) {
            client.close();
            api.close();
        }
    }

    private HandoverReconciler reconciler(HandoverReconciler.Events events) {
        return new HandoverReconciler(new ApiReader(client), new SilenceKeeper(Duration.ofSeconds(5),
                Clock.systemUTC()), () -> leading[0], events, Clock.systemUTC(), "nodegate-watch-0", Duration.ZERO,
                listed::add, log::add);
    }

    private HandoverReconciler reconciler() {
        return reconciler((h, reason, type, message) -> posted.add(reason + " " + type + " " + message));
    }

    /** The pass's own objects, as the watch's informers hold them. */
    private ClusterState pass() {
        try (LiveSource live = LiveSource.open(kubeconfig, null, Duration.ofSeconds(5), new LastServerAsked())) {
            return live.load(false);
        }
    }

    private NodeHandover read() {
        return new HandoverApi(new ApiReader(client)).get("a07").orElseThrow();
    }

    private String oursId() {
        for (JsonNode s : am.get(am.replicas().get(0), "/api/v2/silences")) {
            if ("nodegate".equals(s.path("createdBy").asString()) && "active".equals(s.path("status").path("state")
                    .asString())) {
                return s.path("id").asString();
            }
        }
        return null;
    }

    @Test
    void aReplicaThatDoesNotLeadLooksAtNothing() {
        NodeHandover before = read();
        String id = oursId();
        assertThat(am.send(am.replicas().get(0), "DELETE", "/api/v2/silence/" + id, null)).isEqualTo(200);

        reconciler().afterPass(pass());

        assertThat(read().resourceVersion()).isEqualTo(before.resourceVersion());
        assertThat(oursId()).as("the vanished silence is not re-created by a follower").isNull();
        assertThat(posted).isEmpty();
        assertThat(listed).as("a follower lists nothing").isEmpty();
    }

    @Test
    void theLeaderRecreatesAVanishedSilenceAndRecordsIt() {
        leading[0] = true;
        String id = oursId();
        assertThat(am.send(am.replicas().get(0), "DELETE", "/api/v2/silence/" + id, null)).isEqualTo(200);

        reconciler().afterPass(pass());

        assertThat(oursId()).isNotNull().isNotEqualTo(id);
        HandoverStatus st = read().status();
        assertThat(st.observedBy()).isEqualTo("watch/nodegate-watch-0");
        assertThat(st.silences()).singleElement().satisfies(r -> assertThat(r.state()).isEqualTo("ok"));
        assertThat(st.history()).extracting(HandoverStatus.HistoryEntry::type).contains("silence-vanished",
                "silence-recreated");
        assertThat(posted).singleElement().satisfies(e -> assertThat(e).startsWith("HandoverSilenceRecreated Warning "
                + "silence re-created on " + am.urls().get(0)));
        // the look's one LIST also tells the passes which Nodes an open hand-over names (NG171 needs no second read)
        assertThat(listed).singleElement().satisfies(o -> {
            assertThat(o.read()).isTrue();
            assertThat(o.of("gpu-a07")).containsExactly("a07");
        });
    }

    @Test
    void aDontBrokenAfterStep1IsWrittenAndAnnouncedOnce() {
        leading[0] = true;
        HandoverReconciler reconciler = reconciler();
        client.nodes().withName("gpu-a07").edit(n -> {
            n.getSpec().setUnschedulable(false);
            return n;
        });

        reconciler.afterPass(pass());
        reconciler.afterPass(pass());

        assertThat(read().status().violations()).singleElement().satisfies(v -> {
            assertThat(v.kind()).isEqualTo("step-contradicted");
            assertThat(v.message()).contains("step 1 was recorded done by kim", "gpu-a07 is not cordoned");
        });
        assertThat(posted).as("one Event, not one per look").singleElement().satisfies(e ->
                assertThat(e).startsWith("HandoverViolation Warning step-contradicted gpu-a07: step 1 was recorded"));
    }

    @Test
    void theEventIsPostedOnTheNodeHandoverThroughTheWatchsSink() {
        leading[0] = true;
        ApiEventSink sink = new ApiEventSink(client, Clock.systemUTC(), "nodegate-watch-0", 10, 10, log::add);
        client.nodes().withName("gpu-a07").edit(n -> {
            n.getSpec().setUnschedulable(false);
            return n;
        });

        reconciler(HandoverReconciler.through(sink)).afterPass(pass());

        List<Event> events = client.v1().events().inNamespace(ApiEventSink.NAMESPACE).list().getItems();
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.getInvolvedObject().getKind()).isEqualTo("NodeHandover");
            assertThat(e.getInvolvedObject().getApiVersion()).isEqualTo("nodegate.io/v1alpha1");
            assertThat(e.getInvolvedObject().getName()).isEqualTo("a07");
            assertThat(e.getInvolvedObject().getUid()).isEqualTo(read().uid());
            assertThat(e.getReason()).isEqualTo("HandoverViolation");
            assertThat(e.getType()).isEqualTo("Warning");
        });
    }

    @Test
    void withoutTheCrdTheWatchSaysSoOnceAndGoesOn() {
        leading[0] = true;
        api.unserve(NodeHandover.PATH);
        HandoverReconciler reconciler = reconciler();

        reconciler.afterPass(pass());
        reconciler.afterPass(pass());

        assertThat(log).filteredOn(l -> l.contains("NodeHandover CRD is not installed")).hasSize(1);
    }

    /**
     * Anyone who may edit a NodeHandover chooses the Alertmanagers the watch asks. Two hostile ones, one that sends
     * headers and then a byte a second and one that never answers, must not stop the watch: the passes keep counting
     * while (and after) the look asks them, each replica is given up at --alertmanager-timeout, said once in the log
     * naming it and the deadline, shown as nodegate_alertmanager_up 0, and written to the status as unreadable, never
     * as kept. Before, the look ran on the passes' thread and the trickle held it for as long as it trickled.
     */
    @Test
    void aHostileAlertmanagerNeverStopsTheWatch() throws Exception {
        try (SlowServer trickle = SlowServer.trickling(); SlowServer silent = SlowServer.silent()) {
            HandoverApi handovers = new HandoverApi(new ApiReader(client));
            NodeHandover h = read();
            handovers.updateSpec(h.withSpec(h.spec().withAlertmanagers(List.of(trickle.url(), silent.url()))));
            List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
            var settings = new WatchService.Settings(Duration.ofMillis(300), Duration.ofMillis(100),
                    new java.net.InetSocketAddress("127.0.0.1", 0), null, "nodegate-watch-0", Duration.ofSeconds(15),
                    Duration.ofSeconds(10), Duration.ofSeconds(2), true, 50, 100, true, AuditSettings.DEFAULTS,
                    Detectors.all(), Duration.ofSeconds(10), "live: test", null, api.url(), "test");
            try (WatchService service = new WatchService(settings, KubeConnection.wrapping(client,
                    Duration.ofSeconds(10)), Clock.systemUTC(), lines::add)) {
                service.keepHandovers(Duration.ofSeconds(8));
                service.start();
                Await.until("the look asks the trickling replica", Duration.ofSeconds(60),
                        () -> trickle.accepted() > 0);
                long asked = evaluations(service);
                Await.until("passes while the trickling replica is asked", Duration.ofSeconds(60),
                        () -> evaluations(service) >= asked + 3);
                assertThat(trickle.closedByClient()).as("the look still waits on the trickle").isZero();
                Await.until("both replicas down in the metrics", Duration.ofSeconds(60), () -> {
                    String m = service.metrics().render();
                    return m.contains("nodegate_alertmanager_up{url=\"" + trickle.url() + "\"} 0")
                            && m.contains("nodegate_alertmanager_up{url=\"" + silent.url() + "\"} 0");
                });
                String metrics = service.metrics().render();
                assertThat(metrics).contains("nodegate_handover_looks_total 1");
                for (SlowServer s : List.of(trickle, silent)) {
                    assertThat(lines).filteredOn(l -> l.startsWith("hand-over a07: Alertmanager " + s.url() + ": "))
                            .singleElement().satisfies(l -> assertThat(l).contains("within 8s")
                                    .contains("--alertmanager-timeout"));
                }
                assertThat(read().status().silences()).extracting(HandoverStatus.SilenceRow::state)
                        .containsOnly("unreadable");
                long after = evaluations(service);
                Await.until("passes after the look", Duration.ofSeconds(60), () -> evaluations(service) >= after + 3);
                assertThat(get(service.httpPort(), "/readyz")).startsWith("HTTP/1.1 200");
            }
        }
    }

    private static long evaluations(WatchService service) {
        return service.metrics().render().lines().filter(l -> l.startsWith("nodegate_evaluations_total "))
                .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(' ') + 1).trim())).findFirst().orElse(-1);
    }

    /** The status line of a plain GET to the watch's own HTTP port. */
    private static String get(int port, String path) throws java.io.IOException {
        var conn = (java.net.HttpURLConnection) java.net.URI.create("http://127.0.0.1:" + port + path).toURL()
                .openConnection();
        conn.setConnectTimeout(5_000);
        conn.setReadTimeout(5_000);
        try {
            return "HTTP/1.1 " + conn.getResponseCode();
        } finally {
            conn.disconnect();
        }
    }
}
