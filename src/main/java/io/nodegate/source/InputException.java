package io.nodegate.source;

/** The user's input is wrong: a malformed file, a bad flag value, an unknown context. Exit 2. */
public class InputException extends RuntimeException {
    public InputException(String message) {
        super(message);
    }

    public InputException(String message, Throwable cause) {
        super(message, cause);
    }
}
