package io.nodegate.detect;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds a finding's evidence map from plain JSON values only (strings, numbers, booleans, lists, maps):
 * times become ISO-8601 strings and durations whole seconds, so any renderer can print them unchanged.
 */
public final class Evidence {

    private final Map<String, Object> values = new LinkedHashMap<>();

    public static Evidence of() {
        return new Evidence();
    }

    public Evidence put(String key, Object value) {
        if (value instanceof Instant i) {
            return time(key, i);
        }
        if (value instanceof Duration d) {
            return seconds(key, d);
        }
        values.put(key, value);
        return this;
    }

    /** An instant as ISO-8601 (UTC); null stays null so a missing time is visible. */
    public Evidence time(String key, Instant instant) {
        values.put(key, instant == null ? null : instant.toString());
        return this;
    }

    public Evidence seconds(String key, Duration duration) {
        values.put(key, duration == null ? null : duration.toSeconds());
        return this;
    }

    public Evidence list(String key, List<?> items) {
        values.put(key, List.copyOf(items));
        return this;
    }

    public Map<String, Object> build() {
        return values;
    }
}
