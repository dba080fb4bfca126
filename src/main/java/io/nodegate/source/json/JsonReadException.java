package io.nodegate.source.json;

import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.JacksonIOException;

/**
 * JSON that could not be read completely: malformed, truncated, not the expected shape, or the stream underneath
 * failed ({@link #ioFailure()}: a timeout, a reset connection). The message names the input and, for syntax
 * errors, the line, column and byte offset. Whatever was handed to a consumer before this was thrown is not a
 * complete answer and must be discarded: the caller fails the whole read.
 */
public final class JsonReadException extends RuntimeException {

    private final boolean ioFailure;

    public JsonReadException(String message, boolean ioFailure) {
        super(message);
        this.ioFailure = ioFailure;
    }

    private JsonReadException(String message, boolean ioFailure, Throwable cause) {
        super(message, cause);
        this.ioFailure = ioFailure;
    }

    /** True when reading the stream failed (the I/O exception is the cause), false for what the JSON said. */
    public boolean ioFailure() {
        return ioFailure;
    }

    static JsonReadException of(String where, JacksonException e) {
        if (e instanceof JacksonIOException io) {
            Throwable cause = io.getCause() == null ? io : io.getCause();
            return new JsonReadException(where + ": reading the answer failed: " + cause, true, cause);
        }
        // the parser's words without the input's text: an unrecognised token may be a Secret's value (ParseErrors)
        String detail = e.getOriginalMessage() == null ? "(no detail)"
                : ParseErrors.problem(e).split("; ")[0];
        String at = position(e.getLocation());
        boolean truncated = detail.contains("end-of-input");
        return new JsonReadException(where + ": " + (truncated ? "truncated" : "malformed") + " JSON"
                + (at.isEmpty() ? "" : " " + at) + ": " + detail, false, e);
    }

    /** "at line L, column C (byte B)", or "" when the location is unknown. */
    static String position(TokenStreamLocation loc) {
        if (loc == null || loc.getLineNr() <= 0) {
            return "";
        }
        long offset = loc.getByteOffset() >= 0 ? loc.getByteOffset() : loc.getCharOffset();
        return "at line " + loc.getLineNr() + ", column " + loc.getColumnNr()
                + (offset >= 0 ? " (" + (loc.getByteOffset() >= 0 ? "byte " : "character ") + offset + ")" : "");
    }
}
