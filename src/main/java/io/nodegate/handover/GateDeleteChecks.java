package io.nodegate.handover;

import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.NodeInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import static io.nodegate.handover.HandoverChecks.GATE;
import static io.nodegate.handover.HandoverChecks.HANDED_TO;
import static io.nodegate.handover.HandoverChecks.REMOVAL;
import static io.nodegate.handover.HandoverChecks.VERIFY_GONE;
import static io.nodegate.handover.HandoverChecks.givingFailed;
import static io.nodegate.handover.HandoverChecks.invalid;
import static io.nodegate.handover.HandoverChecks.prepend;

/**
 * The checks of step 3, gate, delete, first check: the gate's record, the removal, the hand-over to the destination
 * and verify-gone ({@link HandoverChecks} composes the steps).
 */
final class GateDeleteChecks implements StepChecks {

    @Override
    public Step step() {
        return Step.GATE_DELETE;
    }

    @Override
    public List<StepCheck> check(NodeHandover h, StepRecord claim, HandoverReading r) {
        return gateDelete(h, claim, r);
    }

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
    static Check verifyGone(NodeHandover h, StepRecord claim, HandoverReading.Evidence ev, Instant after,
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
}
