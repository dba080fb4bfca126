package io.nodegate.detect.controlplane;

import io.nodegate.model.ClusterState;

import java.util.Objects;

/**
 * What one API server (a kubeconfig context, a kubeconfig file, or a saved dump directory) said about the
 * cluster, under the name the user knows it by.
 */
public record NamedView(String name, ClusterState state) {
    public NamedView {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
    }
}
