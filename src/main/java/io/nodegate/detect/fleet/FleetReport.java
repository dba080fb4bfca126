package io.nodegate.detect.fleet;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.nodegate.detect.Finding;

import java.time.Instant;
import java.util.List;

/**
 * What `nodegate fleet` found: the clusters read, the hosts seen as more than one Node (a row each), findings and
 * notes. Rendering is {@code io.nodegate.render.FleetRenderer}'s job; JSON/YAML follow the component order.
 */
@JsonPropertyOrder({"now", "clusters", "hosts", "findings", "notes"})
public record FleetReport(Instant now, List<ClusterSummary> clusters, List<Host> hosts, List<Finding> findings,
                          List<String> notes) {

    public FleetReport {
        clusters = List.copyOf(clusters);
        hosts = List.copyOf(hosts);
        findings = List.copyOf(findings);
        notes = List.copyOf(notes);
    }

    /**
     * @param nodeCount  how many Nodes were read; null when the cluster could not be read
     * @param tombstones how many tombstones the cluster holds; null when it has no tombstones ledger (or it was
     *                   not read, as for Rancher's downstream clusters, or could not be)
     * @param unreadable what could not be read and why (the whole cluster, or its tombstones); absent when all was
     */
    @JsonPropertyOrder({"name", "source", "server", "now", "nodeCount", "tombstones", "unreadable"})
    public record ClusterSummary(String name, String source, String server, Instant now, Integer nodeCount,
                                 Integer tombstones,
                                 @com.fasterxml.jackson.annotation.JsonInclude(
                                         com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                                 String unreadable) {

        /** A cluster that could not be read at all: nothing is known about its hosts. */
        public static ClusterSummary unreadable(String name, String source, String why) {
            return new ClusterSummary(name, source, null, null, null, null, why);
        }

        @com.fasterxml.jackson.annotation.JsonIgnore
        public boolean read() {
            return nodeCount != null;
        }
    }

    public static FleetReport of(Fleet fleet, List<FleetDetector> detectors, List<String> notes) {
        return of(fleet, detectors, notes, java.util.Map.of(), List.of());
    }

    /**
     * @param partlyUnread clusters read whose tombstones could not be read: name → why
     * @param unread       clusters that could not be read at all (listed after the others)
     */
    public static FleetReport of(Fleet fleet, List<FleetDetector> detectors, List<String> notes,
                                 java.util.Map<String, String> partlyUnread, List<ClusterSummary> unread) {
        List<ClusterSummary> clusters = new java.util.ArrayList<>(fleet.clusters().stream().map(v -> {
            var book = fleet.tombstones().get(v.name());
            Integer count = book == null || !book.present() ? null : book.items().size();
            return new ClusterSummary(v.name(), v.state().source(), v.state().server(), v.state().now(),
                    v.state().nodes().size(), count, partlyUnread.get(v.name()));
        }).toList());
        clusters.addAll(unread);
        List<Finding> findings = new java.util.ArrayList<>();
        detectors.forEach(d -> findings.addAll(d.detect(fleet)));
        findings.sort(Finding.ORDER);
        List<String> allNotes = new java.util.ArrayList<>(imageNotes(fleet.ledger()));
        allNotes.addAll(notes);
        return new FleetReport(fleet.now(), clusters, fleet.ledger().repeated(), findings, allNotes);
    }

    /**
     * One note per machineID that several systemUUIDs report: why Nodes sharing it are not one host (the same
     * judgement as audit's, which never joins Nodes by machineID), and the count that shows it is an image.
     */
    static List<String> imageNotes(HostLedger ledger) {
        return ledger.shared().images().stream().map(i -> "machineID " + i.machineId() + " is reported with "
                + i.systemUuids() + " different systemUUIDs (in " + String.join(", ", i.where()) + "): an image's or"
                + " cloned VM template's /etc/machine-id, not a host's; no Nodes are matched as one host by it").toList();
    }
}
