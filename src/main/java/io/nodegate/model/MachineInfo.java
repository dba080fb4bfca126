package io.nodegate.model;

import java.time.Instant;
import java.util.Map;

/**
 * A Cluster API Machine ({@code cluster.x-k8s.io}) as Rancher's management cluster keeps one per node of a
 * provisioning-v2 (RKE2/k3s) cluster. Field names from kubernetes-sigs/cluster-api {@code api/v1beta1/machine_types.go}
 * (CAPI up to v1.10; {@code api/core/v1beta1} and {@code api/core/v1beta2} since v1.11):
 * {@code spec.clusterName}, {@code spec.infrastructureRef}, {@code spec.providerID}, {@code status.nodeRef},
 * {@code status.nodeInfo} (the Node's NodeSystemInfo, bootID included), {@code status.phase}, {@code status.conditions}.
 *
 * @param apiVersion         the version it was read in ({@code cluster.x-k8s.io/v1beta1})
 * @param clusterName        {@code spec.clusterName}: the CAPI Cluster, which Rancher names after the provisioning Cluster
 * @param infrastructureKind {@code spec.infrastructureRef.kind}: {@code CustomMachine} for a custom (registered) node
 * @param infrastructureGroup the API group of the infrastructureRef: from {@code apiVersion} (v1beta1) or
 *                           {@code apiGroup} (v1beta2); {@code rke.cattle.io} for CustomMachine
 * @param nodeRefName        {@code status.nodeRef.name}; null before the Node registered
 * @param nodeRefUid         {@code status.nodeRef.uid}; null when Cluster API does not record it: CAPI v1.11+ stores
 *                           {@code MachineNodeReference} (name only) and its v1beta1 conversion has no uid
 * @param bootId             {@code status.nodeInfo.bootID} as Cluster API last copied it from the Node
 * @param conditions         condition type to status ("NodeHealthy" to "Unknown"), as served in this version
 */
public record MachineInfo(String apiVersion, String namespace, String name, String uid, String resourceVersion,
                          Map<String, String> labels, Map<String, String> annotations, Instant deletionTimestamp,
                          String clusterName, String infrastructureKind, String infrastructureGroup,
                          String providerId, String nodeRefName, String nodeRefUid, String bootId, String phase,
                          Map<String, String> conditions) {

    /** cluster-api {@code api/v1beta1/common_types.go} ClusterNameLabel: set on Machines of a Cluster. */
    public static final String CLUSTER_NAME_LABEL = "cluster.x-k8s.io/cluster-name";
    /** rancher/rancher {@code pkg/controllers/capr/unmanaged/controller.go} UnmanagedMachineKind. */
    public static final String CUSTOM_MACHINE_KIND = "CustomMachine";
    /** rancher/rancher {@code pkg/capr/common.go} RKEAPIGroup: the group of CustomMachine and RKEBootstrap. */
    public static final String RKE_API_GROUP = "rke.cattle.io";

    /**
     * Labels Rancher's planner gives the downstream Node of a provisioning-v2 Machine, through the kubelet's
     * {@code node-label} arguments (rancher/rancher {@code pkg/capr/planner/config.go} addLabels):
     * {@code rke.cattle.io/machine} is the Machine's uid (pkg/capr/common.go MachineUIDLabel; since Rancher 2.6, and
     * how Rancher's machine-node-lookup controller finds the Node of a Machine), and since Rancher 2.15 the lifecycle
     * labels {@code plan.cattle.io/cluster-name}, {@code machine-kind} ({@code Machine}; {@code Node} on imported
     * clusters, which have no Machine) and {@code machine-name} (pkg/plan/api/plan.cattle.io/v1alpha1/common_types.go).
     */
    public static final String NODE_MACHINE_UID_LABEL = "rke.cattle.io/machine";
    public static final String NODE_CLUSTER_NAME_LABEL = "plan.cattle.io/cluster-name";
    public static final String NODE_MACHINE_KIND_LABEL = "plan.cattle.io/machine-kind";
    public static final String NODE_MACHINE_NAME_LABEL = "plan.cattle.io/machine-name";

    public MachineInfo {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        conditions = conditions == null ? Map.of() : Map.copyOf(conditions);
    }

    public String key() {
        return namespace + "/" + name;
    }

    public String clusterLabel() {
        return labels.get(CLUSTER_NAME_LABEL);
    }

    /** A node registered to a Rancher custom cluster (infrastructure CustomMachine in rke.cattle.io). */
    public boolean customMachine() {
        return CUSTOM_MACHINE_KIND.equals(infrastructureKind) && RKE_API_GROUP.equals(infrastructureGroup);
    }
}
