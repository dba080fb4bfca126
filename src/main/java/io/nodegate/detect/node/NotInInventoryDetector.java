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
import java.util.List;

/**
 * NG112: a Node the declared inventory ({@link NodeInventory}, ConfigMap nodegate-system/nodegate-inventory) does
 * not place: no declared host has its identities, they are declared for a host of another name (a host that came
 * back renamed), or only an identity another Node or an image shares matches (cloned VMs: a shared ID is never
 * enough). A host that registers unannounced is exactly the one nobody configured (seed 000: new-01..03). Without a
 * declared inventory nothing is compared.
 */
public final class NotInInventoryDetector implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG112;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        NodeInventory inventory = state.inventory();
        if (inventory == null) {
            return List.of();
        }
        NodeInventory.Placer placer = inventory.placer(state.nodes());
        List<Finding> findings = new ArrayList<>();
        for (NodeInfo node : state.nodes()) {
            NodeInventory.Judgement j = placer.judge(node);
            if (j.declared()) {
                continue;
            }
            String message = node.name() + " is not in the declared inventory (" + inventory.hosts().size()
                    + " host(s)): " + j.reason() + (node.unschedulable() ? "; it is cordoned" : "; it is not cordoned");
            Evidence evidence = Evidence.of()
                    .put("standing", j.standing().name())
                    .put("declaredHost", j.host() == null ? null : j.host().name())
                    .put("systemUUID", node.systemInfo().systemUuid())
                    .put("machineID", node.systemInfo().machineId())
                    .put("internalIPs", node.internalIps())
                    .time("created", node.created())
                    .put("unschedulable", node.unschedulable());
            String hint = j.standing() == NodeInventory.Standing.OTHER_NAME
                    ? "Host " + j.host().name() + " registered as " + node.name() + ": find out who renamed it. If the "
                    + "new name is meant, change its entry in the inventory; then 'nodegate accept " + node.name() + "'."
                    : "Cordon it until someone claims the host (kubectl cordon " + node.name() + "). If it is "
                    + "expected, declare it in the inventory by systemUUID and machineID (nodegate inventory init "
                    + "prints today's Nodes), then 'nodegate accept " + node.name() + "'.";
            findings.add(new Finding(code(), Severity.WARNING, List.of(node.name()), message, evidence.build(), hint));
        }
        return findings;
    }
}
