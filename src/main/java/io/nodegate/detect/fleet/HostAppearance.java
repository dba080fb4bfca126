package io.nodegate.detect.fleet;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Tombstone;

import java.time.Instant;

/**
 * One Node object that stands for a host in one cluster: what that cluster says about it.
 *
 * @param cluster        the cluster's name (kubeconfig context, collection record, or Rancher display name)
 * @param node           the Node's name in that cluster
 * @param ready          Ready as that cluster records it: True, False, Unknown, or null without a Ready condition
 * @param leaseRenewTime the kube-node-lease Lease's renewTime (null: no Lease, or not read, as under --rancher)
 * @param created        the Node's creationTimestamp
 * @param bootId         status.nodeInfo.bootID
 * @param internalIp     the first InternalIP
 * @param systemUuid     systemUUID as reported (null when empty or all zeros)
 * @param machineId      machineID as reported (null when empty or all zeros)
 */
@JsonPropertyOrder({"cluster", "node", "ready", "leaseRenewTime", "created", "bootID", "internalIP", "systemUUID",
        "machineID", "unschedulable"})
public record HostAppearance(String cluster, String node, String ready, Instant leaseRenewTime, Instant created,
                             String bootId, String internalIp, String systemUuid, String machineId,
                             boolean unschedulable) {

    public static HostAppearance of(String cluster, NodeInfo node, LeaseInfo lease) {
        return new HostAppearance(cluster, node.name(), node.readyStatus(), lease == null ? null : lease.renewTime(),
                node.created(), node.systemInfo().bootId(),
                node.internalIps().isEmpty() ? null : node.internalIps().get(0),
                Tombstone.identity(node.systemInfo().systemUuid()), Tombstone.identity(node.systemInfo().machineId()),
                node.unschedulable());
    }

    public boolean isReady() {
        return "True".equals(ready);
    }

    @com.fasterxml.jackson.annotation.JsonProperty("bootID")
    public String bootId() {
        return bootId;
    }

    @com.fasterxml.jackson.annotation.JsonProperty("internalIP")
    public String internalIp() {
        return internalIp;
    }

    @com.fasterxml.jackson.annotation.JsonProperty("systemUUID")
    public String systemUuid() {
        return systemUuid;
    }

    @com.fasterxml.jackson.annotation.JsonProperty("machineID")
    public String machineId() {
        return machineId;
    }

    /** "cluster/node", how the findings name an appearance. */
    public String label() {
        return node + " in " + cluster;
    }
}
