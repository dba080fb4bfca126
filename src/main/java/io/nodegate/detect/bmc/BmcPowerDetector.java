package io.nodegate.detect.bmc;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.GracePeriod;
import io.nodegate.model.ClusterState;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.BmcBinding;
import io.nodegate.model.bmc.NodePower;
import io.nodegate.model.bmc.PowerVerdict;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What NG304 and NG305 share: they run only on a snapshot that carries BMC readings, and judge each Node whose BMC
 * gives one verdict and whose Lease has a renewTime, against the grace period in force.
 */
abstract class BmcPowerDetector implements Detector {

    private final FindingCode code;
    private final PowerVerdict verdict;

    /** A detector of {@code code} judging the Nodes whose BMC gives {@code verdict} (running: NG304, off: NG305). */
    BmcPowerDetector(FindingCode code, PowerVerdict verdict) {
        this.code = code;
        this.verdict = verdict;
    }

    @Override
    public final FindingCode code() {
        return code;
    }

    /** The finding for one such Node, or null. */
    abstract Finding judge(NodeInfo node, NodePower power, LeaseInfo lease, GracePeriod grace, ClusterState state);

    @Override
    public final List<Finding> detect(ClusterState state, AuditSettings settings) {
        if (!state.bmc().read()) {
            return List.of();
        }
        GracePeriod grace = GracePeriod.resolve(state, settings);
        BmcBinding binding = BmcBinding.bind(state.nodes(), state.bmc());
        Map<String, LeaseInfo> leases = state.nodeLeasesByName();
        List<Finding> findings = new ArrayList<>();
        for (NodeInfo node : state.nodes()) {
            NodePower power = binding.of(node.name());
            LeaseInfo lease = leases.get(node.name());
            if (power != null && power.verdict() == verdict && lease != null && lease.renewTime() != null) {
                Finding f = judge(node, power, lease, grace, state);
                if (f != null) {
                    findings.add(f);
                }
            }
        }
        return findings;
    }
}
