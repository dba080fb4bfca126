package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.cli.Environment;
import io.nodegate.deploy.CrdRules;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.NodeHandover;
import io.nodegate.lifecycle.ApiReader;
import io.nodegate.lifecycle.SeedCluster;
import io.nodegate.lifecycle.handover.HandoverApi;
import io.nodegate.lifecycle.handover.SilenceKeeper;
import io.nodegate.model.ClusterState;
import io.nodegate.source.live.LastServerAsked;
import io.nodegate.source.live.LiveSource;
import io.nodegate.testing.AlertmanagerReplicas;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
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
                log::add);
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
}
