package io.nodegate.cli;

import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;

import java.util.List;

/** Exit codes shared by every command, so scripts can branch on them. */
public final class ExitCodes {
    /** Nothing at warning or above; for gate: PASS. */
    public static final int OK = 0;
    /** A finding at warning or above. */
    public static final int FINDINGS = 1;
    /** Usage or input error: bad flag, unreadable or malformed file. */
    public static final int USAGE = 2;
    /** Collection failed (API/etcd error, timeout, unparsable answer); for gate: INVALID. */
    public static final int COLLECTION = 3;
    /** gate: HOLD, a human must decide. */
    public static final int HOLD = 4;
    /** gate: FAIL, must not be deleted. */
    public static final int FAIL = 5;

    private ExitCodes() {
    }

    /** The report commands' rule: {@link #FINDINGS} when any finding is at warning or above, else {@link #OK}. */
    public static int of(List<Finding> findings) {
        return findings.stream().anyMatch(f -> f.severity().atLeast(Severity.WARNING)) ? FINDINGS : OK;
    }
}
