package io.nodegate.cli;

import io.nodegate.model.ClusterState;
import io.nodegate.source.kube.LastServerAsked;

/**
 * Turns a {@link ViewSpec} into a snapshot. Throws {@link io.nodegate.CollectionException} when the
 * server cannot be read and {@link io.nodegate.InputException} when the spec is wrong; a view that
 * cannot be read is never left out silently.
 */
@FunctionalInterface
public interface ViewLoader {
    ClusterState load(ViewSpec spec);

    /** The real sources, through {@link SourceOptions}: one live or offline load per view, without pods. */
    static ViewLoader sources(String now, java.time.Duration requestTimeout,
                              LastServerAsked lastAsked) {
        return spec -> {
            SourceOptions options = new SourceOptions();
            options.live.lastAsked = lastAsked;
            options.live.kubeconfig = spec.kubeconfig();
            options.live.context = spec.context();
            if (spec.offline()) {
                options.files.add(spec.files());
                // --now is an offline flag: a live read keeps the local clock
                options.now = now;
            }
            options.live.requestTimeout = requestTimeout;
            return options.load(false);
        };
    }
}
