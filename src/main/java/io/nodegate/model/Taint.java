package io.nodegate.model;

import java.time.Instant;

public record Taint(String key, String value, String effect, Instant timeAdded) {

    public static final String UNREACHABLE = "node.kubernetes.io/unreachable";
    public static final String NOT_READY = "node.kubernetes.io/not-ready";

    @Override
    public String toString() {
        return key + (value == null || value.isEmpty() ? "" : "=" + value) + ":" + effect;
    }
}
