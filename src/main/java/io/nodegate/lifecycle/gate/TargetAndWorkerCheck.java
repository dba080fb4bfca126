package io.nodegate.lifecycle.gate;

import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.Condition;
import io.nodegate.model.NodeInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/** (a) The node is one of the baseline's targets and a worker: no server role, not an etcd member. */
final class TargetAndWorkerCheck implements GateCheck {

    @Override
    public String id() {
        return "a";
    }

    @Override
    public String title() {
        return "target and worker";
    }

    @Override
    public boolean appliesTo(GateInput in) {
        return true;
    }

    @Override
    public Check evaluate(GateInput in) {
        Baseline baseline = in.baseline();
        GateEvidence ev = in.evidence();
        Baseline.Target target = in.baselineTarget();
        NodeInfo node = ev.target();
        if (node == null) {
            return new Check(id(), title(), Verdict.FAIL,
                    List.of("Node " + in.request().node() + " not found (NotFound): nothing to delete; already removed?"),
                    Map.of());
        }
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
        List<Baseline.EtcdMemberRef> now = GateDecision.currentEtcd(ev.etcd());
        if (now != null) {
            members.addAll(now);
        }
        for (Baseline.EtcdMemberRef m : members) {
            boolean byName = m.name() != null && (m.name().equals(node.name()) || m.name().startsWith(node.name() + "-"));
            String byPeer = m.peerUrls().stream().filter(u -> ips.contains(GateDecision.host(u))).findFirst().orElse(null);
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
        return result(Verdict.FAIL, reasons, evid);
    }
}
