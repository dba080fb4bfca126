package io.nodegate.source;

/**
 * A call to a cluster or etcd failed, timed out, was refused, or answered something unparsable. The whole
 * result is invalid: never catch this to report "0 found". Exit 3.
 */
public class CollectionException extends RuntimeException {
    public CollectionException(String message) {
        super(message);
    }

    public CollectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
