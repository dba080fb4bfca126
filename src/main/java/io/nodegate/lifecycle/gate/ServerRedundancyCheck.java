package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import io.nodegate.detect.controlplane.NodeArgs;
import io.nodegate.detect.controlplane.RoleLayers;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.ApiEndpoints;
import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdIds;
import io.nodegate.model.NodeInfo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * (redundancy) What removing a server node leaves, per role, counted as `nodegate redundancy` counts them
 * ({@link RoleLayers}): etcd voters with their quorum, kube-apiservers (the default/kubernetes endpoints), the
 * servers agents register with (k3s/RKE2 supervisors), and kube-scheduler / kube-controller-manager candidates.
 * Seed 003: "three control-plane nodes" were etcd 3 but apiservers 2, so removing the wrong one left one apiserver.
 * Removing the last of a role is FAIL, and so is an etcd cluster without a leader (quorum already lost: nothing may be
 * removed then). The target's address still among the apiserver endpoints is a HOLD: an apiserver there renewed its
 * endpoint lease recently, so the host is not cleaned up.
 */
final class ServerRedundancyCheck implements GateCheck {

    @Override
    public String id() {
        return "redundancy";
    }

    @Override
    public String title() {
        return "what removing it leaves";
    }

    /** A server now or at the baseline: a control-plane/etcd/master role, or k3s/RKE2 started as server. */
    static boolean isServer(NodeInfo node, Baseline.Target atBaseline) {
        if (node.isServer() || NodeArgs.of(node).server()) {
            return true;
        }
        return atBaseline != null && atBaseline.roleLabels().keySet().stream()
                .anyMatch(k -> NodeInfo.SERVER_ROLES.contains(k.substring(NodeInfo.ROLE_PREFIX.length())));
    }

    @Override
    public boolean appliesTo(GateInput in) {
        return in.evidence().target() != null && isServer(in.evidence().target(), in.baselineTarget());
    }

    @Override
    public Check evaluate(GateInput in) {
        GateEvidence ev = in.evidence();
        NodeInfo node = ev.target();
        EtcdMembership.Identity who = EtcdMembership.Identity.of(node, in.baselineTarget());
        ApiEndpoints endpoints = ev.apiEndpoints() == null ? ApiEndpoints.NONE : ev.apiEndpoints();
        TreeSet<String> ownAddresses = new TreeSet<>(who.addresses());
        ApiEndpoints endpointsAfter = new ApiEndpoints(endpoints.addresses().stream()
                .filter(a -> !ownAddresses.contains(a)).toList(), endpoints.port());
        List<EtcdEndpointReport> etcdAfter = ev.etcd().stream().map(r -> new EtcdEndpointReport(r.endpoint(),
                r.status(), r.memberListClusterId(), r.members().stream()
                .filter(m -> EtcdMembership.how(who, m.name(), m.peerUrls()) == null).toList(), r.error())).toList();
        RoleLayers before = RoleLayers.of(state(ev, ev.nodes(), endpoints, ev.etcd()));
        RoleLayers after = RoleLayers.of(state(ev, ev.nodes().stream().filter(n -> !n.name().equals(node.name()))
                .toList(), endpointsAfter, etcdAfter));

        List<String> fails = new ArrayList<>();
        List<String> holds = new ArrayList<>();
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("etcd voters", etcdLine(before.etcdVoters(), after.etcdVoters()));
        lastOne(fails, node, "etcd voter", before.etcdVoters(), after.etcdVoters());
        if (ev.etcd().isEmpty()) {
            evid.put("etcd quorum", "not checked (no --etcd-endpoint)");
        } else {
            TreeSet<String> leaders = new TreeSet<>();
            ev.etcd().stream().filter(r -> r.status() != null && r.status().leader() != 0L)
                    .forEach(r -> leaders.add(EtcdIds.hex(r.status().leader())));
            boolean statusRead = ev.etcd().stream().anyMatch(r -> r.status() != null);
            if (leaders.isEmpty() && statusRead) {
                fails.add("no etcd endpoint reports a leader: the cluster has no quorum now, and removing a server"
                        + " cannot restore it (nodegate etcd shows each endpoint's view)");
            }
            evid.put("etcd quorum", leaders.isEmpty() ? (statusRead ? "no leader" : "leader not reported")
                    : "leader " + String.join(", ", leaders));
        }
        if (ev.apiEndpoints() == null) {
            evid.put("kube-apiserver", "not read");
        } else {
            evid.put("kube-apiserver", line(before.apiservers(), after.apiservers()));
            lastOne(fails, node, "kube-apiserver", before.apiservers(), after.apiservers());
            List<String> stillAdvertised = endpoints.addresses().stream().filter(ownAddresses::contains).toList();
            if (!stillAdvertised.isEmpty()) {
                holds.add(node.name() + "'s address " + stillAdvertised + " is still a default/kubernetes endpoint: a"
                        + " kube-apiserver there renewed its endpoint lease recently (an apiserver that stops drops out"
                        + " within about 15 s), so the host is not cleaned up");
            }
        }
        evid.put("supervisors (servers)", before.serverNodes().size() + " -> " + after.serverNodes().size() + " "
                + after.serverNodes().stream().map(RoleLayers.ServerNode::name).toList());
        if (after.serverNodes().isEmpty()) {
            fails.add("removing " + node.name() + " leaves no server: agents would have no supervisor to register"
                    + " with and nothing would run the control plane");
        }
        evid.put("kube-scheduler", line(before.scheduler(), after.scheduler()));
        lastOne(fails, node, "kube-scheduler candidate", before.scheduler(), after.scheduler());
        evid.put("kube-controller-manager", line(before.controllerManager(), after.controllerManager()));
        lastOne(fails, node, "kube-controller-manager candidate", before.controllerManager(), after.controllerManager());
        if (!fails.isEmpty()) {
            fails.addAll(holds);
            return new Check(id(), title(), Verdict.FAIL, fails, evid);
        }
        return result(Verdict.HOLD, holds, evid);
    }

    /** FAIL when the role had members and has none without this node (nothing left to count is none left). */
    private static void lastOne(List<String> fails, NodeInfo node, String role, RoleLayers.Layer before,
                                RoleLayers.Layer after) {
        if (before.known() && before.count() > 0 && (!after.known() || after.count() == 0)) {
            fails.add("removing " + node.name() + " leaves no " + role + " (it is the last one)");
        }
    }

    private static String line(RoleLayers.Layer before, RoleLayers.Layer after) {
        if (!before.known()) {
            return "unknown (" + before.basis() + ")";
        }
        return before.count() + " -> " + (after.known() ? after.count() : 0) + " " + after.members();
    }

    private static String etcdLine(RoleLayers.Layer before, RoleLayers.Layer after) {
        if (!before.known()) {
            return "unknown (" + before.basis() + ")";
        }
        if (!after.known()) {
            return before.count() + " -> 0";
        }
        String quorum = after.count() == 0 ? ""
                : " (quorum " + RoleLayers.quorum(after.count()) + ", tolerates " + after.tolerates() + " failure"
                + (after.tolerates() == 1 ? "" : "s") + ")";
        return before.count() + " -> " + after.count() + quorum + " " + after.members() + "; " + after.basis();
    }

    private static ClusterState state(GateEvidence ev, List<NodeInfo> nodes, ApiEndpoints endpoints,
                                      List<EtcdEndpointReport> etcd) {
        return ClusterState.builder(ev.observedAt(), "gate evidence").nodes(nodes).apiEndpoints(endpoints).etcd(etcd)
                .build();
    }
}
