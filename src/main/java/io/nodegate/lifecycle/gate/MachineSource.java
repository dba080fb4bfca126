package io.nodegate.lifecycle.gate;

import io.nodegate.source.kube.ApiReader;

/**
 * Where the gate and `remove` look for a Node's Cluster API Machine: Rancher's management ("local") cluster, given
 * with --machine-context or --machine-kubeconfig.
 *
 * @param api         reads (and, for --annotate and remove, writes) on the management cluster
 * @param namespace   the Fleet workspace namespace of the provisioning Cluster ({@code fleet-default})
 * @param cluster     the downstream cluster's name in Rancher (its provisioning.cattle.io/v1 Cluster, and the CAPI
 *                    Cluster of the same name); null to take it from the Node's {@code plan.cattle.io/cluster-name}
 * @param description how the user named it, for messages ("--machine-context rancher")
 */
public record MachineSource(ApiReader api, String namespace, String cluster, String description) {
}
