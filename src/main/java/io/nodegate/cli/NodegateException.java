package io.nodegate.cli;

/**
 * The one exception type that ends a command with a message and an exit code (see {@link ExitCodes}).
 * Anything below the CLI throws {@link io.nodegate.source.InputException} or
 * {@link io.nodegate.source.CollectionException}; those map to exit 2 and 3.
 */
public class NodegateException extends RuntimeException {
    private final int exitCode;

    public NodegateException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public NodegateException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
