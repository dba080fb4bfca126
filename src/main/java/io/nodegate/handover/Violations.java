package io.nodegate.handover;

import io.nodegate.model.HostIdentity;
import io.nodegate.model.Condition;
import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.PodInfo;
import io.nodegate.model.alertmanager.AmSilence;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The procedure's "don'ts" (seed 000's table: each of the three cases broke one), checked on every look, not just
 * at the step they belong to. Each violation says what happened and, when the cluster records it, when.
 *
 * <ul>
 *   <li>{@link #RENAMED}: before step 2 is recorded, a target renamed (a new Node with its systemUUID or
 *   machineID), re-addressed (a new InternalIP), re-registered (a new object under its name) or rebooted into this
 *   cluster (a new bootID): its RKE2 is still installed and it rejoins (case 1);</li>
 *   <li>{@link #ELSEWHERE}: before step 3 is recorded, a target host seen in any other cluster read, answering on
 *   its kubelet port with another cluster's certificate, or with a host report pointing elsewhere (case 2: flagged
 *   from the first read after the host appears, not six days later);</li>
 *   <li>{@link #NOTREADY_AS_CLEANUP}: a target deleted without the owner's reply with a removal time, or over a
 *   gate that did not pass: a stopped Lease read as cleanup (case 3);</li>
 *   <li>{@link #DELETED_OUTSIDE}: a target's Node gone before step 3 with no removal record and no tombstone
 *   (case 1: the receiving team deleted Nodes themselves);</li>
 *   <li>{@link #CONTRADICTED}: a recorded "done" that what nodegate reads contradicts (step 1 done while a target
 *   runs pods or is uncordoned; step 3 done while the Node or its host is back; step 5 done while the host is not
 *   Ready in the destination).</li>
 *   <li>{@link #SILENCE_WIDENED}: a silence carrying the hand-over's marker covers more than its targets (matchers
 *   that match other nodes, or an end later than planned): it silences nodes nobody handed over.</li>
 * </ul>
 */
public final class Violations {

    public static final String RENAMED = "renamed-or-readdressed";
    public static final String ELSEWHERE = "host-in-another-cluster";
    public static final String NOTREADY_AS_CLEANUP = "notready-read-as-cleanup";
    public static final String DELETED_OUTSIDE = "deleted-outside-the-procedure";
    public static final String CONTRADICTED = "step-contradicted";
    public static final String SILENCE_WIDENED = "silence-widened";

    private Violations() {
    }

    /** One violation as this look saw it; {@code key} identifies it across looks. */
    public record Seen(String key, String kind, String node, String message, Instant happenedAt) {
    }

    public static List<Seen> detect(NodeHandover h, HandoverReading r) {
        List<Seen> out = new ArrayList<>();
        boolean givingRead = r.giving() != null && r.giving().error() == null;
        for (HandoverSpec.Target t : h.spec().targets()) {
            if (givingRead && !h.recorded(2)) {
                out.addAll(renamed(t, r.giving().nodes()));
            }
            if (!h.recorded(3)) {
                out.addAll(elsewhere(h, t, r));
            }
            out.addAll(notReadyAsCleanup(h, t, r));
            if (givingRead) {
                out.addAll(deletedOutside(h, t, r));
                out.addAll(contradicted(h, t, r));
            }
        }
        if (r.silences() != null) {
            java.util.Set<String> seen = new java.util.HashSet<>();
            for (SilenceDecision.Replica rep : r.silences().replicas()) {
                for (AmSilence w : rep.widened()) {
                    if (seen.add(w.id())) {
                        out.add(new Seen(SILENCE_WIDENED + "|" + w.id(), SILENCE_WIDENED, null, "silence " + w.id()
                                + " carries this hand-over's marker but covers more than its targets ("
                                + SilenceDecision.widening(w, SilencePlan.of(h), r.at()) + "), seen on "
                                + rep.url(), w.updatedAt()));
                    }
                }
            }
        }
        return out;
    }

    private static List<Seen> renamed(HandoverSpec.Target t, List<NodeInfo> nodes) {
        List<Seen> out = new ArrayList<>();
        for (NodeInfo n : HostIdentity.appearances(t.systemUuid(), t.machineId(), nodes)) {
            if (!n.name().equals(t.node())) {
                out.add(new Seen(RENAMED + "|" + t.node() + "|name|" + n.name(), RENAMED, t.node(), t.node()
                        + "'s host registered here as " + n.name() + " (same "
                        + HostIdentity.match(t.systemUuid(), t.machineId(), n) + ", created "
                        + n.created() + ", " + (n.unschedulable() ? "cordoned" : "not cordoned") + ", roles "
                        + n.roles() + ") before step 2: a renamed host joins as a new Node", n.created()));
            }
        }
        NodeInfo same = nodes.stream().filter(n -> n.name().equals(t.node())).findFirst().orElse(null);
        if (same == null) {
            return out;
        }
        if (t.uid() != null && !t.uid().equals(same.uid())) {
            out.add(new Seen(RENAMED + "|" + t.node() + "|uid|" + same.uid(), RENAMED, t.node(), "Node " + t.node()
                    + " is a new object (uid " + same.uid() + ", created " + same.created() + ", uid at open "
                    + t.uid() + ") before step 2: deleted and registered again", same.created()));
            return out;
        }
        List<String> ips = same.internalIps();
        if (!t.internalIps().isEmpty() && !ips.isEmpty() && !ips.equals(t.internalIps())) {
            out.add(new Seen(RENAMED + "|" + t.node() + "|ip|" + String.join(",", ips), RENAMED, t.node(),
                    t.node() + "'s InternalIP changed from " + String.join(", ", t.internalIps()) + " to "
                            + String.join(", ", ips) + " before step 2: the host was re-addressed and reported to"
                            + " this cluster (its RKE2 is still installed)", readySince(same)));
        }
        String boot = same.systemInfo().bootId();
        if (t.bootId() != null && boot != null && !boot.isEmpty() && !boot.equals(t.bootId())) {
            out.add(new Seen(RENAMED + "|" + t.node() + "|boot|" + boot, RENAMED, t.node(), t.node()
                    + " rebooted and reported to this cluster (bootID " + t.bootId() + " at open, now " + boot
                    + ") before step 2: its RKE2 is still installed, so it rejoins at every boot", readySince(same)));
        }
        return out;
    }

    private static Instant readySince(NodeInfo n) {
        Condition ready = n.condition("Ready");
        return ready == null || !"True".equals(ready.status()) ? null : ready.lastTransitionTime();
    }

    private static List<Seen> elsewhere(NodeHandover h, HandoverSpec.Target t, HandoverReading r) {
        List<Seen> out = new ArrayList<>();
        for (HandoverReading.Other o : r.others()) {
            if (o.error() != null) {
                continue;
            }
            for (NodeInfo n : HostIdentity.appearances(t.systemUuid(), t.machineId(), o.nodes())) {
                out.add(new Seen(ELSEWHERE + "|" + t.node() + "|" + o.name() + "|" + n.name(), ELSEWHERE, t.node(),
                        t.node() + "'s host is " + n.name() + " in " + o.name() + " (same "
                                + HostIdentity.match(t.systemUuid(), t.machineId(), n)
                                + ", created " + n.created() + ", Ready=" + n.readyStatus() + ") before step 3"
                                + (o.destination() ? " (the destination: it joined before the giving cluster removed"
                                + " it)" : "") + ": the giving cluster cannot tell it from a shutdown", n.created()));
            }
        }
        if (r.kubelets() != null) {
            for (KubeletAnswer a : r.kubelets()) {
                if (a.node().equals(t.node()) && a.outcome() == KubeletAnswer.Outcome.OTHER_CA) {
                    out.add(new Seen(ELSEWHERE + "|" + t.node() + "|kubelet|" + a.issuer(), ELSEWHERE, t.node(),
                            "the kubelet at " + a.target() + " answers with a certificate from " + a.issuer()
                                    + " before step 3: " + t.node() + "'s host runs a kubelet for another cluster",
                            null));
                }
            }
        }
        for (HandoverReading.HostReportSeen s : r.hostReports()) {
            if (s.node().equals(t.node()) && "points-elsewhere".equals(s.verdict()) && s.intact()
                    && s.identityProblems().isEmpty()) {
                out.add(pointsElsewhere(t.node(), s.server(), s.inspectedAt()));
            }
        }
        h.step(2).flatMap(s -> s.value(StepRecord.perNode(HandoverChecks.HOST_REPORT, t.node())))
                .filter(v -> v.startsWith("points-elsewhere"))
                .ifPresent(v -> out.add(pointsElsewhere(t.node(), v.replaceFirst(".*server:(\\S+).*", "$1"),
                        h.step(2).get().at())));
        return out;
    }

    private static Seen pointsElsewhere(String node, String server, Instant at) {
        return new Seen(ELSEWHERE + "|" + node + "|report|" + server, ELSEWHERE, node, "a host report of " + node
                + " written at " + at + " says its agent points at " + server + " before step 3: the host was "
                + "pointed at another cluster", at);
    }

    private static List<Seen> notReadyAsCleanup(NodeHandover h, HandoverSpec.Target t, HandoverReading r) {
        HandoverReading.RemovalSeen removal = r.evidence() == null ? null : r.evidence().removals().get(t.node());
        Optional<String> recorded = h.step(3).flatMap(s -> s.value(StepRecord.perNode(HandoverChecks.REMOVAL,
                t.node())));
        if (removal == null && recorded.isEmpty()) {
            return List.of();
        }
        boolean reply = h.step(2).flatMap(s -> s.value(StepRecord.perNode(HandoverChecks.REMOVED_AT, t.node())))
                .isPresent();
        Instant when = removal != null && removal.deletedAt() != null ? removal.deletedAt()
                : h.step(3).map(StepRecord::at).orElse(null);
        String override = removal != null ? removal.override() : recorded.filter(v -> v.contains("override"))
                .orElse(null);
        List<Seen> out = new ArrayList<>();
        if (!reply) {
            out.add(new Seen(NOTREADY_AS_CLEANUP + "|" + t.node() + "|no-reply", NOTREADY_AS_CLEANUP, t.node(),
                    t.node() + " was deleted without the owner's reply with a removal time (step 2 has none for it): "
                            + "a stopped Lease was read as cleanup", when));
        } else if (override != null) {
            out.add(new Seen(NOTREADY_AS_CLEANUP + "|" + t.node() + "|override", NOTREADY_AS_CLEANUP, t.node(),
                    t.node() + " was deleted over a gate that did not pass (" + override + "): the Lease stop did not "
                            + "match the reply, and NotReady was read as cleanup", when));
        }
        return out;
    }

    private static List<Seen> deletedOutside(NodeHandover h, HandoverSpec.Target t, HandoverReading r) {
        if (h.recorded(3) || r.giving().node(t.node()) != null) {
            return List.of();
        }
        boolean evidenceRead = r.evidence() != null;
        boolean tombstonesRead = r.giving().tombstones() != null;
        if (!evidenceRead && !tombstonesRead) {
            return List.of();
        }
        boolean removedByNodegate = (evidenceRead && r.evidence().removals().containsKey(t.node()))
                || (tombstonesRead && r.giving().tombstones().stream().anyMatch(ts -> ts.name().equals(t.node())
                && (t.uid() == null || ts.uid() == null || t.uid().equals(ts.uid()))));
        if (removedByNodegate) {
            return List.of();
        }
        return List.of(new Seen(DELETED_OUTSIDE + "|" + t.node(), DELETED_OUTSIDE, t.node(), "Node " + t.node()
                + " is gone from " + HandoverChecks.givingName(r) + " with no removal record"
                + (tombstonesRead ? " and no tombstone" : "") + ": it was deleted outside the gate (nothing saved, "
                + "no return watched for)", null));
    }

    private static List<Seen> contradicted(NodeHandover h, HandoverSpec.Target t, HandoverReading r) {
        List<Seen> out = new ArrayList<>();
        NodeInfo n = r.giving().node(t.node());
        Optional<StepRecord> one = h.step(1);
        if (one.isPresent() && !h.recorded(3) && n != null) {
            String said = "step 1 was recorded done by " + one.get().by() + " at " + one.get().at();
            if (!n.unschedulable()) {
                out.add(new Seen(CONTRADICTED + "|" + t.node() + "|1|uncordoned", CONTRADICTED, t.node(), said
                        + ", but " + t.node() + " is not cordoned", null));
            }
            List<PodInfo> pods = r.giving().pods() == null ? List.of()
                    : HandoverChecks.workloadPods(r.giving().pods().getOrDefault(t.node(), List.of()));
            if (!pods.isEmpty()) {
                out.add(new Seen(CONTRADICTED + "|" + t.node() + "|1|pods", CONTRADICTED, t.node(), said + ", but "
                        + t.node() + " runs " + pods.size() + " pod(s) that are not DaemonSet or mirror pods: "
                        + String.join(", ", pods.stream().limit(5).map(p -> p.namespace() + "/" + p.name()).toList()),
                        null));
            }
        }
        Optional<StepRecord> three = h.step(3);
        if (three.isPresent()) {
            String said = "step 3 was recorded done by " + three.get().by() + " at " + three.get().at();
            if (n != null && (t.uid() == null || t.uid().equals(n.uid()))) {
                out.add(new Seen(CONTRADICTED + "|" + t.node() + "|3|present", CONTRADICTED, t.node(), said
                        + ", but Node " + t.node() + " (uid " + n.uid() + ") is still there", null));
            }
            for (NodeInfo back : HostIdentity.appearances(t.systemUuid(), t.machineId(), r.giving().nodes())) {
                if (t.uid() == null || !t.uid().equals(back.uid())) {
                    out.add(new Seen(CONTRADICTED + "|" + t.node() + "|3|back|" + back.uid(), CONTRADICTED, t.node(),
                            said + ", but the host registered here again as " + back.name() + " (created "
                                    + back.created() + ")", back.created()));
                }
            }
        }
        Optional<StepRecord> five = h.step(5);
        HandoverReading.Other dest = r.others().stream().filter(HandoverReading.Other::destination).findFirst()
                .orElse(null);
        if (five.isPresent() && dest != null && dest.error() == null) {
            List<NodeInfo> there = HostIdentity.appearances(t.systemUuid(), t.machineId(), dest.nodes());
            if (there.stream().noneMatch(NodeInfo::isReady)) {
                out.add(new Seen(CONTRADICTED + "|" + t.node() + "|5|not-ready", CONTRADICTED, t.node(),
                        "step 5 was recorded done by " + five.get().by() + " at " + five.get().at() + ", but "
                                + t.node() + "'s host is " + (there.isEmpty() ? "not a Node of " + dest.name()
                                : "not Ready in " + dest.name() + " (" + there.get(0).name() + " Ready="
                                + there.get(0).readyStatus() + ")"), null));
            }
        }
        return out;
    }
}
