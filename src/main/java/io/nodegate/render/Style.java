package io.nodegate.render;

import io.nodegate.detect.Severity;

/** ANSI colour, or plain text when colour is off (NO_COLOR, not a terminal, not a table). */
public record Style(boolean color) {

    public static final Style PLAIN = new Style(false);

    private static final String RESET = "\u001b[0m";

    public String bold(String s) {
        return wrap("\u001b[1m", s);
    }

    public String dim(String s) {
        return wrap("\u001b[2m", s);
    }

    public String severity(Severity severity, String s) {
        return switch (severity) {
            case CRITICAL -> wrap("\u001b[1;31m", s);
            case WARNING -> wrap("\u001b[33m", s);
            case INFO -> wrap("\u001b[36m", s);
        };
    }

    private String wrap(String code, String s) {
        return color ? code + s + RESET : s;
    }
}
