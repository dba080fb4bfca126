package io.nodegate.handover.run;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.cli.Environment;
import io.nodegate.deploy.CrdRules;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.NodeHandover;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.AlertmanagerReplicas;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hand-over's silence on three real Alertmanager replicas clustered over gossip (seed 000: "a silence set during
 * the work vanished before it expired"; "group_by [alertname] with a 6 h repeat: silencing the 8 targets changed
 * nothing"), through the real CLI against an API test server with the NodeHandover CRD installed.
 */
class HandoverSilencesTest {

    private static final List<String> TARGETS = IntStream.rangeClosed(1, 8).mapToObj(i -> "gpu-a0" + i).toList();
    private static final String MARKER = "[nodegate-handover gpus ";

    @TempDir
    java.nio.file.Path tmp;
    private ApiTestServer api;
    private KubernetesClient client;
    private AlertmanagerReplicas am;

    @BeforeEach
    void setUp() throws Exception {
        AlertmanagerReplicas.require();
        api = ApiTestServer.start();
        CrdRules.install(api);
        for (int i = 1; i <= 8; i++) {
            api.create(SeedCluster.node("gpu-a0" + i, "192.0.2." + i, "True", true,
                    Map.of("node-role.kubernetes.io/burnin", "true"), "boot-" + i, "uuid-a0" + i, 8, Instant.now(),
                    null));
        }
        api.create(SeedCluster.node("keep-1", "192.0.2.50", "True", false, Map.of("node-role.kubernetes.io/burnin",
                "true"), "boot-keep-1", "uuid-keep-1", 8, Instant.now(), null));
        client = SeedCluster.client(api.url(), 5000);
        am = AlertmanagerReplicas.start(tmp.resolve("am"), 3);
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

    private CliRun cli(String... args) {
        return CliRun.run(Environment.system().withClient(client), args);
    }

    private List<String> amFlags(List<String> urls) {
        List<String> out = new ArrayList<>();
        urls.forEach(u -> {
            out.add("--alertmanager");
            out.add(u);
        });
        return out;
    }

    private CliRun open() {
        List<String> args = new ArrayList<>(List.of("handover", "open", "gpus", "--nodes", String.join(",", TARGETS),
                "--type", "move", "--to", "cluster-b", "--due", java.time.LocalDate.now(java.time.ZoneOffset.UTC).plusDays(30).toString(), "--requester", "lee", "--ticket",
                "https://chat.example/t/13"));
        args.addAll(amFlags(am.urls()));
        CliRun run = cli(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.all()).isZero();
        return run;
    }

    private CliRun status(String... more) {
        List<String> args = new ArrayList<>(List.of("handover", "status", "gpus"));
        args.addAll(List.of(more));
        return cli(args.toArray(String[]::new));
    }

    /** The hand-over's silences a replica holds in the given state. */
    private List<JsonNode> ours(AlertmanagerReplicas.Replica r, String state) {
        List<JsonNode> out = new ArrayList<>();
        JsonNode all = am.get(r, "/api/v2/silences");
        if (all == null) {
            return out;
        }
        all.forEach(s -> {
            if ("nodegate".equals(s.path("createdBy").asString()) && s.path("comment").asString("").contains(MARKER)
                    && state.equals(s.path("status").path("state").asString())) {
                out.add(s);
            }
        });
        return out;
    }

    private NodeHandover read() {
        return new HandoverApi(new ApiReader(client)).get("gpus").orElseThrow();
    }

    @Test
    void openSetsOneSilenceThatEveryReplicaHolds() {
        Instant before = Instant.now();
        open();

        List<String> ids = new ArrayList<>();
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            List<JsonNode> active = ours(r, "active");
            assertThat(active).as(r.url()).hasSize(1);
            JsonNode s = active.get(0);
            ids.add(s.path("id").asString());
            assertThat(s.path("matchers").toString()).contains("\"name\":\"node\"",
                    "\"value\":\"gpu-a01|gpu-a02|gpu-a03|gpu-a04|gpu-a05|gpu-a06|gpu-a07|gpu-a08\"", "\"isRegex\":true");
            assertThat(s.path("comment").asString()).contains("nodegate hand-over gpus (https://chat.example/t/13)",
                    "uid=" + read().uid());
            Instant ends = Instant.parse(s.path("endsAt").asString());
            assertThat(ends).isBetween(before.plus(Duration.ofHours(4)).minusSeconds(5),
                    Instant.now().plus(Duration.ofHours(4)).plusSeconds(5));
        }
        assertThat(ids).as("one silence, gossiped to every replica").containsOnly(ids.get(0));
        assertThat(read().status().silences()).extracting(HandoverStatus.SilenceRow::state).containsOnly("ok");
        assertThat(read().status().history()).extracting(HandoverStatus.HistoryEntry::type).contains("silence-created");
    }

    @Test
    void aSilenceDeletedOnOneReplicaIsRecreatedWithinOnePoll() {
        open();
        AlertmanagerReplicas.Replica second = am.replicas().get(1);
        String id = ours(second, "active").get(0).path("id").asString();
        assertThat(am.send(second, "DELETE", "/api/v2/silence/" + id, null)).isEqualTo(200);
        AlertmanagerReplicas.await("the expiry gossiped to the first replica",
                () -> ours(am.replicas().get(0), "active").isEmpty());

        CliRun look = status();

        assertThat(look.out()).contains("expired-early", "re-created (was expired-early)");
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            assertThat(ours(r, "active")).as("after one status, " + r.url()).isNotEmpty();
        }
        assertThat(read().status().history()).extracting(HandoverStatus.HistoryEntry::type)
                .contains("silence-vanished", "silence-recreated");
        assertThat(read().status().history()).extracting(HandoverStatus.HistoryEntry::message).anySatisfy(m ->
                assertThat(m).contains("silence " + id + " was expired at"));
    }

    @Test
    void everyReplicaRestartedWithoutItsDataGetsTheSilenceBackWithinOnePoll() throws Exception {
        open();
        am.restartAllWithoutData();
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            assertThat(ours(r, "active")).as(r.url() + " after the restart").isEmpty();
        }

        CliRun look = status();

        assertThat(look.out()).contains("re-created (was missing)");
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            assertThat(ours(r, "active")).as("after one status, " + r.url()).isNotEmpty();
        }
    }

    @Test
    void aFourthReplicaThatIsNotPeeredIsNamedAndGetsItsOwnSilence() throws Exception {
        open();
        List<String> before = am.replicas().stream().map(r -> ours(r, "active").get(0).path("id").asString()).toList();
        AlertmanagerReplicas.Replica alone = am.startUnpeered();
        List<String> args = new ArrayList<>(amFlags(am.urls()));

        CliRun look = status(args.toArray(String[]::new));

        assertThat(look.out()).contains(alone.url() + "  ok: created (none there before): silence ", alone.url()
                + " is not peered with ");
        assertThat(ours(alone, "active")).hasSize(1);
        for (int i = 0; i < 3; i++) {
            assertThat(ours(am.replicas().get(i), "active")).extracting(s -> s.path("id").asString())
                    .as("the peered replicas keep their silence").containsExactly(before.get(i));
        }
        assertThat(read().status().alerts()).anySatisfy(a -> {
            assertThat(a.kind()).isEqualTo("not-peered");
            assertThat(a.message()).startsWith(alone.url() + " is not peered with ");
        });
    }

    @Test
    void aGroupByAlertnameRouteIsReportedNamingTheOtherNode() {
        open();
        StringBuilder alerts = new StringBuilder("[");
        for (String n : TARGETS) {
            alerts.append("{\"labels\":{\"alertname\":\"NodeDown\",\"node\":\"").append(n)
                    .append("\",\"severity\":\"warning\"}},");
        }
        alerts.append("{\"labels\":{\"alertname\":\"NodeDown\",\"node\":\"keep-1\",\"severity\":\"warning\"}},");
        // node-exporter's alert names the host by address only: the node matcher cannot silence it
        alerts.append("{\"labels\":{\"alertname\":\"NodeExporterDown\",\"instance\":\"192.0.2.3:9100\"}}]");
        am.postAlertsToEach(alerts.toString());
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            AlertmanagerReplicas.await(r.url() + " grouped the 9 NodeDown alerts", () -> {
                JsonNode groups = am.get(r, "/api/v2/alerts/groups");
                if (groups == null) {
                    return false;
                }
                for (JsonNode g : groups) {
                    if ("NodeDown".equals(g.path("labels").path("alertname").asString())) {
                        return g.path("alerts").size() == 9;
                    }
                }
                return false;
            });
        }

        CliRun look = status();

        assertThat(look.exitCode()).as(look.all()).isEqualTo(1);
        // the table wraps a long alert line at 120 columns; the sentence is the same unwrapped
        String unwrapped = look.out().replaceAll("\n {6,}", " ");
        assertThat(unwrapped).contains("mixed-group: receiver gpu-team keeps getting group {alertname=\"NodeDown\"} "
                + "(group_by: [alertname]): besides the silenced target alert(s) of gpu-a01, gpu-a02, gpu-a03, gpu-a04, "
                + "gpu-a05, gpu-a06, gpu-a07, gpu-a08 it holds active alerts of keep-1");
        assertThat(unwrapped).contains("active: {alertname=NodeExporterDown, instance=192.0.2.3:9100} fires "
                + "unsilenced");
        HandoverStatus st = read().status();
        assertThat(st.alerts()).filteredOn(a -> "mixed-group".equals(a.kind())).singleElement().satisfies(a -> {
            assertThat(a.otherNodes()).containsExactly("keep-1");
            assertThat(a.groupBy()).containsExactly("alertname");
            assertThat(a.receiver()).isEqualTo("gpu-team");
            assertThat(a.alertmanagers()).containsExactlyElementsOf(am.urls());
        });
        // the targets' own NodeDown alerts are suppressed by the hand-over's silence: none is reported active
        assertThat(st.alerts()).filteredOn(a -> "active".equals(a.kind()))
                .allSatisfy(a -> assertThat(a.labels()).contains("alertname=NodeExporterDown"));
    }

    /**
     * Someone edits the hand-over's own silence (posted with its id, marker kept; Alertmanager 0.25 keeps the
     * edit under a new id when the matchers change, and expires the old one) to also match keep-1, a live node that
     * is not a target, and to last 30 days. The look that finds it says so, does not pass step 1, expires the
     * widened silence (keep-1's alert fires again) and keeps the planned one; the record keeps the violation.
     */
    @Test
    void aWidenedSilenceIsAViolationIsExpiredAndStep1DoesNotPass() {
        open();
        AlertmanagerReplicas.Replica first = am.replicas().get(0);
        JsonNode planned = ours(first, "active").get(0);
        String id = planned.path("id").asString();
        String widenedMatcher = "gpu-a01|gpu-a02|gpu-a03|gpu-a04|gpu-a05|gpu-a06|gpu-a07|gpu-a08|keep-1";
        Instant thirtyDays = Instant.now().plus(Duration.ofDays(30)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        String edit = "{\"id\":\"" + id + "\",\"matchers\":[{\"name\":\"node\",\"value\":\"" + widenedMatcher
                + "\",\"isRegex\":true,\"isEqual\":true}],\"startsAt\":\"" + planned.path("startsAt").asString()
                + "\",\"endsAt\":\"" + thirtyDays + "\",\"createdBy\":\"nodegate\",\"comment\":"
                + planned.path("comment").toString() + "}";
        assertThat(am.send(first, "POST", "/api/v2/silences", edit)).isEqualTo(200);
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            AlertmanagerReplicas.await("the widened silence gossiped to " + r.url(), () -> ours(r, "active").stream()
                    .anyMatch(s -> s.path("matchers").toString().contains("keep-1")));
        }
        am.postAlertsToEach("[{\"labels\":{\"alertname\":\"NodeDown\",\"node\":\"gpu-a03\"}},"
                + "{\"labels\":{\"alertname\":\"NodeDown\",\"node\":\"keep-1\"}}]");
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            AlertmanagerReplicas.await(r.url() + " suppresses keep-1's alert under the widened silence", () ->
                    keepAlertState(r).equals("suppressed"));
        }

        CliRun look = status();

        assertThat(look.exitCode()).as(look.all()).isNotZero();
        assertThat(look.out()).contains("widened", "covers more than its targets")
                .doesNotContain("re-created (was changed)");
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            AlertmanagerReplicas.await(r.url() + ": the widened silence expired, the planned one in force", () ->
                    ours(r, "active").stream().noneMatch(s -> s.path("matchers").toString().contains("keep-1"))
                            && !ours(r, "active").isEmpty());
            AlertmanagerReplicas.await(r.url() + ": keep-1's alert fires again", () ->
                    keepAlertState(r).equals("active"));
        }
        HandoverStatus st = read().status();
        assertThat(st.violations()).filteredOn(v -> "silence-widened".equals(v.kind())).singleElement()
                .satisfies(v -> assertThat(v.message()).contains("keep-1", "later than the planned 4h"));
        assertThat(st.history()).extracting(HandoverStatus.HistoryEntry::type).contains("silence-widened");
        assertThat(st.checks()).filteredOn(c -> c.step() == 1 && "silences".equals(c.id())).singleElement()
                .satisfies(c -> assertThat(c.outcome()).isEqualTo("HOLD"));
        assertThat(st.next()).startsWith("1: ").doesNotEndWith("PASS");
        // keep-1's alert shares the NodeDown group with a target's: the group warning names it
        assertThat(st.alerts()).filteredOn(a -> "mixed-group".equals(a.kind())).singleElement()
                .satisfies(a -> assertThat(a.otherNodes()).anySatisfy(o -> assertThat(o).startsWith("keep-1")));

        // the next look finds only the planned silence: step 1's silence check passes, the violation stays recorded
        CliRun again = status();
        HandoverStatus after = read().status();
        assertThat(after.silences()).as(again.all()).extracting(HandoverStatus.SilenceRow::state).containsOnly("ok");
        assertThat(after.violations()).filteredOn(v -> "silence-widened".equals(v.kind())).singleElement()
                .satisfies(v -> assertThat(v.seenNow()).isFalse());
    }

    private String keepAlertState(AlertmanagerReplicas.Replica r) {
        JsonNode alerts = am.get(r, "/api/v2/alerts");
        if (alerts == null) {
            return "";
        }
        for (JsonNode a : alerts) {
            if ("keep-1".equals(a.path("labels").path("node").asString())) {
                return a.path("status").path("state").asString();
            }
        }
        return "";
    }

    /**
     * 210 unsilenced target alerts (node-exporter's, naming gpu-a01 by address only) are more rows than the record
     * holds (200): the status is cut to its bounds with a count of what was left out, written, and shown; before,
     * the API server refused the status write and every look failed.
     */
    @Test
    void moreUnsilencedAlertsThanTheRecordHoldsAreCutAndCounted() {
        StringBuilder alerts = new StringBuilder("[");
        for (int i = 0; i < 210; i++) {
            alerts.append(i == 0 ? "" : ",").append("{\"labels\":{\"alertname\":\"Probe").append(i)
                    .append("\",\"instance\":\"192.0.2.1:9100\"}}");
        }
        am.postAlertsToEach(alerts.append("]").toString());
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            AlertmanagerReplicas.await(r.url() + " holds the 210 alerts", () -> {
                JsonNode all = am.get(r, "/api/v2/alerts");
                return all != null && all.size() == 210;
            });
        }
        open();

        CliRun look = status();

        assertThat(look.exitCode()).as(look.all()).isEqualTo(1);
        assertThat(look.out()).contains("left out of the record", "10 alert rows beyond the 200 the record holds");
        HandoverStatus st = read().status();
        assertThat(st.alerts()).hasSize(HandoverStatus.ALERT_LIMIT);
        assertThat(st.omitted().alerts()).isEqualTo(10);
        assertThat(st.checks()).filteredOn(c -> c.step() == 1 && "silences".equals(c.id())).singleElement()
                .satisfies(c -> assertThat(c.outcome()).isEqualTo("HOLD"));
    }

    @Test
    void aDueDateInThePastIsRefusedBeforeAnythingIsWritten() {
        String past = java.time.LocalDate.now(java.time.ZoneOffset.UTC).minusDays(30).toString();
        List<String> args = new ArrayList<>(List.of("handover", "open", "gpus", "--nodes", String.join(",", TARGETS),
                "--type", "move", "--to", "cluster-b", "--due", past, "--requester", "lee"));
        args.addAll(amFlags(am.urls()));

        CliRun run = cli(args.toArray(String[]::new));

        assertThat(run.exitCode()).as(run.all()).isEqualTo(2);
        assertThat(run.err()).contains("--due " + past + " is in the past (today is ");
        assertThat(new HandoverApi(new ApiReader(client)).get("gpus")).isEmpty();
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            assertThat(ours(r, "active")).as(r.url()).isEmpty();
        }
    }

    /** More replicas than the record holds is a usage error before anything is written or set. */
    @Test
    void seventeenAlertmanagersAreRefusedBeforeAnythingIsWritten() {
        List<String> urls = new ArrayList<>(am.urls());
        for (int i = 0; urls.size() < 17; i++) {
            urls.add("http://127.0.0.1:" + (1 + i) + "/");
        }
        List<String> args = new ArrayList<>(List.of("handover", "open", "gpus", "--nodes", String.join(",", TARGETS),
                "--type", "move", "--to", "cluster-b", "--due", java.time.LocalDate.now(java.time.ZoneOffset.UTC).plusDays(30).toString(), "--requester", "lee"));
        args.addAll(amFlags(urls));

        CliRun run = cli(args.toArray(String[]::new));

        assertThat(run.exitCode()).as(run.all()).isEqualTo(2);
        assertThat(run.err()).contains("--alertmanager: 17 replicas given; a hand-over keeps its silence on at most 16");
        assertThat(new HandoverApi(new ApiReader(client)).get("gpus")).isEmpty();
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            assertThat(ours(r, "active")).as(r.url()).isEmpty();
        }
    }

    @Test
    void closeExpiresOnlyTheHandOversSilence() {
        open();
        AlertmanagerReplicas.Replica first = am.replicas().get(0);
        String now = Instant.now().toString();
        String later = Instant.now().plus(Duration.ofHours(2)).toString();
        assertThat(am.send(first, "POST", "/api/v2/silences", "{\"matchers\":[{\"name\":\"node\",\"value\":\"gpu-a01\","
                + "\"isRegex\":false,\"isEqual\":true}],\"startsAt\":\"" + now + "\",\"endsAt\":\"" + later
                + "\",\"createdBy\":\"alice\",\"comment\":\"disk replacement on gpu-a01\"}")).isEqualTo(200);
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            AlertmanagerReplicas.await("alice's silence on " + r.url(), () -> {
                JsonNode all = am.get(r, "/api/v2/silences");
                return all != null && all.toString().contains("disk replacement on gpu-a01");
            });
        }

        CliRun closed = cli("handover", "close", "gpus", "--by", "lee");

        assertThat(closed.exitCode()).as(closed.all()).isZero();
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            assertThat(ours(r, "active")).as(r.url()).isEmpty();
            assertThat(ours(r, "expired")).as(r.url()).isNotEmpty();
            JsonNode all = am.get(r, "/api/v2/silences");
            List<String> alice = new ArrayList<>();
            all.forEach(s -> {
                if ("alice".equals(s.path("createdBy").asString())) {
                    alice.add(s.path("status").path("state").asString());
                }
            });
            assertThat(alice).as("alice's silence on " + r.url()).containsExactly("active");
        }
        assertThat(read().status().history()).extracting(HandoverStatus.HistoryEntry::type).contains("silence-expired",
                "closed");
        // the record's silence rows say what the close did, so the page printed right after it does not show the
        // last look's "active until"
        assertThat(read().status().silences()).hasSize(3).allSatisfy(r -> {
            assertThat(r.state()).isEqualTo("expired");
            assertThat(r.detail()).startsWith("closed: ");
        });
        java.nio.file.Path page = tmp.resolve("gpus.html");
        CliRun report = cli("handover", "report", "gpus", "--html", page.toString());
        assertThat(report.exitCode()).as(report.all()).isZero();
        String html;
        try {
            html = java.nio.file.Files.readString(page);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        assertThat(html).contains("closed: ").doesNotContain("active until");
        // closed once: a second close expires what is left but adds no second "closed"
        CliRun again = cli("handover", "close", "gpus", "--by", "lee");
        assertThat(again.exitCode()).as(again.all()).isZero();
        assertThat(read().status().history()).filteredOn(e -> "closed".equals(e.type())).hasSize(1);
        // a closed hand-over's silence is not re-created by a later look
        status();
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            assertThat(ours(r, "active")).as(r.url()).isEmpty();
        }
    }

    @Test
    void step1NamesTheReplicasWhenOpenDidNot() {
        CliRun opened = cli("handover", "open", "gpus", "--nodes", String.join(",", TARGETS), "--type", "move",
                "--to", "cluster-b", "--due", java.time.LocalDate.now(java.time.ZoneOffset.UTC).plusDays(30).toString(), "--requester", "lee");
        assertThat(opened.exitCode()).as(opened.all()).isZero();
        assertThat(ours(am.replicas().get(0), "active")).isEmpty();
        List<String> args = new ArrayList<>(List.of("handover", "step", "gpus", "1", "--by", "kim"));
        args.addAll(amFlags(am.urls()));

        CliRun one = cli(args.toArray(String[]::new));

        assertThat(one.exitCode()).as(one.all()).isZero();
        assertThat(read().spec().alertmanagers()).containsExactlyElementsOf(am.urls());
        for (AlertmanagerReplicas.Replica r : am.replicas()) {
            assertThat(ours(r, "active")).as(r.url()).hasSize(1);
        }
        // later looks keep them without the flags
        CliRun look = status();
        assertThat(look.exitCode()).as(look.all()).isZero();
        assertThat(read().status().silences()).extracting(HandoverStatus.SilenceRow::state).containsOnly("ok");
    }
}
