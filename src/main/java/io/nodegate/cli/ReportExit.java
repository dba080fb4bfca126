package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;

import java.util.List;

/** The report commands' exit rule (audit, etcd, views, redundancy): 1 when any finding is at warning or above. */
final class ReportExit {
    private ReportExit() {
    }

    static int of(List<Finding> findings) {
        return ExitCode.forFindings(findings.stream().anyMatch(f -> f.severity().atLeast(Severity.WARNING)));
    }
}
