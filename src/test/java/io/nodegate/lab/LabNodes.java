package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;

import java.util.List;

/**
 * Nodes in the lab's tests: what they read off a Node the real node lifecycle controller writes (Ready and the
 * unreachable taints), and the manifests they create or dry-run with kubectl.
 */
final class LabNodes {

    private LabNodes() {
    }

    /** The Ready condition's status ("True", "False", "Unknown"), or null when the Node has none. */
    static String ready(Node n) {
        return n.getStatus() == null || n.getStatus().getConditions() == null ? null : n.getStatus().getConditions()
                .stream().filter(c -> "Ready".equals(c.getType())).map(NodeCondition::getStatus).findFirst()
                .orElse(null);
    }

    /** True when the Node carries the controller's node.kubernetes.io/unreachable taint with {@code effect}. */
    static boolean unreachable(Node n, String effect) {
        List<Taint> taints = n.getSpec().getTaints();
        return taints != null && taints.stream()
                .anyMatch(t -> "node.kubernetes.io/unreachable".equals(t.getKey()) && effect.equals(t.getEffect()));
    }

    /** A bare Node: a name and the hostname label, nothing a policy would match on. */
    static String probe(String name) {
        return """
                apiVersion: v1
                kind: Node
                metadata:
                  name: %s
                  labels: {kubernetes.io/hostname: %s}
                """.formatted(name, name);
    }

    /**
     * A Node as a kubelet registers it, with its identities in the status (the node strategy keeps status on create,
     * so admission sees them).
     */
    static String registering(String name, String systemUuid, String machineId) {
        return probe(name) + """
                status:
                  nodeInfo: {systemUUID: "%s", machineID: "%s", bootID: b, kernelVersion: k, osImage: o,
                    containerRuntimeVersion: c, kubeletVersion: v1.34.4, kubeProxyVersion: "", operatingSystem: linux,
                    architecture: amd64}
                """.formatted(systemUuid, machineId);
    }
}
