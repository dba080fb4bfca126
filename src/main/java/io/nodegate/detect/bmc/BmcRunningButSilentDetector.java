package io.nodegate.detect.bmc;

import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.GracePeriod;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.bmc.NodePower;
import io.nodegate.model.bmc.PowerVerdict;
import io.nodegate.time.Durations;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * NG304: the host's BMC says PowerState On while its Lease has been silent past the grace period. From the cluster,
 * power-off, a network cut and a restart against another cluster look the same (seed 000: gpu-a07..a09 looked shut
 * down for six days while they served cluster B); the BMC tells them apart: the host is up. Critical when the Node is
 * on its way out ({@link RemovalTargets}). Pure: the BMC readings are part of the snapshot.
 */
public final class BmcRunningButSilentDetector extends BmcPowerDetector {

    public BmcRunningButSilentDetector() {
        super(FindingCode.NG304, PowerVerdict.RUNNING);
    }

    @Override
    Finding judge(NodeInfo node, NodePower power, LeaseInfo lease, GracePeriod grace, ClusterState state) {
        Instant readAt = power.reading().readAt();
        Instant renewed = lease.renewTime();
        // silent when the BMC said On (a reading older than the silence says nothing about it), and still now
        if (renewed.plus(grace.value()).isAfter(readAt) || renewed.plus(grace.value()).isAfter(state.now())) {
            return null;
        }
        Optional<String> target = RemovalTargets.of(node, state);
        Duration silent = Duration.between(renewed, state.now());
        String message = "BMC " + power.bmc() + " reports PowerState On for this host (" + power.system().path()
                + ", UUID " + power.system().uuid() + ", read at " + readAt + "), while its Lease has been silent "
                + "since " + renewed + " (" + Durations.format(silent) + "; grace period "
                + Durations.format(grace.value()) + "). The host is up: a network cut, a hung kubelet, or another "
                + "cluster. Not a shutdown."
                + target.map(t -> " It is " + t + ": its silence must not be read as the host being gone.")
                .orElse("");
        Evidence evidence = Evidence.of()
                .put("bmc", power.bmc())
                .put("system", power.system().path())
                .put("uuid", power.system().uuid())
                .put("powerState", power.system().powerState())
                .put("bootProgress", power.system().bootProgress())
                .time("readAt", readAt)
                .time("leaseRenewTime", renewed)
                .seconds("leaseSilentSeconds", silent)
                .seconds("gracePeriodSeconds", grace.value())
                .put("gracePeriodSource", grace.source())
                .put("ready", node.readyStatus())
                .put("target", target.orElse(null))
                .put("source", power.source());
        return new Finding(code(), target.isPresent() ? Severity.CRITICAL : Severity.WARNING,
                List.of(node.name()), message, evidence.build(),
                "Find out which before anything is deleted: `nodegate probe kubelet " + node.name() + "` (another "
                        + "cluster's CA answering is NG303), the host's console through the BMC, or the host's "
                        + "owner. A running host keeps its RKE2 config: if it is meant to leave, clean it "
                        + "(rke2-uninstall.sh) first; the gate FAILs while the BMC says On and the Lease is silent.");
    }
}
