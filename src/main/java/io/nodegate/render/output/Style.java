package io.nodegate.render.output;

import io.nodegate.detect.Severity;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * ANSI colour, or plain text when colour is off (NO_COLOR, not a terminal, not a table).
 *
 * <p>A {@link #marked()} style writes a random mark where the escape character of its codes goes, so that the
 * table formats can escape every control character the text holds (names and labels from a cluster are data, and
 * may carry terminal escape sequences) and only then turn the marks into the real codes ({@link #finish}). A name
 * cannot hold the mark: it is drawn anew for each output.
 */
public record Style(boolean color, String mark) {

    public static final Style PLAIN = new Style(false);

    private static final String ESC = "\u001b";
    private static final String RESET = "[0m";
    private static final SecureRandom RANDOM = new SecureRandom();

    public Style(boolean color) {
        this(color, null);
    }

    /** Colour whose codes stay marks until {@link #finish}. */
    public static Style marked() {
        byte[] nonce = new byte[12];
        RANDOM.nextBytes(nonce);
        return new Style(true, "\uE000" + HexFormat.of().formatHex(nonce) + "\uE000");
    }

    public String bold(String s) {
        return wrap("[1m", s);
    }

    public String dim(String s) {
        return wrap("[2m", s);
    }

    public String severity(Severity severity, String s) {
        return switch (severity) {
            case CRITICAL -> wrap("[1;31m", s);
            case WARNING -> wrap("[33m", s);
            case INFO -> wrap("[36m", s);
        };
    }

    /** The text with this style's marks turned into the escape character of its codes. */
    public String finish(String text) {
        return mark == null ? text : text.replace(mark, ESC);
    }

    private String wrap(String code, String s) {
        String esc = mark == null ? ESC : mark;
        return color ? esc + code + s + esc + RESET : s;
    }
}
