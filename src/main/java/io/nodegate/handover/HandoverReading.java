package io.nodegate.handover;

import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.PodInfo;
import io.nodegate.model.Tombstone;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything one look at a hand-over read, for the pure decisions ({@link HandoverChecks}, {@link Violations}). A
 * read that failed carries its error and no data: nothing it would have shown is known, and no check or violation
 * is decided on its absence.
 *
 * @param at          when the look was taken
 * @param giving      the cluster giving the nodes
 * @param others      the other clusters read: the destination and any fleet cluster
 * @param evidence    the lifecycle's records (gate, removal, verify-gone) from the operator's evidence directory;
 *                    null when no evidence directory was read (the watch, in the cluster, has none)
 * @param hostReports host reports given with this look (step 2, or status), judged
 * @param kubelets    kubelet-port probes of the targets (null when not probed)
 * @param silences    what the Alertmanager replicas said (null when the hand-over names none)
 */
public record HandoverReading(Instant at, Giving giving, List<Other> others, Evidence evidence,
                              List<HostReportSeen> hostReports, List<KubeletAnswer> kubelets,
                              SilenceReport silences) {

    public HandoverReading {
        others = others == null ? List.of() : List.copyOf(others);
        hostReports = hostReports == null ? List.of() : List.copyOf(hostReports);
    }

    /**
     * The giving cluster.
     *
     * @param pods       the pods bound to each target still present (null: not read, as from a dump)
     * @param leases     the targets' node Leases
     * @param tombstones hosts `nodegate remove` recorded (null: not read)
     * @param error      why the read failed (then everything else is empty and unknown)
     */
    public record Giving(String name, List<NodeInfo> nodes, Map<String, List<PodInfo>> pods,
                         Map<String, LeaseInfo> leases, List<Tombstone> tombstones, String error) {
        public Giving {
            nodes = nodes == null ? List.of() : List.copyOf(nodes);
            leases = leases == null ? Map.of() : Map.copyOf(leases);
        }

        public static Giving failed(String name, String error) {
            return new Giving(name, null, null, null, null, error);
        }

        public NodeInfo node(String name) {
            return nodes.stream().filter(n -> n.name().equals(name)).findFirst().orElse(null);
        }
    }

    /** Another cluster read by its Nodes: the destination, or a fleet cluster; error when its read failed. */
    public record Other(String name, boolean destination, List<NodeInfo> nodes, String error) {
        public Other {
            nodes = nodes == null ? List.of() : List.copyOf(nodes);
        }
    }

    /**
     * The lifecycle's records for the targets, from the evidence directory the operator's gate, remove and
     * verify-gone wrote to.
     *
     * @param gates      the newest gate record per target
     * @param removals   the newest removal record per target
     * @param verifyGone every verify-gone run, oldest first
     */
    public record Evidence(String dir, Map<String, GateSeen> gates, Map<String, RemovalSeen> removals,
                           List<VerifyGoneSeen> verifyGone) {
        public Evidence {
            gates = gates == null ? Map.of() : Map.copyOf(gates);
            removals = removals == null ? Map.of() : Map.copyOf(removals);
            verifyGone = verifyGone == null ? List.of() : List.copyOf(verifyGone);
        }
    }

    /**
     * A gate record, as far as the hand-over needs it.
     *
     * @param leaseRenewTime  the Lease renewTime the gate compared with the reply (check c)
     * @param removedAt       the removal time the gate was given
     * @param etcdGoneChecked the gate confirmed the node's etcd member gone from every endpoint (a server node)
     */
    public record GateSeen(String node, String verdict, Instant gatedAt, String file, String sha256, String nodeUid,
                           List<String> reasons, Instant leaseRenewTime, Instant removedAt, boolean etcdGoneChecked) {
        public GateSeen {
            reasons = reasons == null ? List.of() : List.copyOf(reasons);
        }
    }

    /** A removal record (remove-&lt;node&gt;-&lt;time&gt;/removal.json). */
    public record RemovalSeen(String node, String state, Instant startedAt, Instant deletedAt, String decision,
                              String override, String nodeUid, String file, String handedTo) {
    }

    /** One verify-gone run. */
    public record VerifyGoneSeen(Instant at, String verdict, String file, List<String> findings) {
        public VerifyGoneSeen {
            findings = findings == null ? List.of() : List.copyOf(findings);
        }
    }

    /**
     * A host report, judged against the giving cluster.
     *
     * @param identityProblems why the report is not from the target's machine (empty when it is)
     * @param verdict          clean, stopped, points-elsewhere or running
     */
    public record HostReportSeen(String node, String file, String sha256, boolean intact,
                                 List<String> identityProblems, String verdict, String server, Instant inspectedAt,
                                 List<String> reasons) {
        public HostReportSeen {
            identityProblems = identityProblems == null ? List.of() : List.copyOf(identityProblems);
            reasons = reasons == null ? List.of() : List.copyOf(reasons);
        }
    }

    /**
     * What the Alertmanager replicas said, and what was done about the hand-over's silence on each.
     *
     * @param replicas   each replica's state after this look's actions
     * @param unsilenced target alerts not suppressed by the hand-over's silence
     * @param groups     groups a silence cannot help
     * @param peering    replicas that do not gossip with the others, in words
     * @param events     silences created, re-created, extended, expired in this look
     */
    public record SilenceReport(List<SilenceDecision.Replica> replicas, List<SilenceDecision.Unsilenced> unsilenced,
                                List<SilenceDecision.MixedGroup> groups, List<String> peering,
                                List<HandoverStatus.HistoryEntry> events) {
        public SilenceReport {
            replicas = List.copyOf(replicas);
            unsilenced = List.copyOf(unsilenced);
            groups = List.copyOf(groups);
            peering = List.copyOf(peering);
            events = List.copyOf(events);
        }
    }

    /** Every read that failed in this look, in words. */
    public List<String> errors() {
        List<String> out = new ArrayList<>();
        if (giving != null && giving.error() != null) {
            out.add("cluster " + giving.name() + ": " + giving.error());
        }
        others.stream().filter(o -> o.error() != null).forEach(o -> out.add("cluster " + o.name() + ": " + o.error()));
        if (silences != null) {
            silences.replicas().stream().filter(r -> SilenceDecision.UNREADABLE.equals(r.state()))
                    .forEach(r -> out.add("Alertmanager " + r.url() + ": " + r.detail()));
        }
        return out;
    }
}
