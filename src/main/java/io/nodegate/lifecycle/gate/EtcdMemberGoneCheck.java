package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import io.nodegate.detect.controlplane.NodeArgs;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdIds;
import io.nodegate.model.EtcdMember;
import io.nodegate.model.NodeInfo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * (etcd) A server node, or any node an etcd member list names, is no longer an etcd member: no endpoint given with
 * --etcd-endpoint lists it. Seed 000's rule "server nodes: removing the etcd member comes first": the member is
 * removed by hand ({@code etcdctl member remove}) while the others keep quorum, and only then is the Node deleted.
 * Deleting the Node of a member that is still listed would make k3s/RKE2 remove it from the cluster at that moment
 * (k3s-io/k3s pkg/etcd/member_controller.go, onRemove), whatever state the cluster is in.
 *
 * <p>Every endpoint is asked on its own (an endpoint that does not answer makes the run INVALID before any check
 * runs), so a member still listed by one side of a split is seen; endpoints that answer for different clusters are
 * a HOLD. Without an etcd source the check says "not checked" and check (a) keeps a server from passing.
 */
final class EtcdMemberGoneCheck implements GateCheck {

    @Override
    public String id() {
        return "etcd";
    }

    @Override
    public String title() {
        return "etcd member removed";
    }

    @Override
    public boolean appliesTo(GateInput in) {
        NodeInfo node = in.evidence().target();
        if (node == null) {
            return false;
        }
        Baseline.Target target = in.baselineTarget();
        if (node.isServer() || EtcdMembership.marksEtcd(node) || NodeArgs.of(node).server()) {
            return true;
        }
        if (target != null && target.roleLabels().keySet().stream()
                .anyMatch(k -> NodeInfo.SERVER_ROLES.contains(k.substring(NodeInfo.ROLE_PREFIX.length())))) {
            return true;
        }
        EtcdMembership.Identity who = EtcdMembership.Identity.of(node, target);
        if (in.baseline().etcdMembers() != null && in.baseline().etcdMembers().stream()
                .anyMatch(m -> EtcdMembership.how(who, m.name(), m.peerUrls()) != null)) {
            return true;
        }
        return !listing(in).isEmpty();
    }

    @Override
    public Check evaluate(GateInput in) {
        NodeInfo node = in.evidence().target();
        List<EtcdEndpointReport> reports = in.evidence().etcd();
        Map<String, String> evid = new LinkedHashMap<>();
        if (reports.isEmpty()) {
            return new Check(id(), title(), Verdict.NOT_CHECKED, List.of("no --etcd-endpoint given: whether "
                    + node.name() + " is still an etcd member was not checked (check (a) keeps a server from"
                    + " passing without it)"), evid);
        }
        for (EtcdEndpointReport r : reports) {
            evid.put(r.endpoint(), r.members().size() + " member(s) "
                    + r.members().stream().map(m -> m.name() == null || m.name().isEmpty() ? EtcdIds.hex(m.id())
                    : m.name()).toList());
        }
        List<String> reasons = new ArrayList<>();
        Set<Long> clusters = new TreeSet<>();
        reports.stream().map(EtcdEndpointReport::clusterId).filter(c -> c != 0L).forEach(clusters::add);
        if (clusters.size() > 1) {
            reasons.add("the endpoints answer for " + clusters.size() + " different etcd clusters "
                    + clusters.stream().map(EtcdIds::hex).toList() + " (split brain?): find out which is the"
                    + " cluster before removing anything (nodegate etcd)");
        }
        List<String> listed = listing(in);
        if (!listed.isEmpty()) {
            List<String> fails = new ArrayList<>(listed);
            fails.addAll(reasons);
            return new Check(id(), title(), Verdict.FAIL, fails, evid);
        }
        evid.put("result", "no endpoint lists " + node.name());
        return result(Verdict.HOLD, reasons, evid);
    }

    /** One line per member (by ID) that an endpoint lists as this node, with the command that removes it. */
    private static List<String> listing(GateInput in) {
        NodeInfo node = in.evidence().target();
        EtcdMembership.Identity who = EtcdMembership.Identity.of(node, in.baselineTarget());
        Map<Long, String> how = new LinkedHashMap<>();
        Map<Long, Set<String>> where = new LinkedHashMap<>();
        Map<Long, EtcdMember> members = new LinkedHashMap<>();
        for (EtcdEndpointReport r : in.evidence().etcd()) {
            for (EtcdMember m : r.members()) {
                String by = EtcdMembership.how(who, m.name(), m.peerUrls());
                if (by != null) {
                    how.putIfAbsent(m.id(), by);
                    members.putIfAbsent(m.id(), m);
                    where.computeIfAbsent(m.id(), k -> new LinkedHashSet<>()).add(r.endpoint());
                }
            }
        }
        List<String> lines = new ArrayList<>();
        for (Map.Entry<Long, String> e : how.entrySet()) {
            EtcdMember m = members.get(e.getKey());
            lines.add(node.name() + " is still etcd " + (m.learner() ? "learner" : "member") + " "
                    + EtcdIds.hex(m.id()) + " (by " + e.getValue() + "), listed by " + where.get(e.getKey())
                    + ": remove the member first (etcdctl member remove " + EtcdIds.hex(m.id()) + "), then gate again");
        }
        return lines;
    }
}
