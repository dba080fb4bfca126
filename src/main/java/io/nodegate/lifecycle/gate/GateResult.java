package io.nodegate.lifecycle.gate;

import java.util.List;

/** The verdict and every check that led to it. */
public record GateResult(String node, Verdict verdict, List<Check> checks) {
    public GateResult {
        checks = List.copyOf(checks);
    }

    public List<String> reasons() {
        return checks.stream().filter(c -> c.outcome() != Verdict.PASS)
                .flatMap(c -> c.reasons().stream().map(r -> "(" + c.id() + ") " + r)).toList();
    }
}
