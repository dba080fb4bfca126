package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.GracePeriod;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.LeaseBatches;
import io.nodegate.model.LeaseBatches.Stop;
import io.nodegate.time.Durations;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * NG103: several node Leases stopped renewing within a short window of each other. From the cluster a batch
 * shutdown and a batch move to another cluster look identical (seed 000: gpu-a07..a10 stopped within 12 s and
 * had moved to cluster B), so the finding proves a common operation, never a cleanup.
 */
public final class BatchSilenceDetector implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG103;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        GracePeriod grace = GracePeriod.resolve(state, settings);
        Set<String> nodeNames = state.nodes().stream().map(n -> n.name()).collect(Collectors.toSet());
        List<Stop> silent = state.nodeLeases().stream()
                .filter(l -> nodeNames.contains(l.name()) && l.renewTime() != null)
                .filter(l -> Duration.between(l.renewTime(), state.now()).compareTo(grace.value()) > 0)
                .map(l -> new Stop(l.name(), l.renewTime()))
                .toList();
        List<List<Stop>> groups = LeaseBatches.group(silent, settings.batchWindow());

        List<Finding> findings = new ArrayList<>();
        for (List<Stop> group : groups) {
            if (group.size() < 2) {
                continue;
            }
            Instant first = group.get(0).renewTime();
            Instant last = group.get(group.size() - 1).renewTime();
            Duration spread = Duration.between(first, last);
            Map<String, Object> renewTimes = new LinkedHashMap<>();
            group.forEach(s -> renewTimes.put(s.node(), s.renewTime().toString()));
            String message = group.size() + " node Leases stopped renewing within " + Durations.format(spread)
                    + " of each other (" + first + " .. " + last + ", silent for "
                    + Durations.format(Duration.between(last, state.now())) + "). This is the shape of a batch "
                    + "shutdown or a batch move to another cluster; from this cluster the two look the same, "
                    + "and it proves no cleanup of the hosts.";
            Evidence evidence = Evidence.of()
                    .put("leaseRenewTimes", renewTimes)
                    .time("firstStop", first)
                    .time("lastStop", last)
                    .seconds("spreadSeconds", spread)
                    .seconds("batchWindowSeconds", settings.batchWindow())
                    .seconds("gracePeriodSeconds", grace.value())
                    .put("gracePeriodSource", grace.source());
            findings.add(new Finding(code(), Severity.WARNING, group.stream().map(Stop::node).toList(),
                    message, evidence.build(),
                    "Ask the host owners what ran at " + first + ": a shutdown and an agent restarted against "
                            + "another cluster leave the same trace here. Do not accept this stop time as a "
                            + "cleanup time in the removal gate."));
        }
        return findings;
    }
}
