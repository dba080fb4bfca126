package io.nodegate.source.bmc;

/**
 * Reading a BMC failed: the message says what, in words, without the BMC's URL (the reading carries it) and without
 * anything secret. Stays inside this package: {@link BmcSource} turns it into a failed reading.
 */
class BmcException extends RuntimeException {

    /** The answer was HTTP 404: the resource does not exist (the only answer that proves absence). */
    private final boolean notFound;

    BmcException(String message) {
        this(message, false, null);
    }

    BmcException(String message, Throwable cause) {
        this(message, false, cause);
    }

    BmcException(String message, boolean notFound, Throwable cause) {
        super(message, cause);
        this.notFound = notFound;
    }

    boolean notFound() {
        return notFound;
    }
}
