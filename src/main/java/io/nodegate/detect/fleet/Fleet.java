package io.nodegate.detect.fleet;

import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.model.Collected;
import io.nodegate.model.Tombstone;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the fleet detectors read: every cluster's snapshot under its name, the host ledger built from them, and the
 * tombstones each cluster holds (absent when that cluster has no tombstones ConfigMap, or it was not read).
 *
 * @param now the latest of the snapshots' clocks; ages in the table are computed against each cluster's own clock
 */
public record Fleet(Instant now, List<NamedView> clusters, HostLedger ledger, Map<String, Collected<Tombstone>> tombstones) {

    public Fleet {
        clusters = List.copyOf(clusters);
        tombstones = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tombstones));
    }

    public static Fleet of(List<NamedView> clusters, Map<String, Collected<Tombstone>> tombstones) {
        Instant now = clusters.stream().map(v -> v.state().now()).filter(Objects::nonNull)
                .max(Instant::compareTo).orElse(null);
        return new Fleet(now, clusters, HostLedger.of(clusters), tombstones);
    }
}
