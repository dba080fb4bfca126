package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import java.util.List;
import java.util.Map;

/**
 * One check of the gate, as a detector is one finding code: an id that records and output refer to, a title,
 * and a pure evaluation of (baseline, evidence now, request). {@link GateDecision#CHECKS} lists them in order;
 * the verdict is the worst outcome ({@link Verdict#worst}). Adding a check is one class and one line there.
 */
public interface GateCheck {

    /** Short, stable id used in records and output ("a", "control"…); never reused for another meaning. */
    String id();

    /** What the check shows when it passes, in words an operator reads ("not re-registered"). */
    String title();

    /**
     * Whether there is anything to judge. Most checks judge the target Node and do not apply when it is gone
     * (check "a" then says FAIL: NotFound). A check that does not apply is left out of the result.
     */
    default boolean appliesTo(GateInput in) {
        return in.evidence().target() != null;
    }

    /**
     * Why this run gave the check nothing to judge (its flag was not given), or null when its input is there. Then
     * the check is shown "not checked" with this reason ({@link Check#notChecked}) and {@link #evaluate} is not
     * called. A check that needs an input says so here, in one line: {@code return in.x() == null ? "no --x given:
     * ... was not checked" : null;}.
     */
    default String notGiven(GateInput in) {
        return null;
    }

    Check evaluate(GateInput in);

    /** PASS without reasons; otherwise {@code whenNotEmpty} with the reasons. */
    default Check result(Verdict whenNotEmpty, List<String> reasons, Map<String, String> evidence) {
        return new Check(id(), title(), reasons.isEmpty() ? Verdict.PASS : whenNotEmpty, reasons, evidence);
    }
}
