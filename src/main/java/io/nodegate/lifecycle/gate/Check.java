package io.nodegate.lifecycle.gate;

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
}
