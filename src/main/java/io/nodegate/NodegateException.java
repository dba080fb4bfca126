package io.nodegate;

/**
 * The one exception base that ends a command with a message and an exit code ({@link ExitCode}). The CLI's single
 * handler prints {@code nodegate: <message>} and exits with {@link #exitCode()}. Subclasses name the common
 * cases: {@link InputException} (2), {@link CollectionException} (3), {@link RefusedException} (5).
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

    /** What the handler prints after "nodegate: ". */
    public String userMessage() {
        return getMessage();
    }
}
