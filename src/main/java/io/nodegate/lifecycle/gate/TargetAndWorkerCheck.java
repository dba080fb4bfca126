package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.NodeInfo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * (a) The node is one of the baseline's targets, and either a worker or a server that may be judged. Seed 000's
 * procedure: "server nodes: removing the etcd member comes first". Deleting the Node of a live etcd member makes
 * k3s's member controller remove that member (pkg/etcd/member_controller.go, onRemove), so a server passes only
 * on evidence that its member is already gone: the etcd member lists, read with --etcd-endpoint, which
 * {@link EtcdMemberGoneCheck} judges (and {@link ServerRedundancyCheck} what removing it leaves). Without an etcd
 * source this check keeps the old rule: a server role, an etcd annotation or a baseline membership is FAIL.
 */
final class TargetAndWorkerCheck implements GateCheck {

    @Override
    public String id() {
        return "a";
    }

    @Override
    public String title() {
        return "target and role";
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
        if (!ev.etcd().isEmpty()) {
            // the member lists were read: [etcd] judges membership now (a member removed since the baseline is the
            // point of "etcd first"), and [redundancy] what removing a server leaves
            evid.put("etcdMembersChecked", "by [etcd] (" + ev.etcd().size() + " endpoint(s))");
            if (!serverRoles.isEmpty()) {
                evid.put("server", serverRoles + ": judged by [etcd] and [redundancy]");
            }
            return result(Verdict.FAIL, reasons, evid);
        }
        if (!serverRoles.isEmpty()) {
            reasons.add("has server role(s) " + serverRoles + ": a server node passes only once its etcd member is"
                    + " gone. Remove the member first (etcdctl member remove <id>), then gate again with"
                    + " --etcd-endpoint of every remaining server");
        }
        for (String key : EtcdMembership.MEMBER_NAME_ANNOTATIONS) {
            if (node.annotation(key) != null) {
                reasons.add("annotation " + key + "=" + node.annotation(key) + " marks an etcd member; give"
                        + " --etcd-endpoint to show the member is gone");
            }
        }
        if (baseline.etcdMembers() != null) {
            EtcdMembership.Identity who = EtcdMembership.Identity.of(node, target);
            for (Baseline.EtcdMemberRef m : baseline.etcdMembers()) {
                String how = EtcdMembership.how(who, m.name(), m.peerUrls());
                if (how != null) {
                    reasons.add("was etcd member " + m.id() + " at the baseline (by " + how + "); give --etcd-endpoint"
                            + " to show it is gone");
                }
            }
        }
        evid.put("etcdMembersChecked", baseline.etcdMembers() == null ? "no (no etcd source)"
                : "at the baseline only (" + baseline.etcdMembers().size() + "); no etcd source now");
        return result(Verdict.FAIL, reasons, evid);
    }
}
