package io.nodegate.detect;

import com.fasterxml.jackson.annotation.JsonIgnore;
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
                      Map<String, Object> evidence, String hint, @JsonIgnore String discriminator) {

    /** Worst first, then by code, then by the first node so equal inputs print in equal order. */
    public static final Comparator<Finding> ORDER = Comparator
            .comparing(Finding::severity, Comparator.reverseOrder())
            .thenComparing(Finding::code)
            .thenComparing(f -> f.nodes().isEmpty() ? "" : f.nodes().get(0));

    public Finding {
        nodes = List.copyOf(nodes);
        evidence = evidence == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(evidence));
    }

    /** A finding whose code and nodes identify it (no discriminator). */
    public Finding(String code, String name, Severity severity, List<String> nodes, String message,
                   Map<String, Object> evidence, String hint) {
        this(code, name, severity, nodes, message, evidence, hint, null);
    }

    /** A finding of catalogue row {@code code}: its code and name are the row's. */
    public Finding(FindingCode code, Severity severity, List<String> nodes, String message,
                   Map<String, Object> evidence, String hint) {
        this(code.code(), code.title(), severity, nodes, message, evidence, hint, null);
    }

    /** A finding of catalogue row {@code code}, told apart from others of that code and nodes by {@code discriminator}. */
    public Finding(FindingCode code, Severity severity, List<String> nodes, String message,
                   Map<String, Object> evidence, String hint, String discriminator) {
        this(code.code(), code.title(), severity, nodes, message, evidence, hint, discriminator);
    }

    /**
     * This finding told apart from others with the same code and nodes by {@code what} (the IP two nodes share,
     * the Secret or Job it is about). Never an age or a time: those move between passes.
     */
    public Finding withDiscriminator(String what) {
        return new Finding(code, name, severity, nodes, message, evidence, hint, what);
    }

    /**
     * The finding's identity across passes: code, the nodes it names (sorted) and its discriminator. A finding
     * that persists has the same key on the next pass however its ages and message change, which is what lets
     * the watch post one Event per appearance and one NodegateResolved when it goes.
     */
    @JsonIgnore
    public String key() {
        return code + "|" + String.join(",", new java.util.TreeSet<>(nodes)) + "|"
                + (discriminator == null ? "" : discriminator);
    }
}
