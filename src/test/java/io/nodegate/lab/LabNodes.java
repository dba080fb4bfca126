package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;

import java.util.List;

/** What the lab's tests read off a Node the real node lifecycle controller writes: Ready and the unreachable taints. */
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
}
