package io.nodegate.detect.controlplane;

import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdMember;
import io.nodegate.model.NodeInfo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Pairs etcd members with Node objects. k3s/RKE2 name a member {@code <node>-<8 hex>} and record it in the
 * Node annotation {@code etcd.k3s.cattle.io/node-name}; plain etcd names members freely, so the peer URL host is
 * also matched against the Node's InternalIP (and {@code etcd.k3s.cattle.io/node-address}).
 */
final class EtcdMemberNodes {

    static final String K3S_MEMBER_NAME_ANNOTATION = "etcd.k3s.cattle.io/node-name";
    static final String K3S_MEMBER_ADDRESS_ANNOTATION = "etcd.k3s.cattle.io/node-address";

    private EtcdMemberNodes() {
    }

    record Match(NodeInfo node, String how) {
    }

    /** Every distinct member (by cluster ID and member ID) any answering endpoint lists. */
    static List<EtcdMember> allMembers(List<EtcdEndpointReport> reports) {
        Map<String, EtcdMember> byKey = new LinkedHashMap<>();
        for (EtcdView.Side side : EtcdView.sides(reports)) {
            side.allListedMembers().forEach(m -> byKey.putIfAbsent(side.clusterId() + "/" + m.id(), m));
        }
        return new ArrayList<>(byKey.values());
    }

    static Optional<Match> match(EtcdMember member, ClusterState state) {
        String name = member.name() == null ? "" : member.name();
        if (!name.isEmpty()) {
            for (NodeInfo n : state.nodes()) {
                if (name.equals(n.annotation(K3S_MEMBER_NAME_ANNOTATION))) {
                    return Optional.of(new Match(n, "annotation " + K3S_MEMBER_NAME_ANNOTATION));
                }
            }
            for (NodeInfo n : state.nodes()) {
                if (n.name().equals(name)) {
                    return Optional.of(new Match(n, "member name = node name"));
                }
            }
            String stripped = EtcdView.nodeNameOf(name);
            if (!stripped.equals(name)) {
                for (NodeInfo n : state.nodes()) {
                    if (n.name().equals(stripped)) {
                        return Optional.of(new Match(n, "member name = <node>-<8 hex>"));
                    }
                }
            }
        }
        for (String peer : member.peerUrls()) {
            Optional<String> host = EtcdView.host(peer);
            if (host.isEmpty()) {
                continue;
            }
            for (NodeInfo n : state.nodes()) {
                String annotated = n.annotation(K3S_MEMBER_ADDRESS_ANNOTATION);
                if (n.internalIps().contains(host.get()) || host.get().equals(annotated)) {
                    return Optional.of(new Match(n, "peer URL host " + host.get() + " = node InternalIP"));
                }
            }
        }
        return Optional.empty();
    }
}
