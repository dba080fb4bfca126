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
     * @param tombstones how many tombstones the cluster holds; null when it has no tombstones ConfigMap (or it was
     *                   not read, as for Rancher's downstream clusters)
     */
    @JsonPropertyOrder({"name", "source", "server", "now", "nodeCount", "tombstones"})
    public record ClusterSummary(String name, String source, String server, Instant now, int nodeCount,
                                 Integer tombstones) {
    }

    public static FleetReport of(Fleet fleet, List<FleetDetector> detectors, List<String> notes) {
        List<ClusterSummary> clusters = fleet.clusters().stream().map(v -> {
            var book = fleet.tombstones().get(v.name());
            Integer count = book == null || !book.present() ? null : book.items().size();
            return new ClusterSummary(v.name(), v.state().source(), v.state().server(), v.state().now(),
                    v.state().nodes().size(), count);
        }).toList();
        List<Finding> findings = new java.util.ArrayList<>();
        detectors.forEach(d -> findings.addAll(d.detect(fleet)));
        findings.sort(Finding.ORDER);
        return new FleetReport(fleet.now(), clusters, fleet.ledger().repeated(), findings, notes);
    }
}
