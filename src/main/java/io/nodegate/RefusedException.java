package io.nodegate;

/**
 * A destructive step refused to act on what it saw (no fresh PASS gate record, the Node changed since the gate,
 * already gone...). Exit 5; nothing was deleted unless the message says so.
 */
public class RefusedException extends NodegateException {
    public RefusedException(String message) {
        super(ExitCode.FAIL, message);
    }
}
