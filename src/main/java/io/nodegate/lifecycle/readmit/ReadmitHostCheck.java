package io.nodegate.lifecycle.readmit;

import io.nodegate.model.verdict.Check;
import io.nodegate.lifecycle.gate.HostEvidence;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.host.HostJudge;
import io.nodegate.model.host.HostReport;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * readmit --verify with a host report from the returned host (seed 000: gpu-a07..a09 came back from cluster B):
 * the reinstalled agent must point at this cluster, register under the Node's name, and be enabled *and* active
 * (active alone does not survive the next reboot, seed 002). The version is the [version] check's: the kubelet
 * the host reports must be the cluster's. Pure.
 */
public final class ReadmitHostCheck {

    private ReadmitHostCheck() {
    }

    public static final String TITLE = "the reinstalled agent points here, enabled and active (host report)";

    /** Without --host-report: the host itself was not looked at, which is "not checked", never a PASS. */
    public static Check notGiven() {
        return Check.notChecked("host", TITLE, "no --host-report given: whether the reinstalled agent points at this "
                + "cluster, under this name, enabled and active, was not checked on the host");
    }

    public static Check check(HostReport r, String reportFile, String actualSha256, NodeInfo node,
                              Collection<String> clusterHosts) {
        Map<String, String> ev = new LinkedHashMap<>();
        ev.put("hostReport", reportFile);
        ev.put("sha256", r.sha256());
        ev.put("inspectedAt", String.valueOf(r.inspectedAt()));
        String title = TITLE;
        if (!r.sha256().equals(actualSha256)) {
            return new Check("host", title, Verdict.INVALID, List.of("the report's sha256 does not match its body ("
                    + actualSha256 + "): it was changed after `host inspect` wrote it"), ev);
        }
        List<String> identity = HostEvidence.identityMismatch(r, node);
        if (!identity.isEmpty()) {
            return new Check("host", title, Verdict.INVALID, identity, ev);
        }
        List<String> reasons = new ArrayList<>();
        ev.put("server", String.valueOf(r.config().server()));
        ev.put("clusterKnownAs", new TreeSet<>(clusterHosts).toString());
        HostJudge.ServerMatch match = HostJudge.serverMatch(r, clusterHosts);
        if (match != HostJudge.ServerMatch.THIS) {
            reasons.add(r.config().server() == null
                    ? "the host has no agent config with a server: the agent was not reinstalled"
                    : "the agent points at " + r.config().server() + ", not this cluster (known as "
                    + new TreeSet<>(clusterHosts) + "; a VIP or DNS name of this cluster: --cluster-address)");
        }
        String unit = agentUnit(r);
        HostReport.Service s = r.service(unit);
        ev.put("agent", s == null ? unit + " not read" : s.describe());
        if (s == null && r.services().isEmpty()) {
            reasons.add("services not read (the report was written without systemd): whether " + unit
                    + " is enabled and active cannot be told");
        } else if (s == null || !s.installed()) {
            reasons.add(unit + " is not installed");
        } else {
            if (!s.enabled()) {
                reasons.add(unit + " is not enabled (" + s.unitFileState() + "): it will not come back after a reboot");
            }
            if (!s.active()) {
                reasons.add(unit + " is not active (" + s.activeState() + ")");
            }
        }
        String registersAs = r.config().nodeName() != null ? r.config().nodeName()
                : r.identity().knownHostname() == null ? null : r.identity().knownHostname().toLowerCase(Locale.ROOT);
        ev.put("registersAs", String.valueOf(registersAs));
        if (registersAs != null && !registersAs.equals(node.name())) {
            reasons.add("the agent registers as " + registersAs + ", not " + node.name()
                    + ": it would join as a new Node; set node-name: " + node.name());
        }
        return new Check("host", title, reasons.isEmpty() ? Verdict.PASS : Verdict.FAIL, reasons, ev);
    }

    /** The agent unit of the report's distribution (a server node's rke2-server counts when it is the one in use). */
    static String agentUnit(HostReport r) {
        if (r.distribution() != null && r.distribution().startsWith("k3s")) {
            HostReport.Service agent = r.service("k3s-agent");
            return agent != null && agent.installed() ? "k3s-agent" : "k3s";
        }
        HostReport.Service server = r.service("rke2-server");
        return server != null && server.installed() && server.active() ? "rke2-server" : "rke2-agent";
    }
}
