package io.nodegate.watch.informer;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
    private static final Set<String> MOVES_WITH_A_HEARTBEAT_IN_A_CONDITION = Set.of("lastHeartbeatTime");

    private NodeHeartbeat() {
    }

    /**
     * True when two versions of one Node (plain JSON values) differ only in their conditions' lastHeartbeatTime,
     * resourceVersion, generation or managedFields, and both have the same conditions in the same order: when both
     * have a {@link #digest} and the two are equal.
     */
    static boolean onlyHeartbeat(Map<String, Object> before, Map<String, Object> after) {
        byte[] a = digest(before);
        return a != null && Arrays.equals(a, digest(after));
    }

    /**
     * A SHA-256 digest of everything in a Node's plain JSON that a heartbeat post leaves alone (all of it but the
     * fields named above), so that the watch can tell a heartbeat from a change without holding the previous
     * version's JSON beside its model. Maps are read in key order (JSON objects are unordered), lists in their order;
     * each value is written with its type and length, so different values never write the same bytes. Null for a
     * Node without metadata or status.conditions: its next version always counts as a change.
     */
    static byte[] digest(Map<String, Object> node) {
        if (!(node.get("status") instanceof Map<?, ?> status) || !(status.get("conditions") instanceof List<?>)
                || !(node.get("metadata") instanceof Map<?, ?>)) {
            return null;
        }
        MessageDigest sha = sha256();
        writeMap(sha, node, Set.of(), Level.NODE);
        return sha.digest();
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** Writes a map of any kind but a Node's top level (used for a Lease's metadata and spec), {@code ignored} left out. */
    static void writeOther(MessageDigest sha, Map<?, ?> map, Set<String> ignored) {
        writeMap(sha, map, ignored, Level.OTHER);
    }

    /** Where a map sits in the Node: which of its fields a heartbeat moves, and how its children are written. */
    private enum Level { NODE, METADATA, STATUS, CONDITION, OTHER }

    private static void writeMap(MessageDigest sha, Map<?, ?> map, Set<String> ignored, Level level) {
        sha.update((byte) '{');
        List<String> keys = new ArrayList<>(map.size());
        map.keySet().forEach(k -> keys.add(String.valueOf(k)));
        keys.sort(null);
        for (String key : keys) {
            if (ignored.contains(key)) {
                // left out: a heartbeat may move it, add it or drop it
                continue;
            }
            sha.update((byte) 'k');
            writeString(sha, key);
            Object v = map.get(key);
            if (level == Level.NODE && "metadata".equals(key) && v instanceof Map<?, ?> meta) {
                writeMap(sha, meta, MOVES_WITH_A_HEARTBEAT_IN_METADATA, Level.METADATA);
            } else if (level == Level.NODE && "status".equals(key) && v instanceof Map<?, ?> status) {
                writeMap(sha, status, Set.of(), Level.STATUS);
            } else if (level == Level.STATUS && "conditions".equals(key) && v instanceof List<?> conditions) {
                sha.update((byte) '[');
                writeLength(sha, conditions.size());
                for (Object condition : conditions) {
                    if (condition instanceof Map<?, ?> c) {
                        writeMap(sha, c, MOVES_WITH_A_HEARTBEAT_IN_A_CONDITION, Level.CONDITION);
                    } else {
                        write(sha, condition);
                    }
                }
            } else {
                write(sha, v);
            }
        }
        sha.update((byte) '}');
    }

    static void write(MessageDigest sha, Object value) {
        if (value instanceof Map<?, ?> map) {
            writeMap(sha, map, Set.of(), Level.OTHER);
        } else if (value instanceof List<?> list) {
            sha.update((byte) '[');
            writeLength(sha, list.size());
            list.forEach(item -> write(sha, item));
        } else if (value instanceof String text) {
            sha.update((byte) 's');
            writeString(sha, text);
        } else if (value == null) {
            sha.update((byte) 'z');
        } else {
            // numbers and booleans, with their type, as Objects.equals tells an Integer 1 from a Long 1
            sha.update((byte) 'o');
            writeString(sha, value.getClass().getName());
            writeString(sha, value.toString());
        }
    }

    static void writeString(MessageDigest sha, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        writeLength(sha, bytes.length);
        sha.update(bytes);
    }

    private static void writeLength(MessageDigest sha, int length) {
        sha.update(new byte[] {(byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length});
    }
}
