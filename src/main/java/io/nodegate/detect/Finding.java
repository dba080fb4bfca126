package io.nodegate.detect;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One coded observation. {@code code} is stable (NG1xx nodes, NG2xx control plane) and documented in
 * docs/findings.md; {@code evidence} holds the values the message was built from, so a reader can check it.
 */
@JsonPropertyOrder({"code", "name", "severity", "nodes", "message", "evidence", "hint"})
public record Finding(String code, String name, Severity severity, List<String> nodes, String message,
                      Map<String, Object> evidence, String hint) {

    /** Worst first, then by code, then by the first node so equal inputs print in equal order. */
    public static final Comparator<Finding> ORDER = Comparator
            .comparing(Finding::severity, Comparator.reverseOrder())
            .thenComparing(Finding::code)
            .thenComparing(f -> f.nodes().isEmpty() ? "" : f.nodes().get(0));

    public Finding {
        nodes = List.copyOf(nodes);
        evidence = evidence == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(evidence));
    }
}
