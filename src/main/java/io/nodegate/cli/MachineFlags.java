package io.nodegate.cli;

import io.nodegate.InputException;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.lifecycle.gate.MachineSource;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.source.rancher.RancherMachines;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * --machine-context / --machine-kubeconfig: Rancher's management ("local") cluster, where a Rancher custom cluster's
 * nodes are Cluster API Machines. The gate checks (and with --annotate annotates) the Node's Machine there; remove
 * deletes the Machine instead of the Node, so Rancher's own cascade runs.
 */
public final class MachineFlags {

    @Option(names = "--machine-context", paramLabel = "CONTEXT",
            description = "Rancher's management (local) cluster, a context of the same kubeconfig: check the Node's "
                    + "Cluster API Machine there. Without it (or --machine-kubeconfig) the machine check says "
                    + "'not checked'.")
    String context;

    @Option(names = "--machine-kubeconfig", paramLabel = "FILE",
            description = "Rancher's management cluster's kubeconfig (its current context, or --machine-context).")
    Path kubeconfig;

    @Option(names = "--machine-cluster", paramLabel = "NAME",
            description = "The downstream cluster's name in Rancher (its provisioning.cattle.io/v1 Cluster). Default: "
                    + "the Node's plan.cattle.io/cluster-name label (Rancher 2.15+).")
    String cluster;

    @Option(names = "--machine-namespace", paramLabel = "NAMESPACE", defaultValue = RancherMachines.DEFAULT_NAMESPACE,
            description = "The Fleet workspace namespace of that Cluster and its Machines (default: ${DEFAULT-VALUE}).")
    String namespace = RancherMachines.DEFAULT_NAMESPACE;

    boolean given() {
        return context != null || kubeconfig != null;
    }

    /**
     * The management cluster, connected; null when neither flag was given. Close its connection when done
     * ({@link #close(MachineSource)}).
     *
     * @param home the command's own connection flags: --machine-context alone is a context of its kubeconfig
     */
    MachineSource open(LiveOptions home) {
        if (!given()) {
            if (cluster != null) {
                throw new InputException("--machine-cluster " + cluster + " needs --machine-context or"
                        + " --machine-kubeconfig (Rancher's management cluster)");
            }
            return null;
        }
        if (kubeconfig == null && context != null && context.equals(home.context)) {
            throw new InputException("--machine-context " + context + " is the cluster being gated (--context): give"
                    + " Rancher's management (local) cluster");
        }
        requireName("--machine-namespace", namespace);
        if (cluster != null) {
            requireName("--machine-cluster", cluster);
        }
        String what = context != null ? "--machine-context " + context : "--machine-kubeconfig " + kubeconfig;
        KubeConnection connection = KubeConnection.open(kubeconfig != null ? kubeconfig : home.kubeconfig, context,
                home.requestTimeout, home.lastAsked);
        return new MachineSource(new ApiReader(connection), namespace, cluster, what);
    }

    static void close(MachineSource source) {
        if (source != null) {
            source.api().connection().close();
        }
    }

    private static void requireName(String flag, String value) {
        if (value.isBlank() || value.length() > 63 || !value.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
            throw new InputException(flag + " '" + value + "' is not a valid name (lower-case letters, digits and"
                    + " '-', at most 63)");
        }
    }
}
