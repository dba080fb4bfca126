package io.nodegate;

/** The user's input is wrong: a malformed file, a bad flag value, an unknown context. Exit 2; nothing was changed. */
public class InputException extends NodegateException {
    public InputException(String message) {
        super(ExitCode.USAGE, message);
    }

    public InputException(String message, Throwable cause) {
        super(ExitCode.USAGE, message, cause);
    }
}
