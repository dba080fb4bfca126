package io.nodegate.detect.fleet;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.SharedMachineIds;
import io.nodegate.model.Tombstone;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * NG302: a host that `nodegate remove` deleted (its tombstone is in the cluster's tombstones ledger) is a Node again,
 * <b>created after the removal</b>: under its old name in the cluster that removed it, or with its systemUUID or
 * machineID in any cluster read, under any name. Nothing upstream stops this (rke2#2144, k3s#12782): a removed host
 * whose RKE2 config is still on disk registers again at its next start, and if it was renamed it arrives as a bare
 * newcomer.
 *
 * <p>What keeps it true (the hand-over case: cluster A removed its stale Node for a host that had served
 * cluster B for two days, and B's Node, created two hours before the removal, was reported critical with a hint to
 * uninstall RKE2 on B):
 * <ul>
 *   <li>a Node created before the removal is not a return: the host was already there (NG301's business while
 *       A's Node exists, nothing once it is gone);</li>
 *   <li>in the cluster the tombstone names as the destination ({@code remove --handed-to}) the host is the
 *       expected arrival: info;</li>
 *   <li>critical only when the host is back in the cluster that removed it, the cluster whose quarantine it
 *       broke, and the identities do not contradict each other. In another cluster, or when one ID matches and the
 *       other differs, or for a Node that existed (sharing the identity) when the tombstone was written: warning;</li>
 *   <li>hints advise a destructive step (cordon, rke2-uninstall.sh) only in the cluster that removed the host.</li>
 * </ul>
 */
public final class RemovedHostReturnedDetector implements FleetDetector, Detector {

    public static final FindingCode CODE = FindingCode.NG302;

    @Override
    public FindingCode code() {
        return CODE;
    }

    @Override
    public List<Finding> detect(Fleet fleet) {
        List<Finding> findings = new ArrayList<>();
        for (Map.Entry<String, Collected<Tombstone>> book : fleet.tombstones().entrySet()) {
            for (Tombstone tombstone : book.getValue().items()) {
                for (NamedView cluster : fleet.clusters()) {
                    findings.addAll(returns(book.getKey(), tombstone, cluster.name(), cluster.state().nodes(),
                            fleet.ledger().shared()));
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
        SharedMachineIds images = new SharedMachineIds().addAll(state.nodes(), null);
        for (Tombstone tombstone : state.tombstones().items()) {
            findings.addAll(returns(null, tombstone, null, state.nodes(), images));
        }
        return findings;
    }

    /**
     * The Nodes of {@code cluster} that carry the tombstone's identity and are not known to predate the removal: by
     * name only when the tombstone was written in that same cluster (names are per cluster), by systemUUID or
     * machineID anywhere; never by a machineID that is an image's ({@code images}, or carried by the tombstone's and
     * the Node's different systemUUIDs): Nodes cloned from the removed host's image are not the removed host.
     */
    public static List<Finding> returns(String tombstoneCluster, Tombstone tombstone, String cluster,
                                        List<NodeInfo> nodes, SharedMachineIds images) {
        List<Finding> findings = new ArrayList<>();
        boolean sameCluster = tombstoneCluster == null || tombstoneCluster.equals(cluster);
        for (NodeInfo node : nodes) {
            String match = tombstone.matchOf(node, sameCluster, images);
            if (match == null) {
                continue;
            }
            Finding f = finding(tombstoneCluster, tombstone, cluster, node, match, sameCluster);
            if (f != null) {
                findings.add(f);
            }
        }
        return findings;
    }

    /** What a match means; null when the Node existed before the removal (not a return). */
    private static Finding finding(String tombstoneCluster, Tombstone t, String cluster, NodeInfo node, String match,
                                   boolean sameCluster) {
        boolean handedHere = !sameCluster && t.handedTo() != null && t.handedTo().equals(cluster);
        Instant created = node.created();
        Instant removedAt = t.removedAt();
        boolean timesKnown = created != null && removedAt != null;
        if (!handedHere && timesKnown && !created.isAfter(removedAt)) {
            return null; // it was there already when the host was removed: not a return
        }
        boolean contradicted = !Tombstone.BY_NAME.equals(match) && t.contradictedBy(node);
        boolean exempt = sameCluster && t.existedAtRemoval(node);
        String from = tombstoneCluster == null ? "" : " from " + tombstoneCluster;
        String removed = t.name() + " was removed" + from + (removedAt == null ? "" : " at " + removedAt);
        String same = "the same host (" + match + " " + matchedValue(t, match) + ")";
        String as = node.name().equals(t.name()) ? "under its old name" : "as " + node.name();
        String where = cluster == null ? "" : " in " + cluster;
        String when = created == null ? ", creation time unknown"
                : ", created " + created + (removedAt == null ? "" : " (" + spoken(Duration.between(removedAt, created))
                + ")");
        String state = ", Ready=" + (node.readyStatus() == null ? "none" : node.readyStatus())
                + (node.unschedulable() ? ", cordoned" : ", not cordoned");
        String otherId = contradicted ? ". Only the " + match + " matches: the host's other ID differs"
                + (Tombstone.BY_SYSTEM_UUID.equals(match) ? " (a reinstalled OS regenerates /etc/machine-id; VMs cloned"
                + " with a copied firmware UUID look the same)" : " (VMs cloned from one image without a new"
                + " /etc/machine-id look the same)") : "";

        Severity severity;
        String message;
        String hint;
        if (handedHere) {
            severity = Severity.INFO;
            message = removed + " and handed to " + cluster + "; " + same + " is " + node.name() + " there" + when
                    + state + ": the expected arrival";
            hint = "Nothing to do: this is the hand-over that 'nodegate remove --handed-to " + cluster + "' recorded.";
        } else if (!timesKnown) {
            severity = Severity.WARNING;
            message = removed + ", and " + same + " is registered " + as + where + when + state
                    + ": without " + (created == null ? "the Node's creation time" : "the removal time")
                    + " it cannot be told whether this Node existed before the removal" + otherId;
            hint = "Compare the Node's creationTimestamp with the removal (" + t.name() + "'s tombstone) before acting:"
                    + " a Node that existed before the removal is not a return.";
        } else if (!sameCluster) {
            severity = Severity.WARNING;
            message = removed + ", and " + same + " registered " + as + where + when + state + "; " + cluster
                    + " is not recorded as its destination" + otherId;
            hint = "Nothing to undo here: " + (tombstoneCluster == null ? "the removing cluster" : tombstoneCluster)
                    + "'s tombstone only keeps the host out of that cluster. If " + cluster + " was meant to receive"
                    + " it, this is an unrecorded hand-over (next time: 'nodegate remove --handed-to " + cluster
                    + "'); otherwise ask " + cluster + "'s owners whether they expected this host.";
        } else if (exempt) {
            severity = Severity.WARNING;
            message = removed + ", and " + node.name() + ", which existed then and shares " + match + " "
                    + matchedValue(t, match) + " with it (the quarantine lets it in), was registered again" + where
                    + when + state + ": either that Node's own host re-registered after its Node was deleted, or the"
                    + " removed host took its name";
            hint = "Check which machine " + node.name() + " is (bootID, IPs, the BMC) before acting; if it is the removed"
                    + " host, cordon it and clean it (rke2-uninstall.sh) or run 'nodegate readmit " + t.name() + "'.";
        } else if (contradicted) {
            severity = Severity.WARNING;
            message = removed + ", and " + same + " is registered again " + as + where + when + state + otherId;
            hint = "Check which machine " + node.name() + " is before acting (DMI, the BMC). If it is the removed host,"
                    + " cordon it (kubectl cordon " + node.name() + ") and clean it (rke2-uninstall.sh) or run"
                    + " 'nodegate readmit " + t.name() + "'; if it is a clone, give it its own firmware UUID and"
                    + " /etc/machine-id.";
        } else {
            severity = Severity.CRITICAL;
            message = removed + ", and " + same + " is registered again " + as + where + when + state;
            hint = "Cordon " + node.name() + " now (kubectl cordon " + node.name() + "). The host was removed on purpose"
                    + " and still has this cluster's config on disk: clean it (rke2-uninstall.sh) or, if it is meant"
                    + " to come back, run 'nodegate readmit " + t.name() + "'. 'nodegate policy --quarantine' makes"
                    + " the API server refuse such a registration.";
        }
        Evidence evidence = Evidence.of()
                .put("tombstone", t.name())
                .put("tombstoneCluster", tombstoneCluster)
                .time("removedAt", removedAt)
                .put("removedBy", t.removedBy())
                .put("gateRecordSha256", t.gateRecordSha256())
                .put("handedTo", t.handedTo())
                .put("matchedBy", match)
                .put("cluster", cluster)
                .put("node", node.name())
                .put("uid", node.uid())
                .time("created", created)
                .seconds("createdAfterRemovalSeconds", timesKnown ? Duration.between(removedAt, created) : null)
                .put("ready", node.readyStatus())
                .put("systemUUID", node.systemInfo().systemUuid())
                .put("machineID", node.systemInfo().machineId())
                .put("otherIdDiffers", contradicted)
                .put("existedAtRemoval", exempt);
        return new Finding(CODE, severity, List.of(node.name()), message, evidence.build(), hint,
                "tombstone " + t.name());
    }

    /** "2 h 0 min after the removal", "3 s before the removal". */
    private static String spoken(Duration d) {
        String s = HostInTwoClustersDetector.spoken(d);
        return s.replace(" before the Lease stopped", " before the removal").replace(" later", " after the removal");
    }

    private static String matchedValue(Tombstone t, String match) {
        return switch (match) {
            case Tombstone.BY_SYSTEM_UUID -> t.systemUuid();
            case Tombstone.BY_MACHINE_ID -> t.machineId();
            default -> t.name();
        };
    }
}
