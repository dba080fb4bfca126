package io.nodegate.model;

public record DaemonSetInfo(String namespace, String name, int desired, int current, int ready) {
}
