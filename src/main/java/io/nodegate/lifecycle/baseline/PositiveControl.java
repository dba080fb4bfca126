package io.nodegate.lifecycle.baseline;

import io.nodegate.model.NodeInfo;
import io.nodegate.model.SecretMeta;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The positive control: a node that stays must be visible with its pods and (where the cluster uses them) its
 * node-password Secret. The queries that later prove a removed node's pods and Secret are gone are the same
 * queries; if they cannot find what must be there, an empty answer proves nothing. Baseline save refuses a control
 * that fails this, and the gate calls a run whose control fails it INVALID.
 *
 * @param reasons  empty when the control passes
 * @param evidence what was seen, in display order
 */
public record PositiveControl(List<String> reasons, Map<String, String> evidence) {

    public static PositiveControl check(String name, NodeInfo control, Integer podsFound, SecretMeta nodePassword,
                                        boolean clusterUsesNodePasswords) {
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("control", name);
        List<String> reasons = new ArrayList<>();
        if (control == null) {
            reasons.add("control node " + name + " not found: the run cannot see a node that must be there");
        } else {
            evid.put("ready", String.valueOf(control.readyStatus()));
            if (!control.isReady()) {
                reasons.add("control node " + name + " is not Ready (" + control.readyStatus() + ")");
            }
            evid.put("podsFound", String.valueOf(podsFound));
            if (podsFound == null || podsFound == 0) {
                reasons.add("the spec.nodeName pod query found no pod on control node " + name
                        + ": the query used to prove 'no pods left' cannot be trusted");
            }
            if (clusterUsesNodePasswords) {
                evid.put("nodePasswordSecret", nodePassword == null ? "NotFound" : nodePassword.name());
                if (nodePassword == null) {
                    reasons.add("node-password Secret of control node " + name
                            + " not found although the cluster uses them");
                }
            }
        }
        return new PositiveControl(List.copyOf(reasons), evid);
    }

    public boolean passed() {
        return reasons.isEmpty();
    }
}
