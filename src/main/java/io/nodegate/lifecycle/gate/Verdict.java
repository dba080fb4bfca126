package io.nodegate.lifecycle.gate;

import io.nodegate.ExitCode;

/** Gate outcome, ordered by precedence: evidence that cannot be trusted outranks everything. */
public enum Verdict {
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
