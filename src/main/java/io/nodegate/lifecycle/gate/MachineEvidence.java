package io.nodegate.lifecycle.gate;

import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.model.MachineInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.source.rancher.RancherMachines;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What Rancher's management cluster says about the gated Node's Machine.
 *
 * @param source                  how the management cluster was named, and its API server
 * @param namespace               where the Machines were listed ({@code fleet-default})
 * @param cluster                 the downstream cluster's name in Rancher
 * @param clusterFrom             where that name came from: --machine-cluster, or the Node's plan.cattle.io/cluster-name
 * @param provisioningClusterFound whether {@code provisioning.cattle.io/v1} Cluster namespace/cluster exists
 * @param managementId            its {@code status.clusterName} (the management cluster ID, {@code c-m-…}), or null
 * @param naming                  every Machine of the namespace whose {@code status.nodeRef.name} is the gated Node,
 *                                of any cluster (two clusters may well have a node of the same name)
 */
public record MachineEvidence(String source, String namespace, String cluster, String clusterFrom,
                              boolean provisioningClusterFound, String managementId, List<MachineInfo> naming) {

    public MachineEvidence {
        naming = List.copyOf(naming);
    }

    /** The Machines of the gated cluster that name the Node. */
    public List<MachineInfo> ofCluster() {
        return naming.stream().filter(m -> cluster.equals(m.clusterName()) || cluster.equals(m.clusterLabel())).toList();
    }

    /** Evidence, or the failure that makes the run INVALID. */
    public record Outcome(MachineEvidence evidence, String error) {
    }

    /**
     * Reads the provisioning Cluster and the namespace's Machines. A failed call is returned as the error (the run is
     * then INVALID); only a NotFound of the provisioning Cluster is an answer. Without --machine-cluster the name is
     * the Node's {@code plan.cattle.io/cluster-name} (Rancher 2.15+); a Node without it is an input error.
     */
    public static Outcome collect(MachineSource source, NodeInfo node) {
        return collect(source, node.name(), node.labels());
    }

    /** As {@link #collect(MachineSource, NodeInfo)}, for a Node known by its name and labels. */
    public static Outcome collect(MachineSource source, String node, Map<String, String> nodeLabels) {
        String cluster = source.cluster();
        String from = "--machine-cluster";
        if (cluster == null) {
            String label = nodeLabels.get(MachineInfo.NODE_CLUSTER_NAME_LABEL);
            if (label == null || label.isBlank()) {
                throw new InputException("--machine-cluster NAME is needed: Node " + node + " has no "
                        + MachineInfo.NODE_CLUSTER_NAME_LABEL + " label (Rancher sets it since 2.15) to tell which of"
                        + " Rancher's clusters it belongs to. NAME is the cluster's name in Rancher (kubectl get"
                        + " clusters.provisioning.cattle.io -n " + source.namespace() + ")");
            }
            cluster = label;
            from = "Node label " + MachineInfo.NODE_CLUSTER_NAME_LABEL;
        }
        String where = source.description() + " (" + source.api().server() + ")";
        try {
            Optional<Map<String, Object>> provisioning = RancherMachines.provisioningCluster(source.api().api(),
                    source.namespace(), cluster);
            List<MachineInfo> naming = RancherMachines.machines(source.api().api(), source.namespace()).stream()
                    .filter(m -> node.equals(m.nodeRefName())).toList();
            return new Outcome(new MachineEvidence(where, source.namespace(), cluster, from, provisioning.isPresent(),
                    provisioning.map(RancherMachines::managementId).orElse(null), naming), null);
        } catch (CollectionException e) {
            return new Outcome(null, "management cluster " + where + ": " + e.getMessage());
        }
    }
}
