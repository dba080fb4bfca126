package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInventory;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * NG113: a host the inventory declares has no Node: none under its name, and none its identities place on it under
 * another name. Either it was removed and the inventory not updated, or it never (re)joined. The Node list this
 * compares with is a whole LIST (a failed one aborts the run), so "no Node" here is the API's answer, not a guess.
 */
public final class InventoryHostMissingDetector implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG113;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        NodeInventory inventory = state.inventory();
        if (inventory == null) {
            return List.of();
        }
        Set<String> present = inventory.present(state.nodes());
        List<Finding> findings = new ArrayList<>();
        for (NodeInventory.Host h : inventory.hosts()) {
            if (present.contains(h.name())) {
                continue;
            }
            String message = "Host " + h.name() + " is declared in the inventory (" + h.identity()
                    + (h.internalIp() == null ? "" : ", InternalIP " + h.internalIp()) + ") and has no Node: none "
                    + "under its name, none with its identities";
            Evidence evidence = Evidence.of()
                    .put("host", h.name())
                    .put("systemUUID", h.systemUuid())
                    .put("machineID", h.machineId())
                    .put("roles", h.roles())
                    .put("internalIP", h.internalIp());
            findings.add(new Finding(code(), Severity.WARNING, List.of(h.name()), message, evidence.build(),
                    "If the host was removed on purpose, delete its entry (host." + h.name() + ") from the "
                            + "inventory; otherwise find out why it has not joined (its agent, its address).")
                    .withDiscriminator("inventory " + h.name()));
        }
        return findings;
    }
}
