package io.nodegate.model;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which Nodes are part of an open hand-over (a NodeHandover without {@code spec.closed}), as far as this snapshot
 * read them. A cordon that a hand-over explains needs no other reason.
 *
 * @param read   whether the NodeHandovers were read: false for a saved dump and when the read failed (then nothing is
 *               known about hand-overs, and a check that needs them says so rather than treat it as "none")
 * @param byNode node name → the names of the open hand-overs it is a target of, sorted
 * @param why    when not read, why (for the report's notes); null when read
 */
public record OpenHandovers(boolean read, Map<String, List<String>> byNode, String why) {

    /** Nothing read: a saved dump, or a command that does not read hand-overs. */
    public static final OpenHandovers NOT_READ = new OpenHandovers(false, Map.of(),
            "NodeHandovers were not read (a saved dump holds none)");

    public OpenHandovers {
        TreeMap<String, List<String>> copy = new TreeMap<>();
        if (byNode != null) {
            byNode.forEach((node, names) -> copy.put(node, names.stream().sorted().toList()));
        }
        byNode = java.util.Collections.unmodifiableMap(copy);
    }

    /** Read, and these are the open ones. */
    public static OpenHandovers of(Map<String, List<String>> byNode) {
        return new OpenHandovers(true, byNode, null);
    }

    /** Not read, and why (a failed or refused read). */
    public static OpenHandovers unread(String why) {
        return new OpenHandovers(false, Map.of(), why);
    }

    /** The open hand-overs {@code node} is part of; empty when none or when not read. */
    public List<String> of(String node) {
        return byNode.getOrDefault(node, List.of());
    }
}
