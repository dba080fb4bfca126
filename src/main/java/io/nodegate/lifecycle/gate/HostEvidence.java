package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeSystemInfo;
import io.nodegate.model.host.HostJudge;
import io.nodegate.model.host.HostReport;
import io.nodegate.model.host.HostVerdict;

import io.nodegate.time.Durations;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The gate's reading of host-side evidence (the field case: "the host owner says cleanup is done" was a sentence typed by a
 * person). Pure: the host report, the kubelet probe's answer and what the cluster says about the Node go in, checks
 * come out.
 *
 * Each is one {@link GateCheck}: {@link HostReportCheck}, {@link KubeletPortCheck}, {@link NoHostEvidenceCheck}.
 * <ul>
 *   <li>host report: its sha256 must hold and its identity (machine-id, product UUID) must be the Node's, else
 *   INVALID; then clean = PASS (step (b) with evidence), stopped = HOLD, points-elsewhere = FAIL, running = FAIL;</li>
 *   <li>kubelet probe: this cluster's CA = FAIL (alive), another CA = FAIL (departed, NG303), no answer = PASS
 *   (consistent with cleanup), anything else that answers = HOLD;</li>
 *   <li>neither: one "not checked" line saying the gate has only the reply's text ({@link NoHostEvidenceCheck}).</li>
 * </ul>
 */
public final class HostEvidence {

    private HostEvidence() {
    }

    /**
     * What the operator gave the gate about the host, already read.
     *
     * @param report       the host report, or null without --host-report
     * @param reportFile   where it was read from
     * @param actualSha256 the sha256 recomputed over the report's body (compared with the report's own)
     * @param kubelet      the kubelet probe's answer, or null without --probe-kubelet
     * @param apiServer    the API server this run talked to (one of the names the cluster is known by)
     * @param clusterAddresses other names the cluster is reached by (--cluster-address)
     */
    public record Given(HostReport report, String reportFile, String actualSha256, KubeletAnswer kubelet,
                        String apiServer, List<String> clusterAddresses) {
        public static final Given NONE = new Given(null, null, null, null, null, List.of());

        public Given {
            clusterAddresses = clusterAddresses == null ? List.of() : List.copyOf(clusterAddresses);
        }

        public boolean any() {
            return report != null || kubelet != null;
        }
    }

    /**
     * How far a report's time may lie ahead of the gate's clock: hosts and the operator's machine keep time with NTP,
     * which holds them within seconds; two minutes leaves room for a host whose NTP is slow to settle after a boot,
     * and is far less than the Lease stop a report must come after.
     */
    public static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(2);

    /**
     * The host report check. A report is a file anyone who can write a file can forge (it is bound only to the
     * machine-id and product UUID, which `kubectl get node -o yaml` shows, and its sha256 has no key), so it can only
     * make the gate stricter: a clean report says "no objection" (PASS), never more. It stands in for nothing: the
     * removal time still comes from the host owner's --removed-at, and every other check decides on the cluster's
     * evidence alone. A report dated in the future (beyond {@link #MAX_CLOCK_SKEW}) or before the Lease stop it
     * should describe is rejected (INVALID).
     *
     * @param now       the time of this run's evidence
     * @param removedAt the host owner's --removed-at (null without it)
     */
    static Check hostReport(Given given, NodeInfo target, LeaseInfo lease, Collection<String> clusterHosts,
                            Instant now, Instant removedAt, Duration matchWindow) {
        HostReport r = given.report();
        Map<String, String> ev = new LinkedHashMap<>();
        ev.put("hostReport", given.reportFile());
        ev.put("sha256", r.sha256());
        ev.put("inspectedAt", String.valueOf(r.inspectedAt()));
        ev.put("hostname", r.identity().hostname());
        String title = "host report";
        if (!r.sha256().equals(given.actualSha256())) {
            return new Check("host", title, Verdict.INVALID, List.of("the report's sha256 " + r.sha256()
                    + " does not match its body (" + given.actualSha256() + "): it was changed after `host inspect` "
                    + "wrote it"), ev);
        }
        List<String> identity = identityMismatch(r, target);
        ev.put("machineId", r.identity().machineId() + " (Node " + target.systemInfo().machineId() + ")");
        ev.put("productUuid", r.identity().productUuid() + " (Node " + target.systemInfo().systemUuid() + ")");
        if (!identity.isEmpty()) {
            return new Check("host", title, Verdict.INVALID, identity, ev);
        }
        if (r.inspectedAt().isAfter(now.plus(MAX_CLOCK_SKEW))) {
            return new Check("host", title, Verdict.INVALID, List.of("the report is dated " + r.inspectedAt()
                    + ", after this run's time " + now + " by more than the " + MAX_CLOCK_SKEW.toMinutes()
                    + " minutes a clock may be off: a host clock that is wrong, or a report that was not written "
                    + "when it says; run `host inspect` again on a host with a synchronised clock"), ev);
        }
        if (lease != null && lease.renewTime() != null && r.inspectedAt().isBefore(lease.renewTime())) {
            return new Check("host", title, Verdict.INVALID, List.of("the report was written at " + r.inspectedAt()
                    + ", before the Lease's last renewal " + lease.renewTime() + ": it shows the host before the "
                    + "agent stopped, not after; run `host inspect` again"), ev);
        }
        HostJudge.Judgement j = HostJudge.judge(r, clusterHosts);
        ev.put("verdict", j.verdict().text() + (j.verdict() == r.verdict() ? ""
                : " (the report said " + r.verdict().text() + " on the host)"));
        ev.put("server", String.valueOf(r.config().server()));
        ev.put("clusterKnownAs", new TreeSet<>(clusterHosts).toString());
        if (r.removal() != null) {
            ev.put("removedAt", r.removal().at() + " (" + r.removal().source() + ")");
        }
        List<String> reasons = new ArrayList<>();
        Verdict outcome;
        switch (j.verdict()) {
            case CLEAN -> {
                outcome = Verdict.PASS;
                if (r.removal() != null && removedAt != null
                        && Duration.between(r.removal().at(), removedAt).abs().compareTo(matchWindow) > 0) {
                    outcome = Verdict.HOLD;
                    reasons.add("the report records the agent stopping at " + r.removal().at() + " ("
                            + r.removal().source() + "), but the host owner's --removed-at is " + removedAt
                            + ": more than " + Durations.format(matchWindow) + " apart");
                }
            }
            case INCOMPLETE -> {
                outcome = Verdict.HOLD;
                reasons.add("the report could not tell whether an agent runs on the host: its services were not "
                        + "read (`host inspect --root` without --systemctl)");
                reasons.addAll(j.reasons());
            }
            case STOPPED -> {
                outcome = Verdict.HOLD;
                reasons.add("the agent is stopped, not removed; it rejoins on start (KillMode=process leaves "
                        + r.leftovers().containerdShims() + " containers)");
                reasons.addAll(j.reasons());
            }
            case POINTS_ELSEWHERE -> {
                outcome = Verdict.FAIL;
                reasons.add("the agent points at " + r.config().server() + ", not this cluster: the host left for "
                        + "another cluster");
                reasons.addAll(j.reasons());
                reasons.add("if " + HostJudge.host(r.config().server()) + " is another name of this cluster "
                        + "(a VIP or DNS name), pass --cluster-address " + HostJudge.host(r.config().server()));
            }
            default -> {
                outcome = Verdict.FAIL;
                String registersAs = r.config().nodeName() != null ? r.config().nodeName()
                        : r.identity().knownHostname() == null ? "its hostname (not known to the report)"
                        : r.identity().knownHostname().toLowerCase(Locale.ROOT);
                reasons.add("an agent is running on the host and registers as " + registersAs
                        + (registersAs.equals(target.name()) ? "" : " (not " + target.name() + ": a renamed host "
                        + "joins as a new, uncordoned Node)"));
                reasons.addAll(j.reasons());
            }
        }
        return new Check("host", title + ": " + j.verdict().text(), outcome, reasons, ev);
    }

    /** Why the report is not from the Node's machine; empty when machine-id and product UUID tie them. */
    public static List<String> identityMismatch(HostReport r, NodeInfo node) {
        List<String> out = new ArrayList<>();
        int compared = 0;
        String[][] pairs = {
                {"machine-id", r.identity().machineId(), "machineID", node.systemInfo().machineId()},
                {"product UUID", r.identity().productUuid(), "systemUUID", node.systemInfo().systemUuid()}};
        for (String[] p : pairs) {
            if (!NodeSystemInfo.isMeaningfulId(p[1]) || !NodeSystemInfo.isMeaningfulId(p[3])) {
                continue;
            }
            compared++;
            if (!p[1].equalsIgnoreCase(p[3])) {
                out.add("the report is from another machine: its " + p[0] + " " + p[1] + " is not Node "
                        + node.name() + "'s " + p[2] + " " + p[3]);
            }
        }
        if (compared == 0) {
            out.add("nothing ties the report to Node " + node.name() + ": neither machine-id nor product UUID is "
                    + "known on both sides");
        }
        return out;
    }

    static Check kubeletProbe(KubeletAnswer a) {
        Map<String, String> ev = new LinkedHashMap<>();
        ev.put("address", a.target());
        ev.put("answer", a.outcome().text());
        if (a.issuer() != null) {
            ev.put("issuer", a.issuer());
            ev.put("subjectAltNames", String.join(", ", a.sans()));
        }
        ev.put("detail", a.detail());
        String title = "kubelet port: " + a.outcome().text();
        return switch (a.outcome()) {
            case NO_ANSWER, REFUSED -> new Check("kubelet", title + " (consistent with cleanup)", Verdict.PASS, List.of(),
                    ev);
            case THIS_CLUSTER -> new Check("kubelet", title, Verdict.FAIL, List.of("the kubelet at " + a.target()
                    + " answers with this cluster's certificate: it is alive"), ev);
            case OTHER_CA -> new Check("kubelet", title, Verdict.FAIL, List.of("the kubelet at " + a.target()
                    + " answers with a certificate from " + a.issuer() + " (SANs " + String.join(", ", a.sans())
                    + "), which does not chain to this cluster's CA: the host runs a kubelet for another cluster "
                    + "(departed, NG303)"), ev);
            case SELF_SIGNED -> new Check("kubelet", title, Verdict.HOLD, List.of("the Node's own kubelet answers at "
                    + a.target() + " with its self-signed certificate: it is alive, for a cluster the certificate "
                    + "does not name"), ev);
            case SELF_SIGNED_OTHER_HOST -> new Check("kubelet", title, Verdict.HOLD, List.of("a kubelet of another "
                    + "host answers at " + a.target() + " (" + a.subject() + "): a renamed host, or the address "
                    + "reused; not the silence of a cleaned-up host"), ev);
            case NO_ADDRESS -> new Check("kubelet", title, Verdict.HOLD, List.of("the Node has no InternalIP to "
                    + "probe"), ev);
            default -> new Check("kubelet", title, Verdict.HOLD, List.of("something answers on the kubelet port ("
                    + a.detail() + "): not the silence of a cleaned-up host"), ev);
        };
    }

    /** Addresses this cluster is known by: its API server, its server Nodes' addresses and names, and extras. */
    public static Set<String> clusterHosts(String apiServer, List<NodeInfo> nodes, Collection<String> extra) {
        Set<String> out = new TreeSet<>();
        if (apiServer != null) {
            out.add(HostJudge.host(apiServer));
        }
        for (NodeInfo n : nodes) {
            if (n.isServer()) {
                out.add(n.name().toLowerCase(Locale.ROOT));
                n.addresses().forEach(a -> out.add(HostJudge.host(a.address())));
            }
        }
        extra.forEach(e -> out.add(HostJudge.host(e)));
        return out;
    }
}
