package io.nodegate.model.verdict;

import io.nodegate.ExitCode;

/** Gate outcome, ordered by precedence: evidence that cannot be trusted outranks everything. */
public enum Verdict {
    /**
     * A check that could not run because its input was not given (the fleet check without --fleet-context): shown
     * as "not checked", never counted as a pass, and never the verdict of a run (it ranks below PASS).
     */
    NOT_CHECKED(ExitCode.OK),
    PASS(ExitCode.OK), HOLD(ExitCode.HOLD), FAIL(ExitCode.FAIL), INVALID(ExitCode.COLLECTION);

    private final int exitCode;

    Verdict(int exitCode) {
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }

    int rank() {
        return switch (this) {
            case NOT_CHECKED -> -1;
            case PASS -> 0;
            case HOLD -> 1;
            case FAIL -> 2;
            case INVALID -> 3;
        };
    }

    public static Verdict worst(Verdict a, Verdict b) {
        return a.rank() >= b.rank() ? a : b;
    }
}
