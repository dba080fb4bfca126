package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import java.util.List;

/** The verdict and every check that led to it. */
public record GateResult(String node, Verdict verdict, List<Check> checks) {
    public GateResult {
        checks = List.copyOf(checks);
    }

    /** Why the verdict is not PASS: the reasons of the checks that did not pass (not those that were not run). */
    public List<String> reasons() {
        return checks.stream().filter(c -> c.outcome() != Verdict.PASS && c.outcome() != Verdict.NOT_CHECKED)
                .flatMap(c -> c.reasons().stream().map(r -> "(" + c.id() + ") " + r)).toList();
    }

    /** The checks this run did not make because their input was not given ("host", "fleet"), in order. */
    public List<String> notChecked() {
        return Check.notCheckedIds(checks);
    }
}
