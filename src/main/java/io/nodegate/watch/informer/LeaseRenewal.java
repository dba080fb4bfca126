package io.nodegate.watch.informer;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Tells a Lease heartbeat from a Lease change. A kubelet renews its kube-node-lease Lease every 10 s and the control
 * plane components renew theirs in kube-system every 2 s: at 5,000 nodes that is 500 updates a second, each moving
 * only {@code spec.renewTime} (and with it resourceVersion and managedFields). Such a renewal changes no finding by
 * itself: what it changes is an age, and ages move with the clock anyway, so the watch's every-interval pass sees
 * them. Treating each renewal as a change made the debounced pass run back to back (every ~1.6 s at 5,000 nodes).
 *
 * <p>Everything else is a change: another holder, a new or removed Lease, a different duration, a renewTime that
 * appears or disappears (the model notes a Lease without one), new labels, a deletionTimestamp, any field this
 * version of nodegate does not know.
 */
final class LeaseRenewal {

    /**
     * generation counts changes of the spec, and renewTime is in the spec: a server that keeps a generation for
     * Leases moves it with every renewal (the test API server does; kube-apiserver's Lease strategy keeps none).
     */
    private static final Set<String> MOVES_WITH_A_RENEWAL_IN_METADATA = Set.of("resourceVersion", "managedFields",
            "generation");
    private static final Set<String> MOVES_WITH_A_RENEWAL_IN_SPEC = Set.of("renewTime");

    private LeaseRenewal() {
    }

    /**
     * True when two versions of one Lease (plain JSON values) differ only in spec.renewTime, resourceVersion,
     * generation or managedFields, and both have a renewTime.
     */
    static boolean onlyRenewed(Map<String, Object> before, Map<String, Object> after) {
        if (!(before.get("spec") instanceof Map<?, ?> specBefore) || !(after.get("spec") instanceof Map<?, ?> specAfter)
                || !(specBefore.get("renewTime") instanceof String) || !(specAfter.get("renewTime") instanceof String)
                || !(before.get("metadata") instanceof Map<?, ?> metaBefore)
                || !(after.get("metadata") instanceof Map<?, ?> metaAfter)) {
            return false;
        }
        // the same fields on both sides (checked without copying key sets: this runs for every Lease event)
        if (before.size() != after.size()) {
            return false;
        }
        for (String field : before.keySet()) {
            boolean same = switch (field) {
                case "metadata" ->
                        HeartbeatFields.equalApartFrom(metaBefore, metaAfter, MOVES_WITH_A_RENEWAL_IN_METADATA);
                case "spec" -> HeartbeatFields.equalApartFrom(specBefore, specAfter, MOVES_WITH_A_RENEWAL_IN_SPEC);
                default -> after.containsKey(field) && Objects.equals(before.get(field), after.get(field));
            };
            if (!same) {
                return false;
            }
        }
        return true;
    }
}
