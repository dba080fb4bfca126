package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Condition;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Taint;

import java.util.ArrayList;
import java.util.List;

/** NG102: Ready=False. The kubelet is alive and reports a problem of its own (runtime, network, shutdown). */
public final class NodeNotReadyDetector implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG102;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        List<Finding> findings = new ArrayList<>();
        for (NodeInfo node : state.nodes()) {
            Condition ready = node.condition("Ready");
            if (ready == null || !"False".equals(ready.status())) {
                continue;
            }
            String message = "Ready=False: the kubelet is running and reports a problem"
                    + (ready.reason() == null ? "" : " (" + ready.reason() + ")")
                    + (ready.message() == null || ready.message().isBlank() ? "" : ": " + ready.message());
            Evidence evidence = NodeFacts.readyEvidence(ready)
                    .put("notReadyTaints", NodeFacts.taintEvidence(NodeFacts.taintsWithKey(node, Taint.NOT_READY)));
            findings.add(new Finding(code(), Severity.WARNING, List.of(node.name()), message, evidence.build(),
                    "The host is reachable by the kubelet's own account: read `journalctl -u rke2-agent` "
                            + "(k3s: k3s-agent) and the container runtime and CNI status on that host."));
        }
        return findings;
    }
}
