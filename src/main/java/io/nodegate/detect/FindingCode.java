package io.nodegate.detect;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Every finding code nodegate raises, one row each, whichever command raises it: the node detectors of audit and
 * the watch (NG1xx), etcd, views, redundancy and the apiserver probe (NG2xx), fleet, the tombstone ledger and
 * host evidence (NG3xx). docs/findings.md's index is this table ({@link #indexTable()}, checked by
 * FindingCatalogueTest), and the watch's {@code nodegate_findings} series start at 0 for the severities a code
 * can have ({@link #severities()}).
 *
 * <p>Adding a code: one row here, its detector class (whose {@code code()} returns the row; its name is the row's
 * {@link #title()}), the detector's row in the detector table (io.nodegate.detect.registry.Detectors, with the
 * scopes that run it), its "### NGxxx title" section in docs/findings.md and its test. A code never changes
 * meaning; a new check gets a new row.
 */
public enum FindingCode {

    NG101("node-unknown", Severity.WARNING, Severity.WARNING, "audit, watch",
            "Ready=Unknown: the kubelet went silent, the controller overwrote Ready"),
    NG102("node-not-ready", Severity.WARNING, Severity.WARNING, "audit, watch",
            "Ready=False: the kubelet is alive and reports a problem"),
    NG103("batch-silence", Severity.WARNING, Severity.WARNING, "audit, watch",
            "several Leases stopped within seconds of each other"),
    NG110("same-host-two-names", Severity.WARNING, Severity.WARNING, "audit, watch",
            "two Nodes share a systemUUID"),
    NG111("bare-newcomer", Severity.WARNING, Severity.WARNING, "audit, watch",
            "a new Node with no role label and no cordon"),
    NG112("not-in-inventory", Severity.WARNING, Severity.WARNING, "audit, watch",
            "a Node the declared inventory does not place by its systemUUID/machineID and name"),
    NG113("inventory-host-missing", Severity.WARNING, Severity.WARNING, "audit, watch",
            "a host the declared inventory lists has no Node"),
    NG114("inventory-drift", Severity.WARNING, Severity.WARNING, "audit, watch",
            "a declared host's Node has another name, other roles or another InternalIP than declared"),
    NG120("duplicate-internal-ip", Severity.WARNING, Severity.WARNING, "audit, watch",
            "two Nodes report the same InternalIP"),
    NG130("kubelet-skew", Severity.WARNING, Severity.WARNING, "audit, watch",
            "kubelet newer than the apiserver or > 3 minors older"),
    NG140("orphan-node-password", Severity.INFO, Severity.INFO, "audit, watch",
            "a node-password Secret without its Node"),
    NG141("missing-node-password", Severity.WARNING, Severity.WARNING, "audit, watch",
            "a Node without its node-password Secret"),
    NG150("failed-plan-job", Severity.WARNING, Severity.WARNING, "audit, watch",
            "a Failed system-agent-upgrader Job blocks the Rancher Plan"),
    NG170("abandoned-node", Severity.WARNING, Severity.WARNING, "audit, watch",
            "cordoned or not Ready for longer than 72 h"),
    NG171("unexplained-cordon", Severity.INFO, Severity.WARNING, "audit, watch",
            "cordoned for more than a day with no reason annotation and no open hand-over"),
    NG201("etcd-split-brain", Severity.CRITICAL, Severity.CRITICAL, "etcd",
            "endpoints of one cluster answer with two or more cluster IDs"),
    NG202("etcd-quorum-tolerance", Severity.INFO, Severity.CRITICAL, "etcd",
            "failures tolerated = reachable voters − quorum of registered voters"),
    NG203("etcd-member-unreachable", Severity.WARNING, Severity.WARNING, "etcd",
            "a registered member's client URL does not answer as that member"),
    NG204("etcd-node-mismatch", Severity.WARNING, Severity.WARNING, "etcd",
            "an etcd member without a Node, or an etcd-role Node without a member"),
    NG205("etcd-member-not-control-plane", Severity.CRITICAL, Severity.CRITICAL, "etcd",
            "an etcd member whose Node is a worker"),
    NG206("etcd-member-lists-disagree", Severity.WARNING, Severity.CRITICAL, "etcd",
            "endpoints of one cluster ID list different members"),
    NG207("divergent-views", Severity.WARNING, Severity.CRITICAL, "views",
            "API servers of one cluster disagree on Nodes"),
    NG210("apiserver-layers-below-etcd", Severity.WARNING, Severity.WARNING, "redundancy",
            "fewer apiservers than etcd voters"),
    NG211("single-apiserver", Severity.CRITICAL, Severity.CRITICAL, "redundancy",
            "one apiserver serves the cluster"),
    NG212("single-scheduler-or-controller-manager-candidate", Severity.WARNING, Severity.WARNING, "redundancy",
            "one node can run the scheduler or controller-manager"),
    NG213("slow-apiserver", Severity.WARNING, Severity.WARNING, "probe apiservers",
            "one apiserver renews a Lease with p99 beyond a fraction of the renew deadline"),
    NG214("leader-election-lost", Severity.INFO, Severity.INFO, "probe apiservers",
            "a pod last terminated with \"leader election lost\""),
    NG301("host-in-two-clusters", Severity.INFO, Severity.CRITICAL, "fleet",
            "one host (machineID/systemUUID) is a Node in two clusters; critical when it left one for the other "
                    + "and no ID disagrees"),
    NG302("removed-host-returned", Severity.INFO, Severity.CRITICAL, "audit, fleet, watch",
            "a host `nodegate remove` deleted has a Node created after its removal, under any name; critical back "
                    + "in the cluster that removed it"),
    NG303("kubelet-answers-for-another-cluster", Severity.CRITICAL, Severity.CRITICAL,
            "probe kubelet, audit --probe-kubelets",
            "an Unknown Node's InternalIP answers on 10250 with a certificate that does not chain to this "
                    + "cluster's CA"),
    NG304("bmc-running-but-silent", Severity.WARNING, Severity.CRITICAL, "audit --bmc, watch --bmc",
            "the host's BMC says On while its Lease is silent: the host is up, not shut down"),
    NG305("bmc-powered-off-but-ready", Severity.CRITICAL, Severity.CRITICAL, "audit --bmc, watch --bmc",
            "the BMC bound by UUID says Off while the Node is Ready and renewing: distrust the binding and the BMC"),
    NG306("removed-host-can-rejoin", Severity.WARNING, Severity.WARNING, "rejoin-risk, verify-gone",
            "a removed host (or a Node about to be removed) can register again: a join credential is open and no "
                    + "quarantine refuses it");

    private final String title;
    private final Severity lowest;
    private final Severity highest;
    private final String raisedBy;
    private final String summary;

    FindingCode(String title, Severity lowest, Severity highest, String raisedBy, String summary) {
        this.title = title;
        this.lowest = lowest;
        this.highest = highest;
        this.raisedBy = raisedBy;
        this.summary = summary;
    }

    /** The stable code, e.g. "NG101". */
    public String code() {
        return name();
    }

    /** The kebab-case name findings of this code carry, e.g. "node-unknown". */
    public String title() {
        return title;
    }

    /** The severities a finding of this code can have, lowest first (one when the code has a fixed severity). */
    public List<Severity> severities() {
        return List.copyOf(EnumSet.range(lowest, highest));
    }

    /** "warning", or a range such as "info–critical", as the index prints it. */
    public String severityLabel() {
        return lowest == highest ? lowest.label() : lowest.label() + "–" + highest.label();
    }

    /** The nodegate commands that raise it. */
    public String raisedBy() {
        return raisedBy;
    }

    /** What it means, in one line. */
    public String summary() {
        return summary;
    }

    /** The section's anchor in docs/findings.md, as GitHub makes it from "### NG101 node-unknown". */
    public String anchor() {
        return name().toLowerCase(Locale.ROOT) + "-" + title;
    }

    /** The row of {@code code} ("NG101", any case), if there is one. */
    public static Optional<FindingCode> of(String code) {
        return Arrays.stream(values()).filter(c -> c.name().equalsIgnoreCase(code)).findFirst();
    }

    /** docs/findings.md's "## Index" table: one row per code, in code order. */
    public static String indexTable() {
        List<String> lines = new ArrayList<>();
        lines.add("| code | name | severity | raised by | in one line |");
        lines.add("|---|---|---|---|---|");
        for (FindingCode c : values()) {
            lines.add("| [" + c.name() + "](#" + c.anchor() + ") | " + c.title + " | " + c.severityLabel() + " | "
                    + c.raisedBy + " | " + c.summary + " |");
        }
        return String.join("\n", lines) + "\n";
    }
}
