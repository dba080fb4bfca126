package io.nodegate.lifecycle.readmit;

import io.nodegate.model.Gpu;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.JobInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.model.Taint;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * After a returned host rejoined (seed: gpu-a07..a09 back from cluster B): is it the same host, back in this
 * cluster, with the Node's cordon and taints kept? A pure function of the baseline and what the API says now.
 */
public final class ReadmitDecision {

    /** Taints the node lifecycle controller and kubelet manage; everything else was put there by people. */
    static final Set<String> CONTROLLER_TAINTS = Set.of(Taint.UNREACHABLE, Taint.NOT_READY,
            "node.kubernetes.io/unschedulable", "node.kubernetes.io/network-unavailable");

    private ReadmitDecision() {
    }

    /** The id of the check that --verify --yes may act on (by deleting the Failed Jobs it names). */
    public static final String UPGRADER_JOBS = "upgrader-jobs";

    public static String upgraderJobPrefix(String node) {
        return "apply-system-agent-upgrader-on-" + node + "-with-";
    }

    /**
     * @param secretDeletedAt when readmit deleted the old node-password Secret (null if unknown: then the new one
     *                        must be younger than the baseline)
     */
    public static List<Check> verify(Baseline.Target t, NodeInfo n, SecretMeta secret, List<JobInfo> jobs,
                                     String clusterVersion, Instant secretDeletedAt, Instant baselineTs) {
        List<Check> checks = new ArrayList<>();
        Map<String, String> ev = new LinkedHashMap<>();
        ev.put("ready", String.valueOf(n.readyStatus()));
        ev.put("bootID", n.systemInfo().bootId() + " (baseline " + t.bootId() + ")");
        List<String> back = new ArrayList<>();
        if (!n.isReady()) {
            back.add("Ready is " + n.readyStatus() + ", not True: the host has not rejoined (yet)");
        }
        if (Objects.equals(t.bootId(), n.systemInfo().bootId())) {
            back.add("bootID unchanged (" + t.bootId() + "): no new boot has reported to this cluster");
        }
        checks.add(check("rejoined", "Ready with a new bootID", back, ev));

        List<String> same = new ArrayList<>();
        Map<String, String> idEv = new LinkedHashMap<>();
        idEv.put("systemUUID", n.systemInfo().systemUuid() + " (baseline " + t.systemUuid() + ")");
        idEv.put("kernel", n.systemInfo().kernelVersion() + " (baseline " + t.kernelVersion() + ")");
        Map<String, Long> gpus = Gpu.capacity(n);
        idEv.put("gpu", gpus + " (baseline " + t.gpuCapacity() + ")");
        if (!Objects.equals(t.systemUuid(), n.systemInfo().systemUuid())) {
            same.add("systemUUID " + n.systemInfo().systemUuid() + " differs from the baseline's " + t.systemUuid()
                    + ": another host registered under this name");
        }
        if (!Objects.equals(t.kernelVersion(), n.systemInfo().kernelVersion())) {
            same.add("kernel " + n.systemInfo().kernelVersion() + ", baseline " + t.kernelVersion());
        }
        if (!new java.util.TreeMap<>(t.gpuCapacity()).equals(gpus)) {
            same.add("GPU capacity " + gpus + ", baseline " + new java.util.TreeMap<>(t.gpuCapacity()));
        }
        checks.add(check("identity", "the same host (systemUUID, kernel, GPU count)", same, idEv));

        // A Node object that was deleted and registered anew (another uid) starts with no cordon, role labels or
        // taints: asking whether they were "kept" would judge something that cannot exist. Its roles and taints
        // must be put back by hand (the host steps say so), and that is what is checked instead.
        boolean recreated = t.uid() != null && !t.uid().equals(n.uid());
        List<String> kept = new ArrayList<>();
        Map<String, String> keptEv = new LinkedHashMap<>();
        keptEv.put("unschedulable", n.unschedulable() + " (baseline " + t.unschedulable() + ")");
        keptEv.put("taints", n.taints().toString());
        if (recreated) {
            keptEv.put("uid", n.uid() + " (baseline " + t.uid() + ": the Node was deleted and registered anew)");
            Map<String, String> roles = new java.util.TreeMap<>();
            n.labels().forEach((k, v) -> {
                if (k.startsWith(NodeInfo.ROLE_PREFIX)) {
                    roles.put(k, v);
                }
            });
            keptEv.put("roles", roles.keySet() + " (baseline " + new java.util.TreeMap<>(t.roleLabels()).keySet() + ")");
            t.roleLabels().keySet().stream().filter(k -> !roles.containsKey(k)).sorted()
                    .forEach(k -> kept.add("role label " + k + " not re-applied to the new Node"));
        } else if (t.unschedulable() != n.unschedulable()) {
            kept.add("cordon " + t.unschedulable() + " -> " + n.unschedulable());
        }
        List<String> now = n.taints().stream().map(Taint::toString).toList();
        for (String taint : t.taints()) {
            String key = taint.replaceAll("[=:].*$", "");
            if (!CONTROLLER_TAINTS.contains(key) && !now.contains(taint)) {
                kept.add("taint " + taint + (recreated ? " not re-applied to the new Node" : " lost"));
            }
        }
        n.taints().stream().filter(x -> Taint.UNREACHABLE.equals(x.key()) || Taint.NOT_READY.equals(x.key()))
                .forEach(x -> kept.add("taint " + x + " still there"));
        checks.add(recreated
                ? check("reapplied", "the baseline's role labels and taints re-applied to the new Node, unreachable "
                        + "taints gone", kept, keptEv)
                : check("kept", "cordon and taints kept, unreachable taints gone", kept, keptEv));

        List<String> version = new ArrayList<>();
        if (clusterVersion == null) {
            // no other Node says what the cluster runs: nothing to compare with, never a PASS
            checks.add(Check.notChecked("version", "kubelet at the cluster's version", "no Node reports a kubelet "
                    + "version, so the cluster's is unknown: the host's " + n.systemInfo().kubeletVersion()
                    + " was not compared"));
        } else {
            if (!clusterVersion.equals(n.systemInfo().kubeletVersion())) {
                version.add("kubelet " + n.systemInfo().kubeletVersion() + ", the cluster runs " + clusterVersion);
            }
            checks.add(check("version", "kubelet at the cluster's version", version,
                    Map.of("kubelet", String.valueOf(n.systemInfo().kubeletVersion()), "cluster", clusterVersion)));
        }

        List<String> pw = new ArrayList<>();
        Instant after = secretDeletedAt != null ? secretDeletedAt : baselineTs;
        if (secret == null) {
            pw.add("no node-password Secret for " + n.name() + ": the agent has not registered");
        } else if (secret.created() == null || secret.created().isBefore(after.truncatedTo(java.time.temporal.ChronoUnit.SECONDS))) {
            pw.add("node-password Secret " + secret.name() + " was created " + secret.created() + ", before " + after
                    + ": it is the old one");
        }
        checks.add(check("node-password", "a new node-password Secret", pw,
                Map.of("secret", secret == null ? "NotFound" : secret.name() + " created " + secret.created())));

        List<String> failed = jobs.stream().filter(j -> j.failed() && j.name().startsWith(upgraderJobPrefix(n.name())))
                .map(j -> "Failed Job " + j.namespace() + "/" + j.name() + " blocks the system-agent-upgrader Plan "
                        + "(delete it: --verify --yes)").toList();
        checks.add(check(UPGRADER_JOBS, "no Failed apply-system-agent-upgrader Job", failed, Map.of()));
        return checks;
    }

    private static Check check(String id, String title, List<String> reasons, Map<String, String> ev) {
        return new Check(id, title, reasons.isEmpty() ? Verdict.PASS : Verdict.FAIL, reasons, ev);
    }
}
