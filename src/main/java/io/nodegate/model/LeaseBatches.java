package io.nodegate.model;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The batch rule shared by NG103 (batch silence) and the gate: silent node Leases sorted by their last renewTime
 * form one batch while each stopped within {@code window} of the previous one (chaining). Several hosts going quiet
 * together means someone acted on all of them at that moment: a shutdown, or an agent restarted against another
 * cluster. From this cluster the two look the same.
 */
public final class LeaseBatches {

    /** One silent Lease: its node and when it last renewed. */
    public record Stop(String node, Instant renewTime) {
    }

    private LeaseBatches() {
    }

    /** Every group of stops, in time order; groups of one are included (callers decide what a batch is). */
    public static List<List<Stop>> group(List<Stop> stops, Duration window) {
        List<Stop> sorted = new ArrayList<>(stops);
        sorted.sort(Comparator.comparing(Stop::renewTime).thenComparing(Stop::node));
        List<List<Stop>> groups = new ArrayList<>();
        List<Stop> current = new ArrayList<>();
        for (Stop s : sorted) {
            if (!current.isEmpty()
                    && Duration.between(current.get(current.size() - 1).renewTime(), s.renewTime()).compareTo(window) > 0) {
                groups.add(List.copyOf(current));
                current = new ArrayList<>();
            }
            current.add(s);
        }
        if (!current.isEmpty()) {
            groups.add(List.copyOf(current));
        }
        return groups;
    }

    /** The group that contains {@code node}'s stop; empty when the node is not among the stops. */
    public static List<Stop> batchOf(String node, List<Stop> stops, Duration window) {
        return group(stops, window).stream().filter(g -> g.stream().anyMatch(s -> s.node().equals(node)))
                .findFirst().orElse(List.of());
    }
}
