package io.nodegate.model.verdict;

import java.util.List;
import java.util.Map;

/**
 * One gate check with what it saw. {@code reasons} say why it is not PASS (empty when it is); {@code evidence}
 * holds the values a person needs to judge it (renewTime, bootID…), in display order.
 */
public record Check(String id, String title, Verdict outcome, List<String> reasons, Map<String, String> evidence) {
    public Check {
        reasons = List.copyOf(reasons);
        evidence = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(evidence));
    }

    /**
     * A check that did not run because its input was not given ({@code why}: "no --fleet-context or
     * --fleet-kubeconfig given"): shown "not checked", never PASS, named in the run's summary, and never the verdict.
     */
    public static Check notChecked(String id, String title, String why) {
        return new Check(id, title, Verdict.NOT_CHECKED, List.of(why), Map.of());
    }

    /** The ids of the checks that were not run, in order (the summary line's "not checked: ..."). */
    public static List<String> notCheckedIds(List<Check> checks) {
        return checks.stream().filter(c -> c.outcome() == Verdict.NOT_CHECKED).map(Check::id).toList();
    }
}
