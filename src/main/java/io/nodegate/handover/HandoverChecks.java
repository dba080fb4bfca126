package io.nodegate.handover;

import io.nodegate.model.HostIdentity;
import io.nodegate.model.Gpu;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.PodInfo;
import io.nodegate.model.Taint;

import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What nodegate checks at each step, so a person only confirms what a machine cannot see (the table in
 * docs/handover.md). Pure: the hand-over, the step's claim (what the person records, or recorded) and one
 * {@link HandoverReading} go in, checks come out. A read that failed makes the checks that depend on it INVALID;
 * nothing is judged on an absence that was not read.
 */
public final class HandoverChecks {

    /** Evidence names a step records (per node they are "name/node", {@link StepRecord#perNode}). */
    public static final String REMOVED_AT = "removedAt";
    public static final String HOST_REPORT = "hostReport";
    public static final String EVIDENCE_DIR = "evidenceDir";
    public static final String GATE = "gate";
    public static final String LEASE_STOPPED = "leaseStopped";
    public static final String REMOVAL = "removal";
    public static final String HANDED_TO = "handedTo";
    public static final String VERIFY_GONE = "verifyGone";
    public static final String NEW_NAME = "newName";
    public static final String NEW_IP = "newIP";
    public static final String OS = "os";
    public static final String DRIVER = "driver";
    public static final String ADMITTED = "admitted";
    public static final String EXPECT_ROLE = "expectRole";
    public static final String EXPECT_TAINT = "expectTaint";
    public static final String MEMBERSHIP = "membership";
    public static final String PERIOD = "period";
    public static final String RETURN_DATE = "returnDate";
    public static final String CORDONED = "cordoned";
    public static final String PODS = "pods";
    public static final String SILENCES = "silences";
    public static final String TICKET = "ticket";

    private HandoverChecks() {
    }

    /**
     * Every check {@code handover status} shows: those of the recorded steps that still say something (a step
     * about the Nodes stops once they are removed) and those of the next step, which say whether it can be recorded.
     */
    public static List<StepCheck> all(NodeHandover h, HandoverReading r) {
        List<StepCheck> out = new ArrayList<>();
        int last = h.lastStep();
        for (int n = 0; n <= Math.min(last + 1, Step.LAST); n++) {
            if (n <= last && n < 3 && h.recorded(3)) {
                continue;
            }
            if (n == 1 && n <= last && !stillMeaningful(h, r)) {
                continue;
            }
            StepRecord recorded = h.step(n).orElse(null);
            for (StepCheck c : check(Step.of(n), h, recorded, r)) {
                out.add(recorded == null ? c : notJudgedAgain(c, recorded, r));
            }
        }
        return out;
    }

    /**
     * A recorded step is not judged again against a Node that has since left the cluster: its "exists" and
     * "cordoned" checks held when it was recorded, and the Node's going is the procedure moving on (step 3), not the
     * step failing. What contradicts a recorded step while the Node is there is a violation (step-contradicted), and
     * a Node gone outside the procedure is one too (deleted-outside-the-procedure).
     */
    private static StepCheck notJudgedAgain(StepCheck c, StepRecord recorded, HandoverReading r) {
        boolean gone = c.node() != null && !givingFailed(r) && r.giving().node(c.node()) == null;
        Verdict v = c.check().outcome();
        if (!gone || v == Verdict.PASS || v == Verdict.NOT_CHECKED || v == Verdict.INVALID) {
            return c;
        }
        return new StepCheck(c.step(), c.node(), new Check(c.check().id(), c.check().title(), Verdict.NOT_CHECKED,
                List.of("recorded by " + recorded.by() + " at " + recorded.at() + "; " + c.node() + " has left the "
                        + "cluster since (NotFound): a recorded step is not judged again"), c.check().evidence()));
    }

    private static boolean stillMeaningful(NodeHandover h, HandoverReading r) {
        return r.giving() == null || r.giving().error() != null
                || h.spec().nodes().stream().anyMatch(n -> r.giving().node(n) != null);
    }

    /**
     * The checks of one step.
     *
     * @param claim what the person records for the step (a draft while recording), or its record; null when the
     *              step is not recorded (the checks then say whether it could be)
     */
    public static List<StepCheck> check(Step step, NodeHandover h, StepRecord claim, HandoverReading r) {
        return switch (step) {
            case REQUEST -> request(h, r);
            case EMPTY -> empty(h, r);
            case HOST_CLEANUP -> hostCleanup(h, claim, r);
            case GATE_DELETE -> gateDelete(h, claim, r);
            case HOST_PREPARED -> hostPrepared(h, claim);
            case ADMITTED -> admitted(h, claim, r);
            case RECORD -> record(h, claim);
        };
    }

    // ---------------------------------------------------------------------------------------------- step 0

    private static List<StepCheck> request(NodeHandover h, HandoverReading r) {
        List<StepCheck> out = new ArrayList<>();
        HandoverSpec s = h.spec();
        List<String> missing = new ArrayList<>();
        Map<String, String> ev = new LinkedHashMap<>();
        ev.put("type", s.type() == null ? "-" : s.type().text());
        ev.put("destination", s.destination() == null ? "-" : s.destination().cluster()
                + (s.destination().context() == null ? "" : " (context " + s.destination().context() + ")"));
        ev.put("due", String.valueOf(s.due()));
        ev.put("requester", String.valueOf(s.requester()));
        if (s.type() == null) {
            missing.add("no type (move, return or decommission)");
        } else if (s.type().hasDestination() && (s.destination() == null || blank(s.destination().cluster()))) {
            missing.add("a " + s.type().text() + " needs a destination cluster");
        }
        if (blank(s.due())) {
            missing.add("no due date");
        } else {
            try {
                LocalDate.parse(s.due());
            } catch (DateTimeParseException e) {
                missing.add("due '" + s.due() + "' is not a date (YYYY-MM-DD)");
            }
        }
        if (blank(s.requester())) {
            missing.add("no requester");
        }
        out.add(new StepCheck(0, null, new Check("request", "destination, type and due are set",
                missing.isEmpty() ? Verdict.PASS : Verdict.FAIL, missing, ev)));
        for (String node : s.nodes()) {
            out.add(new StepCheck(0, node, targetExists(h, node, r)));
        }
        return out;
    }

    private static Check targetExists(NodeHandover h, String node, HandoverReading r) {
        String title = "target exists in " + givingName(r);
        if (givingFailed(r)) {
            return invalid("target", title, r.giving().error());
        }
        NodeInfo n = r.giving().node(node);
        if (n == null) {
            return new Check("target", title, Verdict.FAIL, List.of("no Node " + node + " in " + givingName(r)
                    + " (NotFound)"), Map.of());
        }
        Map<String, String> ev = new LinkedHashMap<>();
        ev.put("uid", n.uid());
        ev.put("systemUUID", String.valueOf(n.systemInfo().systemUuid()));
        ev.put("machineID", String.valueOf(n.systemInfo().machineId()));
        ev.put("internalIPs", String.join(", ", n.internalIps()));
        if (n.isServer()) {
            ev.put("server", "roles " + n.roles() + ": its etcd member must be gone from every endpoint before "
                    + "the gate can PASS (step 3)");
        }
        Optional<HandoverSpec.Target> t = h.spec().target(node);
        if (t.isPresent() && t.get().uid() != null && !t.get().uid().equals(n.uid())) {
            return new Check("target", title, Verdict.FAIL, List.of("Node " + node + " is another object (uid "
                    + n.uid() + ", created " + n.created() + ") than at open (uid " + t.get().uid() + ")"), ev);
        }
        return new Check("target", title, Verdict.PASS, List.of(), ev);
    }

    // ---------------------------------------------------------------------------------------------- step 1

    private static List<StepCheck> empty(NodeHandover h, HandoverReading r) {
        List<StepCheck> out = new ArrayList<>();
        for (String node : h.spec().nodes()) {
            if (givingFailed(r)) {
                out.add(new StepCheck(1, node, invalid(CORDONED, "cordoned", r.giving().error())));
                out.add(new StepCheck(1, node, invalid(PODS, "only DaemonSet or mirror pods", r.giving().error())));
                continue;
            }
            NodeInfo n = r.giving().node(node);
            if (n == null) {
                out.add(new StepCheck(1, node, new Check(CORDONED, "cordoned", Verdict.FAIL,
                        List.of("no Node " + node + " (NotFound): step 1 empties a Node that is still there"),
                        Map.of())));
                continue;
            }
            out.add(new StepCheck(1, node, n.unschedulable()
                    ? new Check(CORDONED, "cordoned", Verdict.PASS, List.of(), Map.of("spec.unschedulable", "true"))
                    : new Check(CORDONED, "cordoned", Verdict.FAIL, List.of(node + " is not cordoned "
                    + "(spec.unschedulable is not true): new pods can land on it"), Map.of())));
            if (r.giving().pods() != null) {
                out.add(new StepCheck(1, node, pods(node, r)));
            }
        }
        if (!givingFailed(r) && r.giving().pods() == null) {
            out.add(new StepCheck(1, null, new Check(PODS, "only DaemonSet or mirror pods", Verdict.NOT_CHECKED,
                    List.of("pods were not read (a saved dump holds none; the watch does not list pods)"), Map.of())));
        }
        out.add(new StepCheck(1, null, silences(r)));
        return out;
    }

    /**
     * Pods still bound to the node, other than DaemonSet pods (they go with the Node) and mirror pods (owned by the
     * Node: the kubelet's static pods, pkg/kubelet/pod/mirror_client.go), and other than finished ones.
     */
    static List<PodInfo> workloadPods(List<PodInfo> pods) {
        return pods.stream().filter(p -> !"DaemonSet".equals(p.ownerKind()) && !"Node".equals(p.ownerKind())
                && !"Succeeded".equals(p.phase()) && !"Failed".equals(p.phase())).toList();
    }

    private static Check pods(String node, HandoverReading r) {
        String title = "only DaemonSet or mirror pods";
        List<PodInfo> pods = r.giving().pods().getOrDefault(node, List.of());
        List<PodInfo> workload = workloadPods(pods);
        Map<String, String> ev = new LinkedHashMap<>();
        ev.put("pods", pods.size() + " bound (" + (pods.size() - workload.size()) + " DaemonSet/mirror/finished)");
        if (workload.isEmpty()) {
            return new Check(PODS, title, Verdict.PASS, List.of(), ev);
        }
        List<String> names = workload.stream().limit(10).map(p -> p.namespace() + "/" + p.name()
                + (p.ownerKind() == null ? "" : " (" + p.ownerKind() + ")")).toList();
        return new Check(PODS, title, Verdict.FAIL, List.of(node + " still runs " + workload.size()
                + " pod(s) that are not DaemonSet or mirror pods: " + String.join(", ", names)
                + (workload.size() > 10 ? ", …" : "") + " (drain it)"), ev);
    }

    private static Check silences(HandoverReading r) {
        String title = "silences effective";
        HandoverReading.SilenceReport s = r.silences();
        if (s == null) {
            return new Check(SILENCES, title, Verdict.NOT_CHECKED, List.of("no Alertmanager recorded "
                    + "(handover open --alertmanager URL)"), Map.of());
        }
        Map<String, String> ev = new LinkedHashMap<>();
        List<String> reasons = new ArrayList<>();
        Verdict v = Verdict.PASS;
        for (SilenceDecision.Replica rep : s.replicas()) {
            ev.put(rep.url(), rep.state() + ": " + rep.detail());
            if (SilenceDecision.UNREADABLE.equals(rep.state())) {
                v = Verdict.worst(v, Verdict.INVALID);
                reasons.add("Alertmanager " + rep.url() + " " + rep.detail() + ": whether the silence holds there is"
                        + " unknown");
            } else if (!SilenceDecision.OK.equals(rep.state())) {
                v = Verdict.worst(v, Verdict.HOLD);
                reasons.add("Alertmanager " + rep.url() + ": " + rep.state() + " (" + rep.detail() + ")");
            }
        }
        for (SilenceDecision.Unsilenced u : s.unsilenced()) {
            if (AmAlertStates.ACTIVE.equals(u.state())) {
                v = Verdict.worst(v, Verdict.HOLD);
                reasons.add("alert " + labels(u.labels()) + " on " + u.node() + " " + u.detail() + " (on "
                        + String.join(", ", u.alertmanagers()) + ")");
            } else {
                ev.put("alert " + labels(u.labels()), u.detail());
            }
        }
        for (SilenceDecision.MixedGroup g : s.groups()) {
            v = Verdict.worst(v, Verdict.HOLD);
            reasons.add(mixedGroupText(g));
        }
        s.peering().forEach(p -> ev.put("peering", p));
        return new Check(SILENCES, title, v, reasons, ev);
    }

    /** How a group a silence cannot help is said everywhere (status, the report, Events). */
    public static String mixedGroupText(SilenceDecision.MixedGroup g) {
        return "receiver " + g.receiver() + " keeps getting group " + labels(g.labels()) + " (group_by: "
                + g.groupBy() + "): besides the silenced target alert(s) of " + String.join(", ", g.targets())
                + " it holds " + (g.otherNodes().stream().anyMatch(o -> o.endsWith("silence)")) ? "" : "active ")
                + "alerts of " + String.join(", ", g.otherNodes()) + ", so silencing the targets "
                + "does not stop its notifications";
    }

    static String labels(Map<String, String> labels) {
        return new TreeMap<>(labels).entrySet().stream().map(e -> e.getKey() + "=\"" + e.getValue() + "\"")
                .collect(Collectors.joining(", ", "{", "}"));
    }

    /** Alert states as Alertmanager names them (kept apart so decisions read as words). */
    static final class AmAlertStates {
        static final String ACTIVE = io.nodegate.model.alertmanager.AmAlert.ACTIVE;

        private AmAlertStates() {
        }
    }

    // ---------------------------------------------------------------------------------------------- step 2

    private static List<StepCheck> hostCleanup(NodeHandover h, StepRecord claim, HandoverReading r) {
        List<StepCheck> out = new ArrayList<>();
        String title = "the owner's reply with a removal time";
        if (claim == null) {
            out.add(new StepCheck(2, null, new Check("reply", title, Verdict.HOLD, List.of("waiting for the infra "
                    + "team's reply: `handover step " + h.name() + " 2 --by WHO --removed-at [NODE=]TIME`"), Map.of())));
        }
        for (String node : h.spec().nodes()) {
            if (claim != null) {
                Optional<String> at = claim.value(StepRecord.perNode(REMOVED_AT, node));
                out.add(new StepCheck(2, node, at.isPresent()
                        ? new Check("reply", title, Verdict.PASS, List.of(), Map.of("by", claim.by(),
                        "removedAt", at.get()))
                        : new Check("reply", title, Verdict.HOLD, List.of("the reply gives no removal time for "
                        + node + " (RKE2 removed or agent stopped at: not the reboot time): "
                        + "without it, a stopped Lease cannot be told from a cleanup"), Map.of("by", claim.by()))));
            }
            Check report = hostReport(node, claim, r);
            if (report != null) {
                out.add(new StepCheck(2, node, report));
            }
        }
        if (out.stream().noneMatch(c -> HOST_REPORT.equals(c.check().id()))) {
            out.add(new StepCheck(2, null, new Check(HOST_REPORT, "host reports", Verdict.NOT_CHECKED,
                    List.of("no host report given (optional: `nodegate host inspect` on each host, then --host-report "
                            + "FILE)"), Map.of())));
        }
        return out;
    }

    /** The node's host report check, or null when no report was given for it (reports are optional). */
    private static Check hostReport(String node, StepRecord claim, HandoverReading r) {
        String title = "host report";
        HandoverReading.HostReportSeen seen = r.hostReports().stream().filter(x -> x.node().equals(node))
                .reduce((a, b) -> b).orElse(null);
        if (seen != null) {
            return judged(seen);
        }
        Optional<String> recorded = claim == null ? Optional.empty()
                : claim.value(StepRecord.perNode(HOST_REPORT, node));
        if (recorded.isEmpty()) {
            return null;
        }
        String verdict = recorded.get().split(" ", 2)[0];
        Map<String, String> ev = Map.of("recorded", recorded.get());
        return switch (verdict) {
            case "clean" -> new Check(HOST_REPORT, title + ": clean", Verdict.PASS, List.of(), ev);
            case "stopped" -> new Check(HOST_REPORT, title + ": stopped", Verdict.HOLD, List.of("the agent is "
                    + "stopped, not removed: it rejoins on start"), ev);
            case "incomplete" -> new Check(HOST_REPORT, title + ": incomplete", Verdict.HOLD, List.of("the report "
                    + "could not tell whether an agent runs on the host (its services were not read)"), ev);
            default -> new Check(HOST_REPORT, title + ": " + verdict, Verdict.FAIL, List.of("the host report says "
                    + recorded.get()), ev);
        };
    }

    /** A host report read with this look (step 2 or status --host-report). */
    static Check judged(HandoverReading.HostReportSeen seen) {
        String title = "host report";
        Map<String, String> ev = new LinkedHashMap<>();
        ev.put("file", seen.file());
        ev.put("sha256", seen.sha256());
        ev.put("inspectedAt", String.valueOf(seen.inspectedAt()));
        ev.put("server", String.valueOf(seen.server()));
        if (!seen.intact()) {
            return new Check(HOST_REPORT, title, Verdict.INVALID, List.of("the report's sha256 does not match its "
                    + "body: it was changed after `host inspect` wrote it"), ev);
        }
        if (!seen.identityProblems().isEmpty()) {
            return new Check(HOST_REPORT, title, Verdict.INVALID, seen.identityProblems(), ev);
        }
        return switch (seen.verdict()) {
            case "clean" -> new Check(HOST_REPORT, title + ": clean", Verdict.PASS, List.of(), ev);
            case "stopped" -> new Check(HOST_REPORT, title + ": stopped", Verdict.HOLD,
                    prepend("the agent is stopped, not removed: it rejoins on start", seen.reasons()), ev);
            case "incomplete" -> new Check(HOST_REPORT, title + ": incomplete", Verdict.HOLD,
                    prepend("the report could not tell whether an agent runs on the host: its services were not read "
                            + "(`host inspect --root` without --systemctl)", seen.reasons()), ev);
            case "points-elsewhere" -> new Check(HOST_REPORT, title + ": points-elsewhere", Verdict.FAIL,
                    prepend("the agent points at " + seen.server() + ", not this cluster: the host left for "
                            + "another cluster", seen.reasons()), ev);
            default -> new Check(HOST_REPORT, title + ": " + seen.verdict(), Verdict.FAIL,
                    prepend("an agent is running on the host", seen.reasons()), ev);
        };
    }

    // ---------------------------------------------------------------------------------------------- step 3

    private static List<StepCheck> gateDelete(NodeHandover h, StepRecord claim, HandoverReading r) {
        List<StepCheck> out = new ArrayList<>();
        HandoverReading.Evidence ev = r.evidence();
        for (String node : h.spec().nodes()) {
            HandoverSpec.Target target = h.spec().target(node).orElse(null);
            out.add(new StepCheck(3, node, gate(h, node, target, claim, ev)));
            out.add(new StepCheck(3, node, removed(node, target, claim, r)));
            if (h.spec().type().hasDestination() && h.spec().destination() != null) {
                out.add(new StepCheck(3, node, handedTo(node, h.spec().destination().cluster(), claim, r)));
            }
        }
        out.add(new StepCheck(3, null, verifyGone(h, claim, ev, null, VERIFY_GONE,
                "verify-gone PASS after the last removal")));
        return out;
    }

    private static Check gate(NodeHandover h, String node, HandoverSpec.Target target, StepRecord claim,
                              HandoverReading.Evidence ev) {
        String title = "the gate's PASS record";
        if (ev == null) {
            Optional<String> recorded = claim == null ? Optional.empty() : claim.value(StepRecord.perNode(GATE, node));
            if (recorded.isPresent()) {
                return new Check(GATE, title, recorded.get().startsWith("PASS") || recorded.get().startsWith("override")
                        ? Verdict.PASS : Verdict.FAIL, recorded.get().startsWith("PASS")
                        || recorded.get().startsWith("override") ? List.of() : List.of("recorded: " + recorded.get()),
                        Map.of("recorded", recorded.get()));
            }
            return new Check(GATE, title, Verdict.NOT_CHECKED, List.of("no evidence directory read (the gate's "
                    + "records are where `nodegate gate` ran: --evidence-dir or --baseline)"), Map.of());
        }
        HandoverReading.GateSeen g = ev.gates().get(node);
        HandoverReading.RemovalSeen removal = ev.removals().get(node);
        if (g == null) {
            if (removal != null && removal.override() != null) {
                return new Check(GATE, title, Verdict.PASS, List.of(), Map.of("override", removal.override(),
                        "decision", String.valueOf(removal.decision())));
            }
            return new Check(GATE, title, Verdict.HOLD, List.of("no gate record for " + node + " in " + ev.dir()
                    + ": run `nodegate gate " + node + " --baseline FILE --removed-at TIME` when the owner's reply "
                    + "is in"), Map.of());
        }
        Map<String, String> e = new LinkedHashMap<>();
        e.put("record", g.file());
        e.put("verdict", g.verdict());
        e.put("gatedAt", String.valueOf(g.gatedAt()));
        e.put("sha256", String.valueOf(g.sha256()));
        if (g.leaseRenewTime() != null) {
            e.put("leaseRenewTime", g.leaseRenewTime().toString());
        }
        if (removal != null && removal.override() != null) {
            e.put("override", removal.override());
            return new Check(GATE, title + " (overridden)", Verdict.PASS, List.of(), e);
        }
        if (!"PASS".equals(g.verdict())) {
            return new Check(GATE, title, "FAIL".equals(g.verdict()) ? Verdict.FAIL : Verdict.HOLD,
                    prepend("the newest gate record for " + node + " is " + g.verdict(), g.reasons()), e);
        }
        if (target != null && target.uid() != null && g.nodeUid() != null && !target.uid().equals(g.nodeUid())) {
            return new Check(GATE, title, Verdict.FAIL, List.of("the gate judged Node uid " + g.nodeUid()
                    + ", not the target recorded at open (uid " + target.uid() + ")"), e);
        }
        if (target != null && target.isServer() && !g.etcdGoneChecked()) {
            return new Check(GATE, title, Verdict.HOLD, List.of(node + " is a server node: its etcd member must be "
                    + "gone from every endpoint's member list before the gate can PASS, and this gate record does "
                    + "not show that check (gate it again with --etcd-endpoint for every server)"), e);
        }
        return new Check(GATE, title, Verdict.PASS, List.of(), e);
    }

    private static Check removed(String node, HandoverSpec.Target target, StepRecord claim, HandoverReading r) {
        String title = "removed (removal record, Node NotFound)";
        Map<String, String> e = new LinkedHashMap<>();
        HandoverReading.RemovalSeen removal = r.evidence() == null ? null : r.evidence().removals().get(node);
        Optional<String> recorded = claim == null ? Optional.empty() : claim.value(StepRecord.perNode(REMOVAL, node));
        if (removal != null) {
            e.put("record", removal.file());
            e.put("state", removal.state());
            e.put("deletedAt", String.valueOf(removal.deletedAt()));
        } else if (recorded.isPresent()) {
            e.put("recorded", recorded.get());
        }
        if (givingFailed(r)) {
            return invalid(REMOVAL, title, r.giving().error());
        }
        NodeInfo now = r.giving().node(node);
        if (now != null && (target == null || target.uid() == null || target.uid().equals(now.uid()))) {
            return new Check(REMOVAL, title, Verdict.HOLD, List.of("Node " + node + " is still there (uid "
                    + now.uid() + "): `nodegate remove " + node + " --baseline FILE --handed-to CLUSTER` after a PASS "
                    + "gate"), e);
        }
        if (now != null) {
            return new Check(REMOVAL, title, Verdict.FAIL, List.of("a Node named " + node + " is there again (uid "
                    + now.uid() + ", created " + now.created() + "): the host registered again"), e);
        }
        if (removal == null && recorded.isEmpty()) {
            if (r.evidence() == null) {
                return new Check(REMOVAL, title, Verdict.NOT_CHECKED, List.of("Node NotFound; no evidence directory "
                        + "read to show its removal record"), e);
            }
            return new Check(REMOVAL, title, Verdict.FAIL, List.of("Node " + node + " is gone but there is no removal "
                    + "record in " + r.evidence().dir() + ": it was deleted outside `nodegate remove` (nothing was "
                    + "saved before, no tombstone)"), e);
        }
        if (removal != null && !List.of("complete", "deleted").contains(removal.state())) {
            return new Check(REMOVAL, title, Verdict.HOLD, List.of("the removal record says " + removal.state()),
                    e);
        }
        return new Check(REMOVAL, title, Verdict.PASS, List.of(), e);
    }

    /**
     * The tombstone of a removed target names the destination (`remove --handed-to`): its Node there is then the
     * expected arrival, not a removed host coming back (NG302), and `fleet` says where it went. From the removal
     * record when the evidence directory was read, else from the tombstones the giving cluster holds (the watch).
     */
    private static Check handedTo(String node, String destination, StepRecord claim, HandoverReading r) {
        String title = "the tombstone names the destination";
        String handed = null;
        boolean known = false;
        HandoverReading.RemovalSeen removal = r.evidence() == null ? null : r.evidence().removals().get(node);
        if (removal != null) {
            handed = removal.handedTo();
            known = true;
        } else if (claim != null && claim.value(StepRecord.perNode(REMOVAL, node)).isPresent()) {
            String v = claim.value(StepRecord.perNode(REMOVAL, node)).get();
            int at = v.indexOf(" handed to ");
            handed = at < 0 ? null : v.substring(at + " handed to ".length()).split(" ")[0];
            known = true;
        } else if (!givingFailed(r) && r.giving().tombstones() != null) {
            var ts = r.giving().tombstones().stream().filter(t -> t.name().equals(node)).reduce((a, b) -> b);
            if (ts.isPresent()) {
                handed = ts.get().handedTo();
                known = true;
            }
        }
        if (!known) {
            return new Check(HANDED_TO, title, Verdict.NOT_CHECKED, List.of("no removal record or tombstone of " + node
                    + " read yet"), Map.of());
        }
        Map<String, String> e = new LinkedHashMap<>();
        e.put("handedTo", String.valueOf(handed));
        if (destination.equals(handed)) {
            return new Check(HANDED_TO, title, Verdict.PASS, List.of(), e);
        }
        return new Check(HANDED_TO, title, Verdict.HOLD, List.of(handed == null
                ? node + " was removed without --handed-to: its tombstone does not say it went to " + destination
                + ", so its Node there reads as a removed host coming back (NG302); remove the next ones with "
                + "`nodegate remove NODE --baseline FILE --handed-to " + destination + "`"
                : node + "'s tombstone says it was handed to " + handed + ", not " + destination), e);
    }

    /**
     * A verify-gone PASS after {@code after} (the last removal, or the hosts' arrival in the destination).
     *
     * @param after null: after the newest removal in the evidence
     */
    private static Check verifyGone(NodeHandover h, StepRecord claim, HandoverReading.Evidence ev, Instant after,
                                    String id, String title) {
        if (ev == null) {
            Optional<String> recorded = claim == null ? Optional.empty() : claim.value(VERIFY_GONE);
            if (recorded.isPresent()) {
                boolean pass = recorded.get().startsWith("PASS");
                return new Check(id, title, pass ? Verdict.PASS : Verdict.FAIL, pass ? List.of()
                        : List.of("recorded: " + recorded.get()), Map.of("recorded", recorded.get()));
            }
            return new Check(id, title, Verdict.NOT_CHECKED, List.of("no evidence directory read (verify-gone "
                    + "records are where `nodegate verify-gone` ran)"), Map.of());
        }
        Instant since = after;
        if (since == null) {
            since = ev.removals().values().stream().map(x -> x.deletedAt() != null ? x.deletedAt() : x.startedAt())
                    .filter(Objects::nonNull).max(Comparator.naturalOrder()).orElse(null);
        }
        final Instant from = since;
        HandoverReading.VerifyGoneSeen newest = ev.verifyGone().stream()
                .filter(v -> from == null || v.at().isAfter(from)).max(Comparator.comparing(
                        HandoverReading.VerifyGoneSeen::at)).orElse(null);
        if (newest == null) {
            return new Check(id, title, Verdict.HOLD, List.of("no verify-gone run" + (from == null ? ""
                    : " after " + from) + " in " + ev.dir() + ": run `nodegate verify-gone --baseline FILE`"),
                    Map.of());
        }
        Map<String, String> e = new LinkedHashMap<>();
        e.put("record", newest.file());
        e.put("at", newest.at().toString());
        e.put("verdict", newest.verdict());
        if ("PASS".equals(newest.verdict())) {
            return new Check(id, title, Verdict.PASS, List.of(), e);
        }
        return new Check(id, title, "INVALID".equals(newest.verdict()) ? Verdict.HOLD : Verdict.FAIL,
                prepend("the newest verify-gone run" + (from == null ? "" : " after " + from) + " is "
                        + newest.verdict(), newest.findings()), e);
    }

    // ---------------------------------------------------------------------------------------------- step 4

    private static List<StepCheck> hostPrepared(NodeHandover h, StepRecord claim) {
        List<StepCheck> out = new ArrayList<>();
        String title = "infra's reply (new name, IP, OS, driver)";
        if (!h.spec().type().hasDestination()) {
            out.add(new StepCheck(4, null, new Check("prepared", title, Verdict.NOT_CHECKED,
                    List.of("a decommission has no receiving cluster"), Map.of())));
            return out;
        }
        for (String node : h.spec().nodes()) {
            if (claim == null) {
                out.add(new StepCheck(4, node, new Check("prepared", title, Verdict.HOLD, List.of("waiting for "
                        + "infra's reply: `handover step " + h.name() + " 4 --by WHO --new-name " + node + "=NAME "
                        + "--new-ip " + node + "=IP`"), Map.of())));
                continue;
            }
            Map<String, String> e = new LinkedHashMap<>();
            List<String> missing = new ArrayList<>();
            for (String what : List.of(NEW_NAME, NEW_IP)) {
                Optional<String> v = claim.value(StepRecord.perNode(what, node));
                v.ifPresent(x -> e.put(what, x));
                if (v.isEmpty()) {
                    missing.add("no " + (NEW_NAME.equals(what) ? "new name" : "new IP") + " for " + node);
                }
            }
            claim.value(OS).ifPresent(x -> e.put(OS, x));
            claim.value(DRIVER).ifPresent(x -> e.put(DRIVER, x));
            out.add(new StepCheck(4, node, new Check("prepared", title, missing.isEmpty() ? Verdict.PASS
                    : Verdict.HOLD, missing, e)));
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------------- step 5

    private static List<StepCheck> admitted(NodeHandover h, StepRecord claim, HandoverReading r) {
        List<StepCheck> out = new ArrayList<>();
        String title = "Ready in the destination with the expected version, role, taints and GPUs";
        if (!h.spec().type().hasDestination()) {
            out.add(new StepCheck(5, null, new Check(ADMITTED, title, Verdict.NOT_CHECKED,
                    List.of("a decommission has no receiving cluster"), Map.of())));
            return out;
        }
        HandoverReading.Other dest = r.others().stream().filter(HandoverReading.Other::destination).findFirst()
                .orElse(null);
        Instant arrived = null;
        for (String node : h.spec().nodes()) {
            HandoverSpec.Target target = h.spec().target(node).orElse(null);
            Check c = admittedOne(h, node, target, claim, dest);
            out.add(new StepCheck(5, node, c));
            if (dest != null && dest.error() == null && target != null) {
                for (NodeInfo n : HostIdentity.appearances(target.systemUuid(), target.machineId(), dest.nodes())) {
                    if (n.created() != null && (arrived == null || n.created().isAfter(arrived))) {
                        arrived = n.created();
                    }
                }
            }
        }
        String vgTitle = "verify-gone PASS again after the hosts were admitted";
        if (arrived == null && r.evidence() != null) {
            out.add(new StepCheck(5, null, new Check("verifyGoneAgain", vgTitle, Verdict.HOLD,
                    List.of("the hosts are not seen in the destination yet: the second verify-gone comes after"),
                    Map.of())));
        } else {
            out.add(new StepCheck(5, null, verifyGone(h, claim, r.evidence(), arrived, "verifyGoneAgain", vgTitle)));
        }
        return out;
    }

    private static Check admittedOne(NodeHandover h, String node, HandoverSpec.Target target, StepRecord claim,
                                     HandoverReading.Other dest) {
        String title = "Ready in the destination";
        String cluster = h.spec().destination() == null ? "?" : h.spec().destination().cluster();
        if (dest == null) {
            Optional<String> recorded = claim == null ? Optional.empty()
                    : claim.value(StepRecord.perNode(ADMITTED, node));
            if (recorded.isPresent()) {
                return new Check(ADMITTED, title, Verdict.PASS, List.of(), Map.of("recorded", recorded.get()));
            }
            return new Check(ADMITTED, title, Verdict.NOT_CHECKED, List.of("the destination " + cluster + " was not "
                    + "read (--to-context, or the context recorded at open)"), Map.of());
        }
        if (dest.error() != null) {
            return invalid(ADMITTED, title, "cluster " + dest.name() + ": " + dest.error());
        }
        if (target == null) {
            return new Check(ADMITTED, title, Verdict.HOLD, List.of("no identity recorded for " + node), Map.of());
        }
        List<NodeInfo> seen = HostIdentity.appearances(target.systemUuid(), target.machineId(), dest.nodes());
        if (seen.isEmpty()) {
            return new Check(ADMITTED, title, Verdict.HOLD, List.of(node + "'s host (systemUUID "
                    + target.systemUuid() + ", machineID " + target.machineId() + ") is not a Node of " + dest.name()
                    + " yet"), Map.of());
        }
        NodeInfo n = seen.stream().max(Comparator.comparing(NodeInfo::created,
                Comparator.nullsFirst(Comparator.naturalOrder()))).orElseThrow();
        Map<String, String> e = new LinkedHashMap<>();
        e.put("node", n.name() + " in " + dest.name() + " (same "
                + HostIdentity.match(target.systemUuid(), target.machineId(), n) + ")");
        e.put("created", String.valueOf(n.created()));
        e.put("ready", String.valueOf(n.readyStatus()));
        e.put("kubeletVersion", String.valueOf(n.systemInfo().kubeletVersion()));
        e.put("roles", n.roles().toString());
        List<String> fails = new ArrayList<>();
        List<String> holds = new ArrayList<>();
        if (!n.isReady()) {
            holds.add(n.name() + " is not Ready in " + dest.name() + " (Ready=" + n.readyStatus() + ")");
        }
        String version = clusterVersion(dest.nodes());
        if (version == null) {
            e.put("expectedVersion", "not known (no server Node of " + dest.name() + " visible)");
        } else {
            e.put("expectedVersion", version);
            if (!version.equals(n.systemInfo().kubeletVersion())) {
                fails.add(n.name() + " runs kubelet " + n.systemInfo().kubeletVersion() + ", not " + dest.name()
                        + "'s " + version + ": reinstall at the cluster's version");
            }
        }
        List<String> roles = expected(claim, EXPECT_ROLE, target.roles());
        TreeSet<String> missingRoles = new TreeSet<>(roles);
        missingRoles.removeAll(n.roles());
        if (!missingRoles.isEmpty()) {
            fails.add(n.name() + " lacks role label(s) " + missingRoles.stream().map(x -> "node-role.kubernetes.io/"
                    + x).toList());
        }
        List<String> taints = expected(claim, EXPECT_TAINT, target.taints().stream()
                .filter(t -> !t.startsWith("node.kubernetes.io/")).toList());
        List<String> have = n.taints().stream().map(HandoverChecks::taintKeyEffect).toList();
        List<String> missingTaints = taints.stream().map(HandoverChecks::keyEffectOf)
                .filter(t -> have.stream().noneMatch(x -> x.equals(t) || (!t.contains(":") && x.startsWith(t + ":"))))
                .toList();
        if (!missingTaints.isEmpty()) {
            fails.add(n.name() + " lacks taint(s) " + missingTaints);
        }
        e.put("taints", have.toString());
        long gpus = gpus(n);
        e.put("gpus", Long.toString(gpus));
        if (target.gpus() != null && target.gpus() != gpus) {
            fails.add(n.name() + " reports " + gpus + " GPU(s), " + node + " had " + target.gpus()
                    + ": not the same hardware, or a driver/device plugin missing");
        }
        if (claim != null) {
            claim.value(StepRecord.perNode(NEW_NAME, node)).filter(x -> !x.equals(n.name()))
                    .ifPresent(x -> holds.add("registered as " + n.name() + ", infra's reply said " + x));
        }
        List<String> reasons = new ArrayList<>(fails);
        reasons.addAll(holds);
        return new Check(ADMITTED, title, !fails.isEmpty() ? Verdict.FAIL : !holds.isEmpty() ? Verdict.HOLD
                : Verdict.PASS, reasons, e);
    }

    private static List<String> expected(StepRecord claim, String name, List<String> fallback) {
        if (claim != null) {
            List<String> given = claim.evidence().stream().filter(x -> x.name().equals(name))
                    .flatMap(x -> java.util.Arrays.stream(x.value().split(","))).map(String::trim)
                    .filter(x -> !x.isEmpty()).toList();
            if (!given.isEmpty()) {
                return given;
            }
        }
        return fallback;
    }

    /** "key:effect" of a taint, as the comparison uses it (values may differ between clusters). */
    static String taintKeyEffect(Taint t) {
        return t.key() + ":" + t.effect();
    }

    /** "key=value:effect" or "key:effect" or "key" → "key:effect" or "key". */
    private static String keyEffectOf(String taint) {
        int colon = taint.lastIndexOf(':');
        String effect = colon > 0 ? taint.substring(colon + 1) : null;
        String keyValue = colon > 0 ? taint.substring(0, colon) : taint;
        int eq = keyValue.indexOf('=');
        String key = eq > 0 ? keyValue.substring(0, eq) : keyValue;
        return effect == null ? key : key + ":" + effect;
    }

    /** The servers' kubelet version (the most common among server Nodes), or null without a visible server. */
    static String clusterVersion(List<NodeInfo> nodes) {
        Map<String, Long> counts = nodes.stream().filter(NodeInfo::isServer)
                .map(n -> n.systemInfo().kubeletVersion()).filter(Objects::nonNull)
                .collect(Collectors.groupingBy(Function.identity(), TreeMap::new, Collectors.counting()));
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    }

    static long gpus(NodeInfo n) {
        try {
            return Gpu.capacity(n).values().stream().mapToLong(Long::longValue).sum();
        } catch (RuntimeException unparsable) {
            return -1;
        }
    }

    // ---------------------------------------------------------------------------------------------- step 6

    private static List<StepCheck> record(NodeHandover h, StepRecord claim) {
        String title = "membership, period, return date";
        if (claim == null) {
            return List.of(new StepCheck(6, null, new Check("record", title, Verdict.HOLD, List.of("waiting for the "
                    + "record: `handover step " + h.name() + " 6 --by WHO --term TEXT --return-date DATE|none`"),
                    Map.of())));
        }
        Map<String, String> e = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (String what : List.of(MEMBERSHIP, PERIOD, RETURN_DATE)) {
            Optional<String> v = claim.value(what);
            v.ifPresent(x -> e.put(what, x));
            if (v.isEmpty()) {
                missing.add("no " + what);
            }
        }
        return List.of(new StepCheck(6, null, new Check("record", title, missing.isEmpty() ? Verdict.PASS
                : Verdict.HOLD, missing, e)));
    }

    // ---------------------------------------------------------------------------------------------- helpers

    static boolean givingFailed(HandoverReading r) {
        return r.giving() == null || r.giving().error() != null;
    }

    static String givingName(HandoverReading r) {
        return r.giving() == null || r.giving().name() == null ? "the giving cluster" : r.giving().name();
    }

    private static Check invalid(String id, String title, String error) {
        return new Check(id, title, Verdict.INVALID, List.of("read failed: " + error + "; nothing it would have "
                + "shown is known"), Map.of());
    }

    private static List<String> prepend(String first, List<String> rest) {
        List<String> out = new ArrayList<>();
        out.add(first);
        out.addAll(rest);
        return out;
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
