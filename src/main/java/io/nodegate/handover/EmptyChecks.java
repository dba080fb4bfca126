package io.nodegate.handover;

import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.PodInfo;
import io.nodegate.model.alertmanager.AmAlert;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.nodegate.handover.HandoverChecks.CORDONED;
import static io.nodegate.handover.HandoverChecks.PODS;
import static io.nodegate.handover.HandoverChecks.SILENCES;
import static io.nodegate.handover.HandoverChecks.givingFailed;
import static io.nodegate.handover.HandoverChecks.invalid;
import static io.nodegate.handover.HandoverChecks.labels;
import static io.nodegate.handover.HandoverChecks.mixedGroupText;
import static io.nodegate.handover.HandoverChecks.workloadPods;

/**
 * The checks of step 1, emptying: each target cordoned, no pods but DaemonSet or mirror pods, the silences
 * effective on every Alertmanager replica ({@link HandoverChecks} composes the steps).
 */
final class EmptyChecks implements StepChecks {

    @Override
    public Step step() {
        return Step.EMPTY;
    }

    @Override
    public List<StepCheck> check(NodeHandover h, StepRecord claim, HandoverReading r) {
        return empty(h, r);
    }

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


    /** Alert states as Alertmanager names them (kept apart so decisions read as words). */
    static final class AmAlertStates {
        static final String ACTIVE = AmAlert.ACTIVE;

        private AmAlertStates() {
        }
    }
}
