package io.nodegate.detect.fleet;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Tombstone;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * NG302: a host that `nodegate remove` deleted (its tombstone is in the cluster's nodegate-tombstones ConfigMap) is
 * a Node again: under its old name in the cluster that removed it, or with its systemUUID or machineID in any
 * cluster read, under any name. Nothing upstream stops this (rke2#2144, k3s#12782): a removed host whose RKE2
 * config is still on disk registers again at its next start, and if it was renamed it arrives as a bare newcomer.
 */
public final class RemovedHostReturnedDetector implements FleetDetector, Detector {

    public static final String CODE = "NG302";
    public static final String NAME = "removed-host-returned";

    @Override
    public String code() {
        return CODE;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Finding> detect(Fleet fleet) {
        List<Finding> findings = new ArrayList<>();
        for (Map.Entry<String, Collected<Tombstone>> book : fleet.tombstones().entrySet()) {
            for (Tombstone tombstone : book.getValue().items()) {
                for (NamedView cluster : fleet.clusters()) {
                    findings.addAll(returns(book.getKey(), tombstone, cluster.name(), cluster.state().nodes()));
                }
            }
        }
        return findings;
    }

    /**
     * In one cluster (audit, watch): its Nodes against its own tombstones, names included. No tombstones read
     * (offline input without them) means nothing to compare, never "no removed host came back".
     */
    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        List<Finding> findings = new ArrayList<>();
        for (Tombstone tombstone : state.tombstones().items()) {
            findings.addAll(returns(null, tombstone, null, state.nodes()));
        }
        return findings;
    }

    /**
     * The Nodes of {@code cluster} that carry the tombstone's identity: by name only when the tombstone was written
     * in that same cluster (names are per cluster), by systemUUID or machineID anywhere.
     */
    public static List<Finding> returns(String tombstoneCluster, Tombstone tombstone, String cluster,
                                        List<NodeInfo> nodes) {
        List<Finding> findings = new ArrayList<>();
        boolean sameCluster = tombstoneCluster == null || tombstoneCluster.equals(cluster);
        for (NodeInfo node : nodes) {
            String match = tombstone.matchOf(node, sameCluster);
            if (match != null) {
                findings.add(finding(tombstoneCluster, tombstone, cluster, node, match));
            }
        }
        return findings;
    }

    private static Finding finding(String tombstoneCluster, Tombstone t, String cluster, NodeInfo node, String match) {
        String where = tombstoneCluster == null ? "" : " from " + tombstoneCluster;
        String renamed = node.name().equals(t.name()) ? "under its old name" : "as " + node.name();
        String message = t.name() + " was removed" + where + (t.removedAt() == null ? "" : " at " + t.removedAt())
                + ", and the same host (" + match + " " + matchedValue(t, match) + ") is registered again "
                + renamed + (cluster == null ? "" : " in " + cluster)
                + (node.created() == null ? "" : ", created " + node.created())
                + ", Ready=" + (node.readyStatus() == null ? "none" : node.readyStatus())
                + (node.unschedulable() ? ", cordoned" : ", not cordoned");
        Evidence evidence = Evidence.of()
                .put("tombstone", t.name())
                .put("tombstoneCluster", tombstoneCluster)
                .time("removedAt", t.removedAt())
                .put("removedBy", t.removedBy())
                .put("gateRecordSha256", t.gateRecordSha256())
                .put("matchedBy", match)
                .put("cluster", cluster)
                .put("node", node.name())
                .put("uid", node.uid())
                .time("created", node.created())
                .put("ready", node.readyStatus())
                .put("systemUUID", node.systemInfo().systemUuid())
                .put("machineID", node.systemInfo().machineId());
        return new Finding(CODE, NAME, Severity.CRITICAL, List.of(node.name()), message, evidence.build(),
                "Cordon " + node.name() + " now (kubectl cordon " + node.name() + "). The host was removed on purpose"
                        + " and still has a cluster config on disk: clean it (rke2-uninstall.sh) or, if it is meant to"
                        + " come back, run 'nodegate readmit " + t.name() + "'. 'nodegate policy --quarantine' makes the"
                        + " API server refuse such a registration.", "tombstone " + t.name());
    }

    private static String matchedValue(Tombstone t, String match) {
        return switch (match) {
            case "systemUUID" -> t.systemUuid();
            case "machineID" -> t.machineId();
            default -> t.name();
        };
    }
}
