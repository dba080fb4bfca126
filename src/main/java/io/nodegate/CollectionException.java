package io.nodegate;

/**
 * A call to a cluster or etcd failed, timed out, was refused, or answered something unparsable. The whole
 * result is invalid: never catch this to report "0 found". Exit 3.
 */
public class CollectionException extends NodegateException {
    public CollectionException(String message) {
        super(ExitCode.COLLECTION, message);
    }

    public CollectionException(String message, Throwable cause) {
        super(ExitCode.COLLECTION, message, cause);
    }

    @Override
    public String userMessage() {
        return "collection failed: " + getMessage();
    }
}
