package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInfo;
import io.nodegate.time.Durations;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * NG111: a recent Node with no role label and no cordon, in a cluster whose nodes otherwise carry roles. A host
 * registering under a new name gets nothing a human set (seed 000: new-01..03 took 18 CI pods at once and no alert
 * fired). In a cluster without role labels at all, a missing one means nothing, so it stays silent.
 *
 * <p>Only a role beyond the servers' own ({@link NodeInfo#SERVER_ROLES}: control-plane, etcd, master) shows that
 * this cluster labels its workers. RKE2 and k3s label their servers with those themselves, and nothing labels an
 * agent: NodeRestriction refuses node-role.kubernetes.io labels to a kubelet. So in a cluster where only the servers
 * carry roles, every agent is bare by construction, and a fresh one is no warning (found on a real control plane:
 * every agent of a freshly started RKE2-shaped cluster was NG111).
 */
public final class BareNewcomerDetector implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG111;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        // counted once: a newcomer has no role itself, so "other nodes with roles" is every node with one
        int withRoles = (int) state.nodes().stream().filter(n -> !n.roles().isEmpty()).count();
        if (state.nodes().stream().noneMatch(BareNewcomerDetector::labelledByPeople)) {
            return List.of();
        }
        List<Finding> findings = new ArrayList<>();
        for (NodeInfo node : state.nodes()) {
            if (node.created() == null || !node.roles().isEmpty() || node.unschedulable()) {
                continue;
            }
            Duration age = Duration.between(node.created(), state.now());
            if (age.compareTo(settings.newcomerWindow()) > 0) {
                continue;
            }
            String message = "Created " + node.created() + " (" + Durations.format(age) + " ago) with no "
                    + NodeInfo.ROLE_PREFIX + "* label and no cordon, while " + withRoles
                    + " other node(s) carry role labels: workloads without a role selector can land on it now.";
            Evidence evidence = Evidence.of()
                    .time("created", node.created())
                    .seconds("ageSeconds", age)
                    .seconds("newcomerWindowSeconds", settings.newcomerWindow())
                    .put("unschedulable", node.unschedulable())
                    .put("internalIPs", node.internalIps())
                    .put("systemUUID", node.systemInfo().systemUuid())
                    .put("nodesWithRoles", withRoles);
            findings.add(new Finding(code(), Severity.WARNING, List.of(node.name()), message, evidence.build(),
                    "Cordon it until someone claims the host (kubectl cordon " + node.name() + "); compare its "
                            + "systemUUID with older or deleted nodes (kube_node_info system_uuid). If it is "
                            + "expected, give it its role label."));
        }
        return findings;
    }

    /** A role other than the ones RKE2, k3s and kubeadm give their servers themselves: somebody labels nodes here. */
    private static boolean labelledByPeople(NodeInfo node) {
        for (String role : node.roles()) {
            if (!NodeInfo.SERVER_ROLES.contains(role)) {
                return true;
            }
        }
        return false;
    }
}
