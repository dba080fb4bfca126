package io.nodegate.watch.informer;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Tells a kubelet's status heartbeat from a Node change. With node Leases a kubelet still posts its Node's status
 * every {@code nodeStatusReportFrequency} (5 minutes by default) when nothing changed, and such a post moves only
 * each condition's {@code lastHeartbeatTime} (kubernetes pkg/kubelet/nodestatus/setters.go stamps it on every
 * condition, every update) with resourceVersion and managedFields: at 5,000 nodes ~17 updates a second. Like a Lease
 * renewal ({@link LeaseRenewal}) it changes no finding and no metric by itself: what it moves is an age, and the
 * every-interval pass sees ages. Treated as a change it ran the debounced pass back to back (measured at 5,000 nodes
 * with a post every 5 minutes: 124 passes in a 120 s run at --debounce 1s, +3.3 % of a core; bench/RESULTS.md).
 *
 * <p>Everything else is a change: a condition's status, reason, message or lastTransitionTime (a node going NotReady
 * moves those), a condition added, removed or reordered, addresses, capacity, nodeInfo (a reinstalled host's bootID),
 * labels, annotations, taints, unschedulable, a deletionTimestamp, any field this version of nodegate does not know.
 */
final class NodeHeartbeat {

    private static final Set<String> MOVES_WITH_A_HEARTBEAT_IN_METADATA = Set.of("resourceVersion", "managedFields",
            "generation");
    private static final Set<String> MOVES_WITH_A_HEARTBEAT_IN_STATUS = Set.of("conditions");
    private static final Set<String> MOVES_WITH_A_HEARTBEAT_IN_A_CONDITION = Set.of("lastHeartbeatTime");

    private NodeHeartbeat() {
    }

    /**
     * True when two versions of one Node (plain JSON values) differ only in their conditions' lastHeartbeatTime,
     * resourceVersion, generation or managedFields, and both have the same conditions in the same order.
     */
    static boolean onlyHeartbeat(Map<String, Object> before, Map<String, Object> after) {
        if (!(before.get("status") instanceof Map<?, ?> statusBefore)
                || !(after.get("status") instanceof Map<?, ?> statusAfter)
                || !(statusBefore.get("conditions") instanceof List<?> conditionsBefore)
                || !(statusAfter.get("conditions") instanceof List<?> conditionsAfter)
                || !(before.get("metadata") instanceof Map<?, ?> metaBefore)
                || !(after.get("metadata") instanceof Map<?, ?> metaAfter)
                || before.size() != after.size() || conditionsBefore.size() != conditionsAfter.size()) {
            return false;
        }
        for (int i = 0; i < conditionsBefore.size(); i++) {
            if (!(conditionsBefore.get(i) instanceof Map<?, ?> a) || !(conditionsAfter.get(i) instanceof Map<?, ?> b)
                    || !HeartbeatFields.equalApartFrom(a, b, MOVES_WITH_A_HEARTBEAT_IN_A_CONDITION)) {
                return false;
            }
        }
        for (String field : before.keySet()) {
            boolean same = switch (field) {
                case "metadata" ->
                        HeartbeatFields.equalApartFrom(metaBefore, metaAfter, MOVES_WITH_A_HEARTBEAT_IN_METADATA);
                case "status" ->
                        HeartbeatFields.equalApartFrom(statusBefore, statusAfter, MOVES_WITH_A_HEARTBEAT_IN_STATUS);
                default -> after.containsKey(field) && Objects.equals(before.get(field), after.get(field));
            };
            if (!same) {
                return false;
            }
        }
        return true;
    }
}
