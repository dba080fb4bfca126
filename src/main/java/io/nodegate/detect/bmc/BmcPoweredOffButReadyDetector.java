package io.nodegate.detect.bmc;

import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.GracePeriod;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Condition;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.bmc.NodePower;
import io.nodegate.model.bmc.PowerVerdict;
import io.nodegate.time.Durations;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * NG305: the BMC bound to this Node by UUID says PowerState Off, yet the Node is Ready and its Lease renews. A host
 * that is off cannot renew a Lease, so either the binding is wrong (cloned VMs or a replaced board carrying another
 * machine's UUID) or the BMC is (a hung BMC reporting a stale state). Distrust both: the same binding would later
 * give "powered off" as gate evidence for the wrong machine. Pure.
 */
public final class BmcPoweredOffButReadyDetector extends BmcPowerDetector {

    public BmcPoweredOffButReadyDetector() {
        super(FindingCode.NG305, PowerVerdict.POWERED_OFF);
    }

    @Override
    Finding judge(NodeInfo node, NodePower power, LeaseInfo lease, GracePeriod grace, ClusterState state) {
        Condition ready = node.condition("Ready");
        if (!node.isReady()) {
            return null;
        }
        Instant readAt = power.reading().readAt();
        Duration renewAge = Duration.between(lease.renewTime(), state.now());
        // Ready since before the reading and renewing now: the host ran while the BMC said Off (a host that was
        // off and came back since would have gone Unknown in between, and Ready would have moved)
        boolean readySinceBefore = ready.lastTransitionTime() == null
                || !ready.lastTransitionTime().isAfter(readAt.minus(grace.value()));
        if (renewAge.compareTo(grace.value()) > 0 || !readySinceBefore) {
            return null;
        }
        String message = "BMC " + power.bmc() + " reports PowerState Off for the system with this Node's systemUUID ("
                + power.system().path() + ", UUID " + power.system().uuid() + ", read at " + readAt + "), yet the "
                + "Node is Ready" + (ready.lastTransitionTime() == null ? "" : " (since "
                + ready.lastTransitionTime() + ")") + " and its Lease was renewed " + Durations.format(renewAge)
                + " ago. A powered-off host cannot renew a Lease: the binding or the BMC is wrong; distrust both.";
        Evidence evidence = Evidence.of()
                .put("bmc", power.bmc())
                .put("system", power.system().path())
                .put("uuid", power.system().uuid())
                .put("powerState", power.system().powerState())
                .time("readAt", readAt)
                .time("readyLastTransitionTime", ready.lastTransitionTime())
                .time("leaseRenewTime", lease.renewTime())
                .seconds("leaseRenewAgeSeconds", renewAge)
                .put("systemUUID", node.systemInfo().systemUuid())
                .put("source", power.source());
        return new Finding(code(), Severity.CRITICAL, List.of(node.name()), message, evidence.build(),
                "Check the binding: another machine may carry this UUID (cloned VMs, a replaced board; NG110 shows "
                        + "two Nodes with one systemUUID), or this BMC may manage another host than the inventory "
                        + "says. Check the BMC: a hung BMC can report a stale PowerState (reset the BMC, not the "
                        + "host). Until it is explained, nothing this BMC says about this host counts as evidence.");
    }
}
