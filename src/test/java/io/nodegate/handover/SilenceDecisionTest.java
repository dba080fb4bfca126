package io.nodegate.handover;

import io.nodegate.model.alertmanager.AmAlert;
import io.nodegate.model.alertmanager.AmGroup;
import io.nodegate.model.alertmanager.AmMatcher;
import io.nodegate.model.alertmanager.AmSilence;
import io.nodegate.model.alertmanager.AmStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each replica's silence state and the effect checks, on the shapes Alertmanager 0.25 returns
 * (prometheus/alertmanager api/v2/openapi.yaml: gettableSilence, gettableAlert, alertGroup, alertmanagerStatus).
 */
class SilenceDecisionTest {

    private static final Instant NOW = Instant.parse("2026-10-08T03:00:00Z");
    private static final SilencePlan PLAN = new SilencePlan("a-to-b", "uid-1", "https://chat.example/t/1",
            List.of("gpu-a07", "gpu-a08"), Map.of("gpu-a07", List.of("192.0.2.107")),
            List.of(AmMatcher.parse("cluster=\"cluster-a\"")), Duration.ofHours(4));
    private static final String URL = "http://am-0:9093";

    /** A routing tree with each kind of matcher Alertmanager 0.25 reads: matchers, match, match_re. */
    private static final String ROUTES = """
            route:
              receiver: default
              group_by: [cluster]
              routes:
              - matchers: ['severity="page"']
                receiver: pager
              - match: {team: gpu}
                receiver: gpu-team
                group_by: [alertname]
                routes:
                - match_re: {alertname: 'Disk.*'}
                  receiver: disks
            receivers: [{name: default}, {name: pager}, {name: gpu-team}, {name: disks}]
            """;

    private static AmSilence silence(String id, String state, String createdBy, String comment, List<AmMatcher> m,
                                     Instant updated, Instant ends) {
        return new AmSilence(id, new AmSilence.Status(state), updated, m, NOW.minusSeconds(3600), ends, createdBy,
                comment);
    }

    private static AmSilence ours(String id, String state, Instant updated, Instant ends) {
        return silence(id, state, "nodegate", PLAN.comment(), PLAN.matchers(), updated, ends);
    }

    private static SilenceDecision.Replica assess(AmSilence... silences) {
        return SilenceDecision.assess(new SilenceDecision.ReplicaRead(URL, List.of(silences), null, null, null, null),
                PLAN, NOW);
    }

    @Test
    void thePlannedMatchersAreTheTargetsAsOneAnchoredRegexPlusTheExtraOnes() {
        assertThat(PLAN.matchers()).extracting(Object::toString)
                .containsExactly("node=~\"gpu-a07|gpu-a08\"", "cluster=\"cluster-a\"");
        assertThat(SilencePlan.quote("node.a+b")).isEqualTo("node\\.a\\+b");
        assertThat(PLAN.comment()).contains("https://chat.example/t/1", "[nodegate-handover a-to-b uid=uid-1]");
    }

    @Test
    void aSilenceInForceIsOkAndIsExtendedWhenLessThanHalfIsLeft() {
        SilenceDecision.Replica far = assess(ours("s1", "active", NOW, NOW.plus(Duration.ofHours(3))));
        assertThat(far.state()).isEqualTo(SilenceDecision.OK);
        assertThat(far.action()).isEqualTo(SilenceDecision.Action.NONE);
        assertThat(far.effective()).containsExactly("s1");

        SilenceDecision.Replica near = assess(ours("s1", "active", NOW, NOW.plus(Duration.ofMinutes(119))));
        assertThat(near.state()).isEqualTo(SilenceDecision.OK);
        assertThat(near.action()).isEqualTo(SilenceDecision.Action.EXTEND);
        assertThat(near.extend().id()).isEqualTo("s1");
    }

    @Test
    void someoneElsesSilenceOnTheSameNodesDoesNotCount() {
        AmSilence alice = silence("a1", "active", "alice", "disk swap", PLAN.matchers(), NOW, NOW.plusSeconds(7200));
        AmSilence otherHandover = silence("o1", "active", "nodegate", "[nodegate-handover a-to-b uid=uid-2]",
                PLAN.matchers(), NOW, NOW.plusSeconds(7200));

        SilenceDecision.Replica r = assess(alice, otherHandover);

        assertThat(r.state()).isEqualTo(SilenceDecision.MISSING);
        assertThat(r.action()).isEqualTo(SilenceDecision.Action.CREATE);
    }

    @Test
    void expiredByHandIsToldFromRunOut() {
        Instant expiredAt = NOW.minusSeconds(600);
        SilenceDecision.Replica early = assess(ours("s1", "expired", expiredAt, expiredAt));
        assertThat(early.state()).isEqualTo(SilenceDecision.EXPIRED_EARLY);
        assertThat(early.detail()).contains("was expired at " + expiredAt);

        SilenceDecision.Replica ranOut = assess(ours("s1", "expired", NOW.minusSeconds(5 * 3600),
                NOW.minusSeconds(600)));
        assertThat(ranOut.state()).isEqualTo(SilenceDecision.EXPIRED);
        assertThat(ranOut.action()).isEqualTo(SilenceDecision.Action.CREATE);
    }

    @Test
    void aSilenceWithTheMarkerButOtherMatchersIsChanged() {
        AmSilence edited = silence("s2", "active", "nodegate", PLAN.comment(),
                List.of(AmMatcher.parse("node=~\"gpu-a07\""), PLAN.matchers().get(1)), NOW, NOW.plusSeconds(7200));

        SilenceDecision.Replica r = assess(edited);

        // narrower than planned (one target left out): changed, not widened
        assertThat(r.state()).isEqualTo(SilenceDecision.CHANGED);
        assertThat(r.action()).isEqualTo(SilenceDecision.Action.CREATE);
        assertThat(r.detail()).contains("its matchers are [node=~\"gpu-a07\", cluster=\"cluster-a\"]");
    }

    /**
     * The hand-over's own silence edited in place (same id, marker kept) to also match a live node that is not a
     * target and to last 30 days: it is widened, whatever else the replica holds, and the planned one is kept.
     */
    @Test
    void aSilenceWithTheMarkerThatCoversMoreThanTheTargetsIsWidenedAndExpired() {
        AmSilence widened = silence("s1", "active", "nodegate", PLAN.comment(), List.of(
                AmMatcher.parse("node=~\"gpu-a07|gpu-a08|keep-1\""), AmMatcher.parse("cluster=\"cluster-a\"")),
                NOW, NOW.plus(Duration.ofDays(30)));

        SilenceDecision.Replica r = assess(widened);

        assertThat(r.state()).isEqualTo(SilenceDecision.WIDENED);
        assertThat(r.widened()).extracting(AmSilence::id).containsExactly("s1");
        assertThat(r.action()).as("the planned silence is created beside it").isEqualTo(SilenceDecision.Action.CREATE);
        assertThat(r.detail()).contains("silence s1 carries this hand-over's marker but covers more than its targets",
                "can match more than the planned", "ends at 2026-11-07T03:00:00Z, later than the planned 4h");

        // the planned silence in force beside it changes nothing: the widened one is still there
        SilenceDecision.Replica both = assess(widened, ours("s2", "active", NOW, NOW.plus(Duration.ofHours(3))));
        assertThat(both.state()).isEqualTo(SilenceDecision.WIDENED);
        assertThat(both.effective()).containsExactly("s2");
        assertThat(both.action()).isEqualTo(SilenceDecision.Action.NONE);
    }

    @Test
    void onlyTheEndOrOnlyADroppedMatcherIsWideningTooButANarrowerSilenceIsNot() {
        AmSilence longer = ours("s1", "active", NOW, NOW.plus(Duration.ofHours(30)));
        AmSilence otherClusters = silence("s2", "active", "nodegate", PLAN.comment(),
                List.of(PLAN.matchers().get(0)), NOW, NOW.plusSeconds(3600));
        AmSilence anyGpu = silence("s3", "active", "nodegate", PLAN.comment(), List.of(
                AmMatcher.parse("node=~\"gpu-a.*\""), PLAN.matchers().get(1)), NOW, NOW.plusSeconds(3600));
        AmSilence notA07 = silence("s4", "active", "nodegate", PLAN.comment(), List.of(
                AmMatcher.parse("node!=\"gpu-a07\""), PLAN.matchers().get(1)), NOW, NOW.plusSeconds(3600));
        AmSilence oneTarget = silence("s5", "active", "nodegate", PLAN.comment(), List.of(
                AmMatcher.parse("node=\"gpu-a07\""), PLAN.matchers().get(1),
                AmMatcher.parse("alertname=\"NodeDown\"")), NOW, NOW.plusSeconds(3600));
        AmSilence expired = silence("s6", "expired", "nodegate", PLAN.comment(), List.of(
                AmMatcher.parse("node=~\".*\"")), NOW, NOW.minusSeconds(60));
        AmSilence justExtended = ours("s7", "active", NOW, NOW.plus(Duration.ofHours(4)).plusSeconds(30));

        assertThat(SilenceDecision.widening(longer, PLAN, NOW)).contains("later than the planned 4h");
        assertThat(SilenceDecision.widening(otherClusters, PLAN, NOW)).contains("can match more than the planned");
        assertThat(SilenceDecision.widening(anyGpu, PLAN, NOW)).contains("can match more than the planned");
        assertThat(SilenceDecision.widening(notA07, PLAN, NOW)).contains("can match more than the planned");
        assertThat(SilenceDecision.widening(oneTarget, PLAN, NOW)).isNull();
        assertThat(SilenceDecision.widening(expired, PLAN, NOW)).as("an expired silence covers nothing").isNull();
        assertThat(SilenceDecision.widening(justExtended, PLAN, NOW)).as("clocks a little apart").isNull();
        assertThat(assess(oneTarget).state()).isEqualTo(SilenceDecision.CHANGED);
    }

    @Test
    void aGroupWhoseOtherNodesAlertIsSuppressedByTheHandOversSilenceIsReported() {
        Map<String, String> t = Map.of("alertname", "NodeDown", "node", "gpu-a07", "cluster", "cluster-a");
        Map<String, String> keep = Map.of("alertname", "NodeDown", "node", "keep-1", "cluster", "cluster-a");
        AmSilence widened = silence("s1", "active", "nodegate", PLAN.comment(), List.of(
                AmMatcher.parse("node=~\"gpu-a07|gpu-a08|keep-1\""), PLAN.matchers().get(1)), NOW,
                NOW.plusSeconds(3600));
        AmGroup g = new AmGroup(Map.of("alertname", "NodeDown"), new AmGroup.Receiver("gpu-team"), List.of(
                alert("f1", "suppressed", List.of("s1"), t), alert("f2", "suppressed", List.of("s1"), keep)));
        SilenceDecision.ReplicaRead read = new SilenceDecision.ReplicaRead(URL, List.of(widened), List.of(
                alert("f1", "suppressed", List.of("s1"), t), alert("f2", "suppressed", List.of("s1"), keep)),
                List.of(g), null, null);

        assertThat(SilenceDecision.mixedGroups(List.of(read), PLAN)).singleElement().satisfies(m -> {
            assertThat(m.otherNodes()).containsExactly("keep-1 (suppressed by this hand-over's silence)");
            assertThat(HandoverChecks.mixedGroupText(m)).contains("it holds alerts of keep-1 (suppressed by this "
                    + "hand-over's silence)");
        });
    }

    @Test
    void theSpecHoldsTheLengthInHoursMinutesAndSecondsAndALongerOneIsTakenAtTheBound() {
        assertThat(SilencePlan.specText(Duration.ofHours(4))).isEqualTo("4h");
        assertThat(SilencePlan.specText(Duration.ofMinutes(90))).isEqualTo("1h30m");
        assertThat(SilencePlan.specText(Duration.ofDays(7))).isEqualTo("168h");
        assertThat(SilencePlan.specText(Duration.ofSeconds(3725))).isEqualTo("1h2m5s");
        assertThat(io.nodegate.time.Durations.parse(SilencePlan.specText(Duration.ofSeconds(3725)), "x"))
                .isEqualTo(Duration.ofSeconds(3725));
    }

    @Test
    void aReplicaThatCannotBeReadIsUnreadableNeverMissing() {
        SilenceDecision.Replica r = SilenceDecision.assess(SilenceDecision.ReplicaRead.failed(URL, "connection refused"),
                PLAN, NOW);
        assertThat(r.state()).isEqualTo(SilenceDecision.UNREADABLE);
        assertThat(r.action()).isEqualTo(SilenceDecision.Action.NONE);
    }

    private static AmAlert alert(String fp, String state, List<String> silencedBy, Map<String, String> labels) {
        return new AmAlert(labels, fp, NOW, NOW.plusSeconds(300), new AmAlert.Status(state, silencedBy, List.of()));
    }

    @Test
    void theEffectIsCheckedOnTheAlertsNotTheRecord() {
        Map<String, String> a07 = Map.of("alertname", "NodeDown", "node", "gpu-a07", "cluster", "cluster-a");
        Map<String, String> byAddress = Map.of("alertname", "NodeExporterDown", "instance", "192.0.2.107:9100",
                "cluster", "cluster-a");
        Map<String, String> otherCluster = Map.of("alertname", "NodeDown", "node", "gpu-a07", "cluster", "cluster-b");
        Map<String, String> a08 = Map.of("alertname", "NodeDown", "node", "gpu-a08", "cluster", "cluster-a");
        SilenceDecision.ReplicaRead read = new SilenceDecision.ReplicaRead(URL, List.of(), List.of(
                alert("f1", "suppressed", List.of("s1"), a07),
                alert("f2", "active", List.of(), byAddress),
                alert("f3", "active", List.of(), otherCluster),
                alert("f4", "suppressed", List.of("alice-1"), a08),
                alert("f5", "unprocessed", List.of(), Map.of("alertname", "X", "node", "gpu-a08",
                        "cluster", "cluster-a"))), List.of(), null, null);

        List<SilenceDecision.Unsilenced> out = SilenceDecision.unsilenced(List.of(read), PLAN, Map.of(URL, List.of("s1")));

        assertThat(out).extracting(SilenceDecision.Unsilenced::node, SilenceDecision.Unsilenced::state)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("gpu-a07", "active"),
                        org.assertj.core.groups.Tuple.tuple("gpu-a08", "suppressed"));
        assertThat(out).filteredOn(u -> "suppressed".equals(u.state())).singleElement().satisfies(u ->
                assertThat(u.detail()).contains("not by the hand-over's silence (silencedBy [alice-1]"));
    }

    @Test
    void aGroupHoldingOtherNodesActiveAlertsIsReportedWithItsRoute() {
        Map<String, String> t = Map.of("alertname", "NodeDown", "node", "gpu-a07", "cluster", "cluster-a", "team", "gpu");
        Map<String, String> keep = Map.of("alertname", "NodeDown", "node", "keep-1", "cluster", "cluster-a", "team", "gpu");
        AmGroup g = new AmGroup(Map.of("alertname", "NodeDown"), new AmGroup.Receiver("gpu-team"), List.of(
                alert("f1", "suppressed", List.of("s1"), t), alert("f2", "active", List.of(), keep)));
        AmStatus status = new AmStatus(new AmStatus.Cluster("n0", "ready", List.of()), new AmStatus.Config(ROUTES), null);
        SilenceDecision.ReplicaRead read = new SilenceDecision.ReplicaRead(URL, List.of(), List.of(
                alert("f1", "suppressed", List.of("s1"), t), alert("f2", "active", List.of(), keep)), List.of(g),
                status, null);

        assertThat(SilenceDecision.mixedGroups(List.of(read), PLAN)).singleElement().satisfies(m -> {
            assertThat(m.receiver()).isEqualTo("gpu-team");
            assertThat(m.groupBy()).containsExactly("alertname");
            assertThat(m.targets()).containsExactly("gpu-a07");
            assertThat(m.otherNodes()).containsExactly("keep-1");
        });

        // the other node's alert silenced too: the group no longer notifies, nothing to say
        SilenceDecision.ReplicaRead quiet = new SilenceDecision.ReplicaRead(URL, List.of(), List.of(
                alert("f1", "suppressed", List.of("s1"), t), alert("f2", "suppressed", List.of("x"), keep)),
                List.of(g), status, null);
        assertThat(SilenceDecision.mixedGroups(List.of(quiet), PLAN)).isEmpty();
    }

    @Test
    void routesAreWalkedAsAlertmanagerWalksThem() {
        assertThat(AlertRoutes.landing(ROUTES, Map.of("severity", "page", "team", "gpu")))
                .isEqualTo(new AlertRoutes.Landing("pager", List.of("cluster")));
        assertThat(AlertRoutes.landing(ROUTES, Map.of("team", "gpu", "alertname", "NodeDown")))
                .isEqualTo(new AlertRoutes.Landing("gpu-team", List.of("alertname")));
        assertThat(AlertRoutes.landing(ROUTES, Map.of("team", "gpu", "alertname", "DiskFull")))
                .isEqualTo(new AlertRoutes.Landing("disks", List.of("alertname")));
        assertThat(AlertRoutes.landing(ROUTES, Map.of("alertname", "Other")))
                .isEqualTo(new AlertRoutes.Landing("default", List.of("cluster")));
        assertThat(AlertRoutes.landing("not: [yaml", Map.of())).isNull();
    }

    @Test
    void aReplicaOutsideTheOthersClusterIsNamed() {
        AmStatus three = new AmStatus(new AmStatus.Cluster("a", "ready", List.of(new AmStatus.Peer("a", "x:1"),
                new AmStatus.Peer("b", "x:2"), new AmStatus.Peer("c", "x:3"))), null, null);
        AmStatus alone = new AmStatus(new AmStatus.Cluster("d", "ready", List.of(new AmStatus.Peer("d", "x:4"))),
                null, null);
        List<SilenceDecision.ReplicaRead> reads = List.of(
                new SilenceDecision.ReplicaRead("http://a", null, null, null, three, null),
                new SilenceDecision.ReplicaRead("http://b", null, null, null, three, null),
                new SilenceDecision.ReplicaRead("http://d", null, null, null, alone, null));

        assertThat(SilenceDecision.peering(reads)).singleElement().satisfies(p ->
                assertThat(p).startsWith("http://d is not peered with http://a, http://b: it gossips with 1 member(s) [d]"));
        assertThat(SilenceDecision.peering(reads.subList(0, 2))).isEmpty();
    }

    @Test
    void matchersParseAsAmtoolWritesThem() {
        assertThat(AmMatcher.parse("node=~\"gpu-a0[1-8]\"")).isEqualTo(new AmMatcher("node", "gpu-a0[1-8]", true, true));
        assertThat(AmMatcher.parse("severity!=info")).isEqualTo(new AmMatcher("severity", "info", false, false));
        assertThat(AmMatcher.parse("instance!~\".*:9100\"").matches(Map.of("instance", "a:9100"))).isFalse();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> AmMatcher.parse("no operator"))
                .hasMessageContaining("is not a matcher");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> AmMatcher.parse("node=~\"(\""))
                .hasMessageContaining("does not compile");
    }
}
