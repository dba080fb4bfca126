package io.nodegate.detect.controlplane;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdIds;
import io.nodegate.model.EtcdMember;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * NG206: endpoints of one cluster ID list different members. Member changes reach every member through raft,
 * so a lasting difference means an endpoint is behind (cut off) or was forked off with
 * {@code --force-new-cluster}, which keeps the cluster ID but drops the other members: when the disagreeing
 * endpoints also follow different leaders, it is a fork as dangerous as NG201 and is raised to critical.
 */
public final class EtcdMemberListsDisagree implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG206;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        List<Finding> out = new ArrayList<>();
        for (EtcdView.Side side : EtcdView.sides(state.etcd())) {
            Map<Set<Long>, List<EtcdEndpointReport>> views = new LinkedHashMap<>();
            for (EtcdEndpointReport r : side.endpoints()) {
                if (!EtcdView.hasMemberList(r)) {
                    continue;
                }
                Set<Long> ids = new TreeSet<>();
                r.members().forEach(m -> ids.add(m.id()));
                views.computeIfAbsent(ids, k -> new ArrayList<>()).add(r);
            }
            if (views.size() < 2) {
                continue;
            }
            Set<Long> union = new LinkedHashSet<>();
            side.allListedMembers().forEach(m -> union.add(m.id()));
            List<Map<String, Object>> viewEvidence = new ArrayList<>();
            List<String> parts = new ArrayList<>();
            Set<String> nodes = new TreeSet<>();
            // the view most endpoints share (then the longest) is the reference; the others are the odd ones out
            Set<Long> main = views.entrySet().stream()
                    .max(java.util.Comparator.<Map.Entry<Set<Long>, List<EtcdEndpointReport>>>comparingInt(e -> e.getValue().size())
                            .thenComparingInt(e -> e.getKey().size()))
                    .map(Map.Entry::getKey).orElseThrow();
            for (Map.Entry<Set<Long>, List<EtcdEndpointReport>> v : views.entrySet()) {
                List<EtcdMember> listed = v.getValue().get(0).members();
                List<String> missing = new ArrayList<>();
                for (long id : union) {
                    if (!v.getKey().contains(id)) {
                        missing.add(side.label(id));
                    }
                }
                Set<String> leaders = new LinkedHashSet<>();
                v.getValue().forEach(r -> leaders.add(r.status() == null ? "unknown"
                        : r.status().leader() == 0 ? "none" : side.label(r.status().leader())));
                List<String> eps = v.getValue().stream().map(EtcdEndpointReport::endpoint).toList();
                Map<String, Object> ev = new LinkedHashMap<>();
                ev.put("endpoints", eps);
                ev.put("members", EtcdView.labels(listed));
                ev.put("missing", missing);
                ev.put("leader", List.copyOf(leaders));
                viewEvidence.add(ev);
                parts.add(String.join(", ", eps) + " list " + listed.size() + " ("
                        + String.join(", ", listed.stream().map(EtcdView::name).toList()) + ")"
                        + (missing.isEmpty() ? "" : ", missing " + String.join(", ", missing))
                        + ", leader " + String.join("/", leaders));
                if (v.getKey().equals(main)) {
                    continue;
                }
                v.getValue().forEach(r -> EtcdView.answeringMemberId(r).ifPresent(id -> side.allListedMembers().stream()
                        .filter(m -> m.id() == id).forEach(m -> nodes.add(EtcdView.nodeNameOf(m)))));
            }
            Set<Long> leaders = new LinkedHashSet<>();
            views.values().forEach(eps -> eps.stream().filter(r -> r.status() != null && r.status().leader() != 0)
                    .forEach(r -> leaders.add(r.status().leader())));
            boolean forked = leaders.size() > 1;
            Map<String, Object> evidence = new LinkedHashMap<>();
            evidence.put("clusterId", EtcdIds.hex(side.clusterId()));
            evidence.put("views", viewEvidence);
            evidence.put("differentLeaders", forked);
            String message = "etcd endpoints of cluster " + EtcdIds.hex(side.clusterId()) + " list different members: "
                    + String.join("; ", parts) + "."
                    + (forked ? " They also follow different leaders: this cluster ID is forked (one side started "
                    + "with --force-new-cluster or restored from a snapshot) and both sides accept writes." : "");
            String hint = forked
                    ? "Treat as split brain: stop the smaller side, keep the side the Nodes and workloads use, remove "
                    + "the forked member from it and rejoin that host cleanly."
                    : "Re-run in a minute: a member change in flight settles within seconds. If it stays, the "
                    + "endpoint with the odd list is cut off from its peers: check its peer port (2380) and logs.";
            out.add(new Finding(code(), forked ? Severity.CRITICAL : Severity.WARNING, List.copyOf(nodes),
                    message, evidence, hint));
        }
        return out;
    }
}
