package io.nodegate;

/**
 * Every exit code nodegate ends with, in one place, so scripts can branch on them. The codes are documented in
 * README ("Exit codes") and in `nodegate --help`; there is no other code (an unexpected failure inside a command
 * is {@link #COLLECTION}: whatever the run saw cannot be trusted).
 */
public final class ExitCode {
    /** Nothing at warning or above; for gate and verify-gone: PASS. */
    public static final int OK = 0;
    /** A finding at warning or above. */
    public static final int FINDINGS = 1;
    /** Usage or input error: bad flag, unreadable or malformed file. Nothing was changed. */
    public static final int USAGE = 2;
    /** Collection failed (API/etcd error, timeout, unparsable answer) or an unexpected failure; for gate: INVALID. */
    public static final int COLLECTION = 3;
    /** gate: HOLD, a human must decide; remove: deleted but the cascade did not finish in time. */
    public static final int HOLD = 4;
    /** gate: FAIL, must not be deleted; remove/readmit: refused. */
    public static final int FAIL = 5;

    private ExitCode() {
    }

    /** The report commands' rule: {@link #FINDINGS} when anything is at warning or above, else {@link #OK}. */
    public static int forFindings(boolean anyAtWarningOrAbove) {
        return anyAtWarningOrAbove ? FINDINGS : OK;
    }
}
