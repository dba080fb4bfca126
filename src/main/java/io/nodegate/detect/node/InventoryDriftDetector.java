package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeInventory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * NG114: a declared host has its Node, and the Node is not what the inventory says: another name, other roles or
 * another InternalIP. A host that comes back under a new name loses its role labels (seed 000: gpu-a02 as new-01,
 * no role, uncordoned); one whose kubelet picked another NIC registers another address; a role label removed by hand
 * sends the host's workloads elsewhere. Each is a change somebody made, or a host that is not the one declared.
 *
 * <p>Only a Node the inventory places on the host is compared ({@link NodeInventory.Placer}): a shared systemUUID or
 * an image's machineID never places a Node alone, so a clone is never "the host, drifted" (NG112 reports it). When a
 * Node under the declared name is placed on the host, that Node is compared; a Node of another name is compared only
 * when it is the one Node placed on the host (two clones of one host under new names decide nothing).
 */
public final class InventoryDriftDetector implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG114;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        NodeInventory inventory = state.inventory();
        if (inventory == null) {
            return List.of();
        }
        NodeInventory.Placer placer = inventory.placer(state.nodes());
        Map<String, NodeInfo> sameName = new LinkedHashMap<>();
        Map<String, List<NodeInfo>> otherName = new LinkedHashMap<>();
        for (NodeInfo node : state.nodes()) {
            NodeInventory.Judgement j = placer.judge(node);
            if (j.standing() == NodeInventory.Standing.DECLARED) {
                sameName.put(j.host().name(), node);
            } else if (j.standing() == NodeInventory.Standing.OTHER_NAME) {
                otherName.computeIfAbsent(j.host().name(), k -> new ArrayList<>()).add(node);
            }
        }
        List<Finding> findings = new ArrayList<>();
        for (NodeInventory.Host h : inventory.hosts()) {
            NodeInfo node = sameName.get(h.name());
            List<String> drift = new ArrayList<>();
            if (node == null) {
                List<NodeInfo> others = otherName.getOrDefault(h.name(), List.of());
                if (others.size() != 1) {
                    continue;
                }
                node = others.get(0);
                drift.add("name " + node.name() + ", declared " + h.name());
            }
            drift.addAll(NodeInventory.drift(h, node));
            if (drift.isEmpty()) {
                continue;
            }
            List<String> fields = new ArrayList<>();
            if (!node.name().equals(h.name())) {
                fields.add("name");
            }
            if (!List.copyOf(node.roles()).equals(h.roles())) {
                fields.add("roles");
            }
            if (h.internalIp() != null && !node.internalIps().contains(h.internalIp())) {
                fields.add("internalIP");
            }
            Evidence evidence = Evidence.of()
                    .put("host", h.name())
                    .put("node", node.name())
                    .put("drifted", fields)
                    .put("declaredRoles", h.roles())
                    .put("roles", List.copyOf(node.roles()))
                    .put("declaredInternalIP", h.internalIp())
                    .put("internalIPs", node.internalIps())
                    .put("systemUUID", node.systemInfo().systemUuid())
                    .put("machineID", node.systemInfo().machineId());
            String message = "Host " + h.name() + " (" + h.identity() + ") is Node " + node.name()
                    + ", which differs from its inventory entry: " + String.join("; ", drift);
            String hint = "If the change was meant, update the entry host." + h.name() + " in the inventory (or "
                    + "'nodegate inventory init --apply --replace'); otherwise put the Node back"
                    + (fields.contains("roles") ? " (its role labels)" : "")
                    + (fields.contains("internalIP") ? " (the kubelet's --node-ip)" : "")
                    + (fields.contains("name") ? " and find out who renamed the host" : "") + ".";
            findings.add(new Finding(code(), Severity.WARNING, List.of(node.name()), message, evidence.build(), hint)
                    .withDiscriminator("inventory " + h.name()));
        }
        return findings;
    }
}
