package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Condition;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Taint;
import io.nodegate.time.Durations;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * NG101: Ready=Unknown. The kubelet went silent and the node lifecycle controller overwrote Ready; the object
 * cannot say whether the host is off, cut off, or reporting to another cluster.
 */
public final class NodeUnknownDetector implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG101;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        List<Finding> findings = new ArrayList<>();
        Map<String, LeaseInfo> leases = state.nodeLeasesByName();
        for (NodeInfo node : state.nodes()) {
            Condition ready = node.condition("Ready");
            if (ready == null || !"Unknown".equals(ready.status())) {
                continue;
            }
            List<Taint> unreachable = NodeFacts.taintsWithKey(node, Taint.UNREACHABLE);
            LeaseInfo lease = leases.get(node.name());
            String since = ready.lastTransitionTime() == null ? "at an unrecorded time"
                    : "since " + ready.lastTransitionTime() + " ("
                    + Durations.format(NodeFacts.age(state.now(), ready.lastTransitionTime())) + ")";
            String message = "Ready=Unknown " + since + ": the kubelet stopped reporting and the node lifecycle "
                    + "controller overwrote Ready (reason " + ready.reason() + "). "
                    + (unreachable.isEmpty() ? "No unreachable taint yet."
                    : "Unreachable taints: " + unreachable.stream()
                    .map(t -> t.effect() + " at " + (t.timeAdded() == null ? "an unrecorded time" : t.timeAdded()))
                    .collect(java.util.stream.Collectors.joining(", ")) + ".");
            Evidence evidence = NodeFacts.readyEvidence(ready)
                    .time("leaseRenewTime", lease == null ? null : lease.renewTime())
                    .put("unreachableTaints", NodeFacts.taintEvidence(unreachable))
                    .put("bootID", node.systemInfo().bootId());
            findings.add(new Finding(code(), Severity.WARNING, List.of(node.name()), message, evidence.build(),
                    "Power-off, a network cut and an agent restarted against another cluster all look like this. "
                            + "Check the host (ping, port 10250, the server in " + NodeFacts.agentConfig(node) + ") "
                            + "before treating the node as gone; Unknown is not evidence of cleanup."));
        }
        return findings;
    }
}
