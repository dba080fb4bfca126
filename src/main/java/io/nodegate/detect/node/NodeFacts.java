package io.nodegate.detect.node;

import io.nodegate.detect.Evidence;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Condition;
import io.nodegate.model.SecretMeta;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Taint;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Small readings of a Node shared by several detectors. */
final class NodeFacts {

    /** The taint the API server adds with spec.unschedulable; its timeAdded is the only record of cordon time. */
    static final String UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";
    /** Taints written by Kubernetes controllers themselves; they say nothing about what a human configured. */
    static final String CONTROLLER_TAINT_PREFIX = "node.kubernetes.io/";

    private NodeFacts() {
    }

    /** k3s/RKE2 keep node-password Secrets in kube-system only; a look-alike name elsewhere is someone else's. */
    static final String NODE_PASSWORD_NAMESPACE = "kube-system";

    static List<SecretMeta> nodePasswordSecrets(ClusterState state) {
        return state.nodePasswordSecrets().stream()
                .filter(s -> NODE_PASSWORD_NAMESPACE.equals(s.namespace()) && s.nodePasswordOwner().isPresent())
                .toList();
    }

    static Optional<Instant> cordonedSince(NodeInfo node) {
        return node.taints().stream()
                .filter(t -> UNSCHEDULABLE_TAINT.equals(t.key()) && t.timeAdded() != null)
                .map(Taint::timeAdded).min(Instant::compareTo);
    }

    static List<Taint> taintsWithKey(NodeInfo node, String key) {
        return node.taints().stream().filter(t -> key.equals(t.key())).toList();
    }

    /** Taints as evidence: "key:effect" with the time added. */
    static List<Map<String, Object>> taintEvidence(List<Taint> taints) {
        return taints.stream().map(t -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("taint", t.toString());
            m.put("timeAdded", t.timeAdded() == null ? null : t.timeAdded().toString());
            return m;
        }).toList();
    }

    /** What the Ready condition said, the start of every Ready finding's evidence. */
    static Evidence readyEvidence(Condition ready) {
        return Evidence.of()
                .put("readyReason", ready.reason())
                .put("readyMessage", ready.message())
                .time("readyLastTransitionTime", ready.lastTransitionTime())
                .time("lastHeartbeatTime", ready.lastHeartbeatTime());
    }

    static Duration age(Instant now, Instant since) {
        return since == null ? null : Duration.between(since, now);
    }

    /**
     * The agent config file that names the server this host joins, by distribution: k3s or RKE2 from the kubelet
     * version suffix (v1.34.3+rke2r3, v1.35.4+k3s1), else from the node-args annotation; both paths when unknown.
     */
    public static String agentConfig(NodeInfo node) {
        String kubelet = node.systemInfo() == null ? null : node.systemInfo().kubeletVersion();
        boolean rke2 = kubelet != null ? kubelet.contains("+rke2") : node.annotation("rke2.io/node-args") != null;
        boolean k3s = kubelet != null ? kubelet.contains("+k3s") : node.annotation("k3s.io/node-args") != null;
        if (rke2 == k3s) {
            return "/etc/rancher/rke2/config.yaml or /etc/rancher/k3s/config.yaml";
        }
        return rke2 ? "/etc/rancher/rke2/config.yaml" : "/etc/rancher/k3s/config.yaml";
    }
}
