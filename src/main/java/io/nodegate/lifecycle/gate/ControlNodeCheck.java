package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.baseline.PositiveControl;
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
        String name = in.baseline().control().name();
        GateEvidence ev = in.evidence();
        PositiveControl pc = PositiveControl.check(name, ev.control(), ev.controlPods(), ev.controlNodePassword(),
                in.baseline().usesNodePasswords());
        return new Check(id(), title() + " " + name, pc.passed() ? Verdict.PASS : Verdict.INVALID, pc.reasons(),
                pc.evidence());
    }
}
