package io.nodegate.watch.informer;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** The comparison {@link LeaseRenewal} and {@link NodeHeartbeat} make of two versions of an object's plain JSON. */
final class HeartbeatFields {

    private HeartbeatFields() {
    }

    /**
     * True when {@code a} and {@code b} have the same fields with equal values, {@code ignored} fields apart (those
     * may differ, or be on one side only). Checked without copying key sets: this runs for every heartbeat event.
     */
    static boolean equalApartFrom(Map<?, ?> a, Map<?, ?> b, Set<String> ignored) {
        for (var e : a.entrySet()) {
            if (!ignored.contains(e.getKey())
                    && (!b.containsKey(e.getKey()) || !Objects.equals(e.getValue(), b.get(e.getKey())))) {
                return false;
            }
        }
        for (Object key : b.keySet()) {
            if (!ignored.contains(key) && !a.containsKey(key)) {
                return false;
            }
        }
        return true;
    }
}
