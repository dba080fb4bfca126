package io.nodegate.detect.controlplane;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdMember;
import io.nodegate.model.EtcdStatus;
import io.nodegate.model.NodeInfo;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Hand-built etcd answers and Nodes for detector edge cases. Member i lives at 10.0.0.i. */
final class EtcdFixtures {

    private EtcdFixtures() {
    }

    static EtcdMember member(long id, String name) {
        return new EtcdMember(id, name, List.of("https://10.0.0." + id + ":2380"),
                List.of("https://10.0.0." + id + ":2379"), false);
    }

    static EtcdMember learner(long id, String name) {
        return new EtcdMember(id, name, List.of("https://10.0.0." + id + ":2380"),
                List.of("https://10.0.0." + id + ":2379"), true);
    }

    /** What member {@code self} answers: its cluster ID, leader and member list. */
    static EtcdEndpointReport answer(long clusterId, long self, long leader, EtcdMember... members) {
        boolean learner = Arrays.stream(members).anyMatch(m -> m.id() == self && m.learner());
        return new EtcdEndpointReport("https://10.0.0." + self + ":2379",
                new EtcdStatus(clusterId, self, leader, 7, 1000 + self, "3.5.17", 4_000_000, learner),
                clusterId, List.of(members), null);
    }

    static EtcdEndpointReport down(long self) {
        return EtcdEndpointReport.failed("https://10.0.0." + self + ":2379", "connect timed out after 5s");
    }

    static NodeInfo node(String name, String ip, String... roles) {
        Map<String, String> labels = new HashMap<>();
        for (String r : roles) {
            labels.put(NodeInfo.ROLE_PREFIX + r, "true");
        }
        return new NodeInfo(name, "uid-" + name, "1", Instant.parse("2026-01-01T00:00:00Z"), labels, Map.of(),
                List.of(), false, null, List.of(new NodeInfo.NodeAddress("InternalIP", ip)), List.of(), null, Map.of());
    }

    static ClusterState state(List<NodeInfo> nodes, EtcdEndpointReport... reports) {
        return ClusterState.builder(Instant.parse("2026-11-29T00:00:00Z"), "fixture").nodes(nodes)
                .etcd(List.of(reports)).build();
    }

    static List<Finding> run(Detector d, ClusterState s) {
        return d.detect(s, AuditSettings.DEFAULTS);
    }

    static List<Finding> all(ClusterState s) {
        List<Finding> out = new ArrayList<>();
        Detectors.in(Scope.ETCD, Detector.class).forEach(d -> out.addAll(d.detect(s, AuditSettings.DEFAULTS)));
        return out;
    }
}
