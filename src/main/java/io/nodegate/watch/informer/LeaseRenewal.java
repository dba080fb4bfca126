package io.nodegate.watch.informer;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
     * generation or managedFields, and both have a renewTime: when both have a {@link #digest} and the two are equal.
     */
    static boolean onlyRenewed(Map<String, Object> before, Map<String, Object> after) {
        byte[] a = digest(before);
        return a != null && Arrays.equals(a, digest(after));
    }

    /**
     * A SHA-256 digest of everything in a Lease's plain JSON that a renewal leaves alone (all of it but the fields
     * named above), so that the watch holds 32 bytes per Lease to tell a renewal from a change instead of the
     * Lease's plain JSON beside its model: at 20,000 nodes those maps were ~30 MB of a live set the renewals kept
     * touching (bench/RESULTS.md). Written as {@link NodeHeartbeat#digest} writes a Node (keys in order, each value
     * with its type and length). Null for a Lease without metadata, without spec or without a renewTime: its next
     * version always counts as a change.
     */
    static byte[] digest(Map<String, Object> lease) {
        if (!(lease.get("spec") instanceof Map<?, ?> spec) || !(spec.get("renewTime") instanceof String)
                || !(lease.get("metadata") instanceof Map<?, ?> meta)) {
            return null;
        }
        MessageDigest sha = NodeHeartbeat.sha256();
        List<String> keys = new ArrayList<>(lease.keySet());
        keys.sort(null);
        sha.update((byte) '{');
        for (String key : keys) {
            sha.update((byte) 'k');
            NodeHeartbeat.writeString(sha, key);
            switch (key) {
                case "metadata" -> NodeHeartbeat.writeOther(sha, meta, MOVES_WITH_A_RENEWAL_IN_METADATA);
                case "spec" -> NodeHeartbeat.writeOther(sha, spec, MOVES_WITH_A_RENEWAL_IN_SPEC);
                default -> NodeHeartbeat.write(sha, lease.get(key));
            }
        }
        sha.update((byte) '}');
        return sha.digest();
    }
}
