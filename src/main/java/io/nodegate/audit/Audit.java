package io.nodegate.audit;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Condition;
import io.nodegate.model.CordonOwner;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** Runs detectors over one snapshot and assembles the audit report. No I/O: the same input gives the same report. */
public final class Audit {

    private Audit() {
    }

    public static AuditReport run(ClusterState state, AuditSettings settings) {
        return run(state, settings, Detectors.all());
    }

    public static AuditReport run(ClusterState state, AuditSettings settings, List<Detector> detectors) {
        List<Finding> findings = Detectors.run(detectors, state, settings);
        Map<String, LeaseInfo> leases = state.nodeLeasesByName();
        List<NodeRow> rows = state.nodes().stream().map(n -> row(state.now(), n, leases.get(n.name())))
                .sorted(Comparator.comparing(NodeRow::name)).toList();
        return new AuditReport(state.now(), state.source(), rows, findings, state.notes());
    }

    private static NodeRow row(Instant now, NodeInfo node, LeaseInfo lease) {
        Condition ready = node.condition("Ready");
        Instant renew = lease == null ? null : lease.renewTime();
        Instant heartbeat = ready == null ? null : ready.lastHeartbeatTime();
        List<String> ips = node.internalIps();
        CordonOwner owner = node.unschedulable() ? node.cordonOwner() : null;
        return new NodeRow(
                node.name(),
                ready == null ? null : ready.status(),
                ready == null ? null : ready.reason(),
                renew, since(renew, now),
                heartbeat, since(heartbeat, now),
                node.unschedulable(),
                List.copyOf(node.roles()),
                ips.isEmpty() ? null : String.join(",", ips),
                node.systemInfo().kubeletVersion(),
                node.systemInfo().bootId(),
                node.systemInfo().systemUuid(),
                node.created(), since(node.created(), now),
                owner == null ? null : owner.manager(),
                owner == null ? null : owner.time(),
                owner == null ? null : since(owner.time(), now),
                node.unschedulable() ? node.cordonReason() : null);
    }

    private static Duration since(Instant then, Instant now) {
        return then == null || now == null ? null : Duration.between(then, now);
    }
}
