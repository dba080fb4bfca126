package io.nodegate.handover;

import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;

import java.util.List;

/** One check of one step of a hand-over, about one target node or (node null) the whole hand-over. */
public record StepCheck(int step, String node, Check check) {

    public Verdict outcome() {
        return check.outcome();
    }

    /** The worst outcome among checks (NOT_CHECKED never is), PASS when there are none. */
    public static Verdict worst(List<StepCheck> checks) {
        Verdict v = Verdict.PASS;
        for (StepCheck c : checks) {
            v = Verdict.worst(v, c.outcome());
        }
        return v;
    }
}
