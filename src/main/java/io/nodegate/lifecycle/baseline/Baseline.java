package io.nodegate.lifecycle.baseline;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What the cluster looked like before any target was touched (BASELINE_TS). Every later step compares with
 * this file, never with absolute numbers. A person can read and diff it.
 *
 * @param etcdMembers null when no etcd source was given (then etcd membership was not recorded)
 * @param metallb     null when MetalLB's ServiceL2Status API is not served by the cluster
 */
public record Baseline(
        int format,
        Instant baselineTs,
        String server,
        String evidenceDir,
        String distribution,
        String clusterKubeletVersion,
        ControlNode control,
        List<Target> targets,
        List<OtherNode> nonTargets,
        List<EtcdMemberRef> etcdMembers,
        List<DaemonSetCount> daemonSets,
        Map<String, Long> gpuTotals,
        List<String> metallb,
        List<SecretRef> nodePasswordSecrets) {

    public static final int FORMAT = 1;

    public Baseline {
        targets = List.copyOf(targets);
        nonTargets = List.copyOf(nonTargets);
        etcdMembers = etcdMembers == null ? null : List.copyOf(etcdMembers);
        daemonSets = List.copyOf(daemonSets);
        gpuTotals = Map.copyOf(gpuTotals);
        metallb = metallb == null ? null : List.copyOf(metallb);
        nodePasswordSecrets = List.copyOf(nodePasswordSecrets);
    }

    public Target target(String name) {
        return targets.stream().filter(t -> t.name().equals(name)).findFirst().orElse(null);
    }

    public boolean usesNodePasswords() {
        return !nodePasswordSecrets.isEmpty();
    }

    /** One node that is to be removed, as it was at BASELINE_TS. */
    public record Target(
            String name, String uid, String resourceVersion, Instant created,
            String bootId, String systemUuid, String machineId, String kernelVersion, String kubeletVersion,
            List<String> internalIps, Map<String, String> roleLabels, List<String> taints, boolean unschedulable,
            String nodeArgs, Map<String, Long> gpuCapacity,
            Instant leaseRenewTime, String ready, Instant readyLastHeartbeat,
            String nodePasswordSecret) {
        public Target {
            internalIps = List.copyOf(internalIps);
            roleLabels = Map.copyOf(roleLabels);
            taints = List.copyOf(taints);
            gpuCapacity = Map.copyOf(gpuCapacity);
        }
    }

    /** A node that stays: its Ready and cordon must not move while targets are removed. */
    public record OtherNode(String name, String uid, Instant created, String ready, boolean unschedulable) {
    }

    /** The positive control: a node that stays, whose identity the self-tests of verify-gone use. */
    public record ControlNode(String name, String uid, String systemUuid, String machineId, List<String> internalIps,
                              int pods, String nodePasswordSecret) {
        public ControlNode {
            internalIps = List.copyOf(internalIps);
        }
    }

    public record EtcdMemberRef(String id, String name, List<String> peerUrls) {
        public EtcdMemberRef {
            peerUrls = List.copyOf(peerUrls);
        }
    }

    /** A DaemonSet's desired count and which targets ran one of its pods (their share of it). */
    public record DaemonSetCount(String namespace, String name, int desired, List<String> onTargets) {
        public DaemonSetCount {
            onTargets = List.copyOf(onTargets);
        }

        public String key() {
            return namespace + "/" + name;
        }
    }

    public record SecretRef(String name, Instant created, String type) {
    }
}
