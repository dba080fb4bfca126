package io.nodegate.lifecycle.gate;

import io.nodegate.lifecycle.Gpu;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.baseline.BaselineCollector;
import io.nodegate.model.Condition;
import io.nodegate.model.DaemonSetInfo;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.NodeInfo;
import io.nodegate.time.Durations;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The pre-deletion gate of seed 000 as a pure function: (baseline, evidence now, request) -> verdict with the
 * evidence of every check. Any doubt goes to HOLD, never to PASS; evidence that cannot be trusted is INVALID.
 */
public final class GateDecision {

    private GateDecision() {
    }

    public static GateResult decide(Baseline baseline, GateEvidence ev, GateRequest req) {
        List<Check> checks = new ArrayList<>();
        String error = ev.collectionError();
        if (error == null) {
            error = ev.etcd().stream().filter(r -> !r.ok())
                    .map(r -> "etcd endpoint " + r.endpoint() + ": " + r.error()).findFirst().orElse(null);
        }
        if (error != null) {
            checks.add(new Check("collection", "every API call answered", Verdict.INVALID,
                    List.of("call failed: " + error + "; nothing this run saw can be trusted"),
                    Map.of()));
            return new GateResult(req.node(), Verdict.INVALID, checks);
        }
        checks.add(new Check("collection", "every API call answered", Verdict.PASS, List.of(),
                Map.of("observedAt", String.valueOf(ev.observedAt()))));
        checks.add(control(baseline, ev));
        Baseline.Target target = baseline.target(req.node());
        if (ev.target() == null) {
            checks.add(new Check("a", "target and worker", Verdict.FAIL,
                    List.of("Node " + req.node() + " not found (NotFound): nothing to delete; already removed?"),
                    Map.of()));
        } else {
            checks.add(targetAndWorker(baseline, target, ev));
            checks.add(reply(req));
            checks.add(timeMatch(ev, req));
            checks.add(baselineComparison(baseline, ev));
            if (target != null) {
                checks.add(notReRegistered(target, ev.target()));
            }
        }
        Verdict verdict = Verdict.PASS;
        for (Check c : checks) {
            verdict = Verdict.worst(verdict, c.outcome());
        }
        return new GateResult(req.node(), verdict, checks);
    }

    static Check control(Baseline baseline, GateEvidence ev) {
        String name = baseline.control().name();
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("control", name);
        List<String> reasons = new ArrayList<>();
        if (ev.control() == null) {
            reasons.add("control node " + name + " not found: the run cannot see a node that must be there");
        } else {
            evid.put("ready", String.valueOf(ev.control().readyStatus()));
            if (!ev.control().isReady()) {
                reasons.add("control node " + name + " is not Ready (" + ev.control().readyStatus() + ")");
            }
            evid.put("podsFound", String.valueOf(ev.controlPods()));
            if (ev.controlPods() == null || ev.controlPods() == 0) {
                reasons.add("the spec.nodeName pod query found no pod on control node " + name
                        + ": the query used to prove 'no pods left' cannot be trusted");
            }
            if (baseline.usesNodePasswords()) {
                evid.put("nodePasswordSecret", ev.controlNodePassword() == null ? "NotFound" : ev.controlNodePassword().name());
                if (ev.controlNodePassword() == null) {
                    reasons.add("node-password Secret of control node " + name
                            + " not found although the cluster uses them");
                }
            }
        }
        return new Check("control", "positive control " + name, reasons.isEmpty() ? Verdict.PASS : Verdict.INVALID,
                reasons, evid);
    }

    static Check targetAndWorker(Baseline baseline, Baseline.Target target, GateEvidence ev) {
        NodeInfo node = ev.target();
        List<String> reasons = new ArrayList<>();
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("roles", String.join(",", node.roles()));
        if (target == null) {
            reasons.add(node.name() + " is not in the baseline's targets "
                    + baseline.targets().stream().map(Baseline.Target::name).toList());
        }
        TreeSet<String> serverRoles = new TreeSet<>();
        node.roles().stream().filter(NodeInfo.SERVER_ROLES::contains).forEach(serverRoles::add);
        if (target != null) {
            target.roleLabels().keySet().stream().map(k -> k.substring(NodeInfo.ROLE_PREFIX.length()))
                    .filter(NodeInfo.SERVER_ROLES::contains).forEach(serverRoles::add);
        }
        if (!serverRoles.isEmpty()) {
            reasons.add("has server role(s) " + serverRoles + ": the gate is for workers only; remove the etcd member first");
        }
        for (String key : List.of("etcd.k3s.cattle.io/node-name", "etcd.k3s.cattle.io/node-address")) {
            if (node.annotation(key) != null) {
                reasons.add("annotation " + key + "=" + node.annotation(key) + " marks an etcd member");
            }
        }
        TreeSet<String> ips = new TreeSet<>(node.internalIps());
        if (target != null) {
            ips.addAll(target.internalIps());
        }
        List<Baseline.EtcdMemberRef> members = new ArrayList<>();
        if (baseline.etcdMembers() != null) {
            members.addAll(baseline.etcdMembers());
        }
        List<Baseline.EtcdMemberRef> now = currentEtcd(ev.etcd());
        if (now != null) {
            members.addAll(now);
        }
        for (Baseline.EtcdMemberRef m : members) {
            boolean byName = m.name() != null && (m.name().equals(node.name()) || m.name().startsWith(node.name() + "-"));
            String byPeer = m.peerUrls().stream().filter(u -> ips.contains(host(u))).findFirst().orElse(null);
            if (byName || byPeer != null) {
                String why = byName ? "name " + m.name() : "peer address " + byPeer;
                String line = "is etcd member " + m.id() + " (by " + why + ")";
                if (!reasons.contains(line)) {
                    reasons.add(line);
                }
            }
        }
        evid.put("etcdMembersChecked", baseline.etcdMembers() == null && now == null ? "no (no etcd source)"
                : String.valueOf(members.stream().map(Baseline.EtcdMemberRef::id).distinct().count()));
        return new Check("a", "target and worker", reasons.isEmpty() ? Verdict.PASS : Verdict.FAIL, reasons, evid);
    }

    static Check reply(GateRequest req) {
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("removedAt", String.valueOf(req.removedAt()));
        if (req.replyFrom() != null) {
            evid.put("replyFrom", req.replyFrom());
        }
        if (req.reply() != null) {
            evid.put("reply", req.reply());
        }
        if (req.removedAt() == null) {
            return new Check("b", "cleanup reply with removal time", Verdict.HOLD,
                    List.of("no --removed-at: the host owner's reply must give the time RKE2 was removed or the agent "
                            + "stopped (not the reboot time)"), evid);
        }
        return new Check("b", "cleanup reply with removal time", Verdict.PASS, List.of(), evid);
    }

    static Check timeMatch(GateEvidence ev, GateRequest req) {
        NodeInfo node = ev.target();
        Condition ready = node.condition("Ready");
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("ready", String.valueOf(node.readyStatus()));
        evid.put("leaseRenewTime", ev.targetLease() == null ? "NotFound" : String.valueOf(ev.targetLease().renewTime()));
        evid.put("readyLastHeartbeatTime", ready == null ? "null" : String.valueOf(ready.lastHeartbeatTime()));
        evid.put("readyLastTransitionTime", ready == null ? "null" : String.valueOf(ready.lastTransitionTime()));
        evid.put("bootID", String.valueOf(node.systemInfo().bootId()));
        evid.put("removedAt", String.valueOf(req.removedAt()));
        evid.put("matchWindow", req.matchWindow().toString());
        if (node.isReady()) {
            return new Check("c", "agent stopped when the reply says", Verdict.FAIL,
                    List.of("Ready=True: the kubelet is alive and reporting"), evid);
        }
        if (req.removedAt() == null) {
            return new Check("c", "agent stopped when the reply says", Verdict.HOLD,
                    List.of("no removal time to compare the Lease with"), evid);
        }
        if (ev.targetLease() == null || ev.targetLease().renewTime() == null) {
            return new Check("c", "agent stopped when the reply says", Verdict.HOLD,
                    List.of("Lease kube-node-lease/" + node.name()
                            + (ev.targetLease() == null ? " not found" : " has no renewTime")
                            + ": when the agent stopped cannot be shown"), evid);
        }
        Duration gap = Duration.between(ev.targetLease().renewTime(), req.removedAt());
        evid.put("leaseStoppedBeforeRemovedAt", (gap.isNegative() ? "-" : "") + human(gap.abs()));
        if (gap.abs().compareTo(req.matchWindow()) > 0) {
            return new Check("c", "agent stopped when the reply says", Verdict.HOLD,
                    List.of("Lease renewTime " + ev.targetLease().renewTime() + " is " + human(gap.abs())
                            + (gap.isNegative() ? " after" : " before") + " the reported removal " + req.removedAt()
                            + " (window ±" + human(req.matchWindow()) + "): the heartbeat stopped at another moment"),
                    evid);
        }
        return new Check("c", "agent stopped when the reply says", Verdict.PASS, List.of(), evid);
    }

    static Check baselineComparison(Baseline baseline, GateEvidence ev) {
        List<String> changes = new ArrayList<>();
        Map<String, String> evid = new LinkedHashMap<>();
        Map<String, NodeInfo> now = new TreeMap<>();
        ev.nodes().forEach(n -> now.put(n.name(), n));
        List<Baseline.Target> removed = baseline.targets().stream()
                .filter(t -> !now.containsKey(t.name())).toList();
        evid.put("targetsAlreadyRemoved", removed.stream().map(Baseline.Target::name).toList().toString());

        // etcd membership
        List<Baseline.EtcdMemberRef> etcdNow = currentEtcd(ev.etcd());
        if (baseline.etcdMembers() == null && etcdNow == null) {
            evid.put("etcd", "not compared: no etcd source at baseline or now");
        } else if (baseline.etcdMembers() == null) {
            changes.add("etcd members given now but not recorded in the baseline: save a new baseline with an etcd source");
        } else if (etcdNow == null) {
            changes.add("the baseline recorded etcd members but no etcd source was given now");
        } else {
            TreeSet<String> before = ids(baseline.etcdMembers());
            TreeSet<String> after = ids(etcdNow);
            evid.put("etcd", after.toString());
            if (!before.equals(after)) {
                TreeSet<String> gone = new TreeSet<>(before);
                gone.removeAll(after);
                TreeSet<String> added = new TreeSet<>(after);
                added.removeAll(before);
                changes.add("etcd members changed: gone " + gone + ", new " + added);
            }
        }

        // non-target nodes
        TreeSet<String> targetNames = new TreeSet<>();
        baseline.targets().forEach(t -> targetNames.add(t.name()));
        TreeSet<String> known = new TreeSet<>(targetNames);
        for (Baseline.OtherNode o : baseline.nonTargets()) {
            known.add(o.name());
            NodeInfo n = now.get(o.name());
            if (n == null) {
                changes.add("non-target node " + o.name() + " is gone");
                continue;
            }
            if (!Objects.equals(o.uid(), n.uid())) {
                changes.add("non-target node " + o.name() + " was recreated (uid " + o.uid() + " -> " + n.uid() + ")");
            }
            if (!Objects.equals(o.ready(), n.readyStatus())) {
                changes.add("non-target node " + o.name() + " Ready " + o.ready() + " -> " + n.readyStatus());
            }
            if (o.unschedulable() != n.unschedulable()) {
                changes.add("non-target node " + o.name() + " unschedulable " + o.unschedulable() + " -> " + n.unschedulable());
            }
        }
        for (NodeInfo n : now.values()) {
            if (!known.contains(n.name())) {
                changes.add("new node " + n.name() + " (created " + n.created() + ", roles " + n.roles()
                        + ", unschedulable " + n.unschedulable() + ")");
            }
        }
        for (Baseline.Target t : baseline.targets()) {
            NodeInfo n = now.get(t.name());
            if (n != null && !t.name().equals(ev.target().name()) && !Objects.equals(t.uid(), n.uid())) {
                changes.add("target " + t.name() + " was recreated after the baseline (uid " + t.uid() + " -> " + n.uid() + ")");
            }
        }

        // DaemonSet desired counts: baseline minus the share of targets already removed
        Map<String, DaemonSetInfo> dsNow = new TreeMap<>();
        ev.daemonSets().forEach(d -> dsNow.put(d.namespace() + "/" + d.name(), d));
        TreeSet<String> removedNames = new TreeSet<>();
        removed.forEach(t -> removedNames.add(t.name()));
        for (Baseline.DaemonSetCount d : baseline.daemonSets()) {
            DaemonSetInfo cur = dsNow.remove(d.key());
            long share = d.onTargets().stream().filter(removedNames::contains).count();
            long expected = d.desired() - share;
            if (cur == null) {
                changes.add("DaemonSet " + d.key() + " is gone (baseline desired " + d.desired() + ")");
            } else if (cur.desired() != expected) {
                changes.add("DaemonSet " + d.key() + " desired " + cur.desired() + ", expected " + expected
                        + " (baseline " + d.desired() + " minus " + share + " removed target(s))");
            }
        }
        dsNow.keySet().forEach(k -> changes.add("DaemonSet " + k + " is new since the baseline"));

        // GPU totals
        Map<String, Long> expectedGpu = new TreeMap<>(baseline.gpuTotals());
        for (Baseline.Target t : removed) {
            t.gpuCapacity().forEach((k, v) -> expectedGpu.merge(k, -v, Long::sum));
        }
        expectedGpu.values().removeIf(v -> v == 0);
        Map<String, Long> gpuNow = new TreeMap<>(Gpu.totals(now.values()));
        gpuNow.values().removeIf(v -> v == 0);
        evid.put("gpuTotals", gpuNow.toString());
        if (!expectedGpu.equals(gpuNow)) {
            changes.add("GPU totals " + gpuNow + ", expected " + expectedGpu + " (baseline " + new TreeMap<>(baseline.gpuTotals())
                    + " minus removed targets)");
        }

        // MetalLB announcers
        if (!Objects.equals(baseline.metallb(), ev.metallbAnnouncers())) {
            changes.add("MetalLB announcers " + describe(ev.metallbAnnouncers()) + ", baseline " + describe(baseline.metallb()));
        }
        evid.put("metallb", describe(ev.metallbAnnouncers()));
        return new Check("d", "cluster unchanged since the baseline", changes.isEmpty() ? Verdict.PASS : Verdict.HOLD,
                changes, evid);
    }

    static Check notReRegistered(Baseline.Target t, NodeInfo n) {
        List<String> reasons = new ArrayList<>();
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("bootID", n.systemInfo().bootId() + " (baseline " + t.bootId() + ")");
        if (!Objects.equals(t.uid(), n.uid())) {
            reasons.add("the Node object was recreated after the baseline (uid " + t.uid() + " -> " + n.uid()
                    + "): the host registered again");
        }
        if (!Objects.equals(t.bootId(), n.systemInfo().bootId())) {
            reasons.add("bootID changed " + t.bootId() + " -> " + n.systemInfo().bootId()
                    + ": the host rebooted and reported to this cluster again (RKE2 still installed)");
        }
        if (!Objects.equals(t.nodeArgs(), n.nodeArgs())) {
            reasons.add("node-args annotation changed: the agent was started again with other arguments");
        }
        Map<String, String> roles = new TreeMap<>();
        n.labels().forEach((k, v) -> {
            if (k.startsWith(NodeInfo.ROLE_PREFIX)) {
                roles.put(k, v);
            }
        });
        if (!new TreeMap<>(t.roleLabels()).equals(roles)) {
            reasons.add("role labels changed " + new TreeMap<>(t.roleLabels()).keySet() + " -> " + roles.keySet());
        }
        return new Check("e", "not re-registered", reasons.isEmpty() ? Verdict.PASS : Verdict.FAIL, reasons, evid);
    }

    /** Current members from every endpoint; null when no etcd source was given. */
    static List<Baseline.EtcdMemberRef> currentEtcd(List<EtcdEndpointReport> reports) {
        if (reports.isEmpty()) {
            return null;
        }
        for (EtcdEndpointReport r : reports) {
            if (!r.ok()) {
                throw new IllegalStateException("etcd endpoint " + r.endpoint() + " failed: " + r.error());
            }
        }
        return BaselineCollector.etcdMembers(reports);
    }

    private static TreeSet<String> ids(List<Baseline.EtcdMemberRef> members) {
        TreeSet<String> out = new TreeSet<>();
        members.forEach(m -> out.add(m.id()));
        return out;
    }

    private static String host(String url) {
        try {
            return URI.create(url).getHost();
        } catch (IllegalArgumentException e) {
            return url;
        }
    }

    private static String describe(List<String> announcers) {
        return announcers == null ? "(MetalLB ServiceL2Status not served)" : announcers.toString();
    }

    static String human(Duration d) {
        return Durations.format(d);
    }
}
