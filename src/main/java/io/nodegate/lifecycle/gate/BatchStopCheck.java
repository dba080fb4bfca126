package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.LeaseBatches;
import io.nodegate.model.LeaseBatches.Stop;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.time.Durations;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * (f) The target's Lease stop is not one of a batch, or the reply covers the whole batch.
 *
 * <p>Check (c) accepts a Lease that stopped when the reply says. In the field case it came from, four GPU workers'
 * Leases stopped within 12 s of each other; the stop matched the time the receiving team had announced, and three
 * of the four hosts had in fact been restarted against another cluster 3 s later. A stop shared with other hosts
 * shows that someone acted on all of them at that moment, not what they did, so the time match alone is not enough:
 * HOLD, naming the other members. It passes only when every member is a target of this baseline and the reply
 * covers them all ({@code --reply-covers}), i.e. the host owner answered for the batch as a whole.
 */
final class BatchStopCheck implements GateCheck {

    /** Leases silent for less than this are alive; the longer (v1.32+) grace period cannot invent a batch. */
    static final Duration SILENT_AFTER = Duration.ofSeconds(50);

    @Override
    public String id() {
        return "f";
    }

    @Override
    public String title() {
        return "Lease stop not shared with other hosts";
    }

    @Override
    public boolean appliesTo(GateInput in) {
        return in.evidence().target() != null && in.evidence().nodeLeases() != null
                && in.evidence().targetLease() != null && in.evidence().targetLease().renewTime() != null;
    }

    @Override
    public Check evaluate(GateInput in) {
        GateEvidence ev = in.evidence();
        GateRequest req = in.request();
        String node = ev.target().name();
        Set<String> nodeNames = ev.nodes().stream().map(NodeInfo::name).collect(Collectors.toSet());
        nodeNames.add(node);
        List<Stop> silent = new ArrayList<>();
        for (LeaseInfo l : ev.nodeLeases()) {
            if (l.renewTime() != null && nodeNames.contains(l.name())
                    && Duration.between(l.renewTime(), ev.observedAt()).compareTo(SILENT_AFTER) > 0) {
                silent.add(new Stop(l.name(), l.renewTime()));
            }
        }
        if (silent.stream().noneMatch(s -> s.node().equals(node))) {
            // the target's Lease is still renewing: check (c) says FAIL/HOLD for that; there is no stop to share
            silent.add(new Stop(node, ev.targetLease().renewTime()));
        }
        List<Stop> batch = LeaseBatches.batchOf(node, silent, req.batchWindow());
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("batchWindow", Durations.format(req.batchWindow()));
        if (batch.size() < 2) {
            evid.put("batch", "none: no other node Lease stopped within " + Durations.format(req.batchWindow()));
            return result(Verdict.HOLD, List.of(), evid);
        }
        Duration spread = Duration.between(batch.get(0).renewTime(), batch.get(batch.size() - 1).renewTime());
        List<Stop> others = batch.stream().filter(s -> !s.node().equals(node)).toList();
        evid.put("batch", batch.stream().map(s -> s.node() + " " + s.renewTime()).collect(Collectors.joining(", ")));
        evid.put("batchSpread", Durations.format(spread));
        Set<String> members = new TreeSet<>();
        batch.forEach(s -> members.add(s.node()));
        Set<String> targets = new TreeSet<>();
        in.baseline().targets().stream().map(Baseline.Target::name).forEach(targets::add);
        Set<String> notTargets = new TreeSet<>(members);
        notTargets.removeAll(targets);
        Set<String> uncovered = new TreeSet<>(members);
        uncovered.remove(node);
        uncovered.removeAll(req.replyCovers());
        evid.put("replyCovers", req.replyCovers().isEmpty() ? "(not given)" : String.join(",", req.replyCovers()));
        if (notTargets.isEmpty() && uncovered.isEmpty()) {
            evid.put("accepted", "every member is a baseline target and the reply covers the whole batch");
            return result(Verdict.HOLD, List.of(), evid);
        }
        List<String> reasons = new ArrayList<>();
        reasons.add(node + "'s Lease stopped together with " + others.size() + " other node(s) within "
                + Durations.format(spread) + " (NG103's shape): " + others.stream()
                .map(s -> s.node() + " at " + s.renewTime()).collect(Collectors.joining(", "))
                + ". A batch shutdown and a batch move to another cluster leave the same trace, so the time "
                + "match alone does not show cleanup");
        if (!notTargets.isEmpty()) {
            reasons.add("batch member(s) " + notTargets + " are not targets of this baseline: find out what "
                    + "happened to them before deleting any member");
        }
        if (!uncovered.isEmpty()) {
            reasons.add("the reply does not cover " + uncovered + ": when the host owner confirms the cleanup of "
                    + "every member, gate again with --reply-covers " + String.join(",", members));
        }
        return result(Verdict.HOLD, reasons, evid);
    }
}
