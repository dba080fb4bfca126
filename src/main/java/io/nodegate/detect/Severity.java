package io.nodegate.detect;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;

public enum Severity {
    INFO, WARNING, CRITICAL;

    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean atLeast(Severity other) {
        return compareTo(other) >= 0;
    }
}
