package io.nodegate.lifecycle.gate;

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

    Check evaluate(GateInput in);

    /** PASS without reasons; otherwise {@code whenNotEmpty} with the reasons. */
    default Check result(Verdict whenNotEmpty, List<String> reasons, Map<String, String> evidence) {
        return new Check(id(), title(), reasons.isEmpty() ? Verdict.PASS : whenNotEmpty, reasons, evidence);
    }
}
