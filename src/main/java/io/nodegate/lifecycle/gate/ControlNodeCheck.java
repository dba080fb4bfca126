package io.nodegate.lifecycle.gate;

import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.Condition;
import io.nodegate.model.NodeInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/** A node that stays must be seen, with its pods and node-password Secret: otherwise the queries that prove "gone" cannot be trusted (INVALID). */
final class ControlNodeCheck implements GateCheck {

    @Override
    public String id() {
        return "control";
    }

    @Override
    public String title() {
        return "positive control";
    }

    @Override
    public boolean appliesTo(GateInput in) {
        return true;
    }

    @Override
    public Check evaluate(GateInput in) {
        Baseline baseline = in.baseline();
        GateEvidence ev = in.evidence();
        String name = baseline.control().name();
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("control", name);
        List<String> reasons = new ArrayList<>();
        if (ev.control() == null) {
            reasons.add("control node " + name + " not found: the run cannot see a node that must be there");
        } else {
            evid.put("ready", String.valueOf(ev.control().readyStatus()));
            if (!ev.control().isReady()) {
                reasons.add("control node " + name + " is not Ready (" + ev.control().readyStatus() + ")");
            }
            evid.put("podsFound", String.valueOf(ev.controlPods()));
            if (ev.controlPods() == null || ev.controlPods() == 0) {
                reasons.add("the spec.nodeName pod query found no pod on control node " + name
                        + ": the query used to prove 'no pods left' cannot be trusted");
            }
            if (baseline.usesNodePasswords()) {
                evid.put("nodePasswordSecret", ev.controlNodePassword() == null ? "NotFound" : ev.controlNodePassword().name());
                if (ev.controlNodePassword() == null) {
                    reasons.add("node-password Secret of control node " + name
                            + " not found although the cluster uses them");
                }
            }
        }
        return new Check(id(), title() + " " + name, reasons.isEmpty() ? Verdict.PASS : Verdict.INVALID, reasons, evid);
    }
}
