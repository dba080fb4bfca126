package io.nodegate.cli;

import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInfo;
import io.nodegate.source.kube.LiveSource;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * --fleet-context / --fleet-kubeconfig: the other clusters a lifecycle step looks at to see where the target's
 * host went (seed 000: hosts that looked shut down in cluster A were Ready in cluster B). Only their Nodes are read.
 */
public final class FleetFlags {

    @Option(names = "--fleet-context", paramLabel = "CONTEXT",
            description = "Another cluster (a context of the same kubeconfig) to look for the host in, by machineID "
                    + "and systemUUID; repeatable. Without any fleet flag the fleet check says 'not checked'.")
    List<String> contexts = new ArrayList<>();

    @Option(names = "--fleet-kubeconfig", paramLabel = "FILE",
            description = "Another cluster's kubeconfig (its current context) to look for the host in; repeatable.")
    List<Path> kubeconfigs = new ArrayList<>();

    /** The other clusters' Nodes, or the failure reading one of them. */
    public record Views(List<NamedView> views, String error) {
    }

    boolean given() {
        return !contexts.isEmpty() || !kubeconfigs.isEmpty();
    }

    /**
     * Reads every given cluster's Nodes; null when no fleet flag was given. A failed read is returned as the error,
     * so the step records an INVALID run rather than a partial look.
     *
     * @param home the step's own connection flags: --fleet-context contexts come from its kubeconfig
     */
    Views read(LiveOptions home, Clock clock) {
        if (!given()) {
            return null;
        }
        if (home.context != null && contexts.contains(home.context)) {
            throw new InputException("--fleet-context " + home.context + " is the cluster being gated (--context): "
                    + "give the other clusters");
        }
        List<NamedView> views = new ArrayList<>();
        List<String[]> targets = new ArrayList<>();
        contexts.forEach(c -> targets.add(new String[]{c, null}));
        kubeconfigs.forEach(k -> targets.add(new String[]{null, k.toString()}));
        for (String[] t : targets) {
            String what = t[0] != null ? "--fleet-context " + t[0] : "--fleet-kubeconfig " + t[1];
            Path kubeconfig = t[1] != null ? Path.of(t[1]) : home.kubeconfig;
            try (LiveSource live = LiveSource.open(kubeconfig, t[0], home.requestTimeout, home.lastAsked)) {
                List<NodeInfo> nodes = new ApiReader(live.api()).nodes();
                if (nodes.isEmpty()) {
                    // a cluster that lists no Node cannot show where a host went: "not there" would be unproven
                    return new Views(null, what + ": LIST nodes at " + live.connection().server() + " answered no "
                            + "Node at all, so it cannot show whether the host serves it (if that cluster really has "
                            + "none, leave it out)");
                }
                String name = t[0] != null ? t[0] : live.connection().context() != null ? live.connection().context()
                        : t[1];
                views.add(new NamedView(name, ClusterState.builder(clock.instant(), "live: " + what)
                        .context(name).server(live.connection().server()).nodes(nodes).build()));
            } catch (CollectionException e) {
                return new Views(null, what + ": " + e.getMessage());
            }
        }
        return new Views(views, null);
    }
}
