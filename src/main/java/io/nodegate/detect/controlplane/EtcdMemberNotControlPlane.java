package io.nodegate.detect.controlplane;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdMember;
import io.nodegate.model.NodeInfo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * NG205: an etcd member running on a Node without any server role (control-plane, etcd, master). A worker
 * joined with a server token becomes an etcd voter if rke2-server/k3s server is ever started on it; deleting
 * such a "worker" with the removal gate would remove a live voter. An etcd-only Node (k3s/RKE2 with the
 * apiserver disabled, as on the home lab's slow server that only votes in etcd) carries the etcd role and is fine.
 */
public final class EtcdMemberNotControlPlane implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG205;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        if (state.nodes().isEmpty()) {
            return List.of();
        }
        List<Finding> out = new ArrayList<>();
        for (EtcdMember m : EtcdMemberNodes.allMembers(state.etcd())) {
            EtcdMemberNodes.Match match = EtcdMemberNodes.match(m, state).orElse(null);
            if (match == null) {
                continue;
            }
            NodeInfo node = match.node();
            if (node.isServer()) {
                continue;
            }
            Map<String, Object> evidence = new LinkedHashMap<>();
            evidence.put("member", EtcdView.label(m));
            evidence.put("learner", m.learner());
            evidence.put("node", node.name());
            evidence.put("matchedBy", match.how());
            evidence.put("roles", List.copyOf(node.roles()));
            evidence.put("nodeArgs", node.nodeArgs());
            out.add(new Finding(code(), Severity.CRITICAL, List.of(node.name()),
                    "etcd member " + EtcdView.label(m) + (m.learner() ? " [learner]" : "") + " runs on Node "
                            + node.name() + " (" + match.how() + "), which has no control-plane/etcd/master role"
                            + (node.roles().isEmpty() ? "" : " (roles: " + String.join(",", node.roles()) + ")")
                            + ": a worker started as a server.",
                    evidence, "Do not remove this node as a worker. Decide whether it should be a server; if not, "
                    + "remove the etcd member first (etcdctl member remove), then reinstall it as an agent with an "
                    + "agent-token so it cannot become a server again."));
        }
        return out;
    }
}
