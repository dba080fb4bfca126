package io.nodegate.audit;

import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;

import java.time.Instant;
import java.util.List;

/** What `nodegate audit` found: node rows, findings sorted by severity (worst first) then code, and notes. */
public record AuditReport(Instant now, String source, List<NodeRow> nodes, List<Finding> findings,
                          List<String> notes) {

    public AuditReport {
        nodes = List.copyOf(nodes);
        findings = List.copyOf(findings);
        notes = notes == null ? List.of() : List.copyOf(notes);
    }

    public AuditReport withNote(String note) {
        List<String> more = new java.util.ArrayList<>(notes);
        more.add(note);
        return new AuditReport(now, source, nodes, findings, more);
    }

    /** True when a finding is at warning or above: the audit then exits 1. */
    public boolean hasWarnings() {
        return findings.stream().anyMatch(f -> f.severity().atLeast(Severity.WARNING));
    }
}
