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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * NG204: etcd members and Node objects should pair up one to one. A member without a Node is a voter nobody
 * sees in {@code kubectl get nodes} (a deleted Node whose member was not removed counts against quorum); a
 * Node with the etcd role and no member is a server that is not part of the etcd cluster it claims (seed 001:
 * the forked server lost its etcd membership). Only when Nodes were read.
 */
public final class EtcdNodeMismatch implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG204;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        if (state.nodes().isEmpty() || EtcdView.sides(state.etcd()).isEmpty()) {
            return List.of();
        }
        List<Finding> out = new ArrayList<>();
        Set<String> matchedNodes = new HashSet<>();
        for (EtcdMember m : EtcdMemberNodes.allMembers(state.etcd())) {
            Optional<EtcdMemberNodes.Match> match = EtcdMemberNodes.match(m, state);
            if (match.isPresent()) {
                matchedNodes.add(match.get().node().name());
                continue;
            }
            Map<String, Object> evidence = new LinkedHashMap<>();
            evidence.put("member", EtcdView.label(m));
            evidence.put("peerUrls", m.peerUrls());
            evidence.put("expectedNode", EtcdView.nodeNameOf(m));
            out.add(new Finding(code(), Severity.WARNING, List.of(EtcdView.nodeNameOf(m)),
                    "etcd member " + EtcdView.label(m) + " has no Node: no Node is named " + EtcdView.nodeNameOf(m)
                            + " or has its peer address " + String.join(", ", m.peerUrls().stream()
                            .map(u -> EtcdView.host(u).orElse(u)).toList()) + " as InternalIP.",
                    evidence, "If the host is gone, remove the member (etcdctl member remove) so quorum counts only "
                    + "live voters; if it runs, find out why its Node is missing (deleted Node, renamed host)."));
        }
        for (NodeInfo n : state.nodes()) {
            if (n.roles().contains("etcd") && !matchedNodes.contains(n.name())) {
                Map<String, Object> evidence = new LinkedHashMap<>();
                evidence.put("node", n.name());
                evidence.put("roles", List.copyOf(n.roles()));
                evidence.put("internalIPs", n.internalIps());
                out.add(new Finding(code(), Severity.WARNING, List.of(n.name()),
                        "Node " + n.name() + " has the etcd role but no etcd member the queried endpoints list "
                                + "matches it (by name, " + EtcdMemberNodes.K3S_MEMBER_NAME_ANNOTATION
                                + " or InternalIP " + String.join(", ", n.internalIps()) + ").",
                        evidence, "Query this server's own etcd endpoint too: if it answers with another cluster "
                        + "ID it is a split brain (NG201); if it is down, its member was removed and it must "
                        + "rejoin cleanly with --server."));
            }
        }
        return out;
    }
}
