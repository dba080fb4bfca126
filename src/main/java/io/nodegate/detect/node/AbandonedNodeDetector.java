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
import io.nodegate.time.Durations;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * NG170: cordoned, or not Ready, for longer than abandonedAfter. Unlike a Prometheus alert on retained samples,
 * this reads existing Node objects only, so a deleted node cannot keep it firing (in the GPU cluster's 13-node
 * hand-over, nodes cordoned for two weeks were noticed only by hand).
 */
public final class AbandonedNodeDetector implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG170;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        List<Finding> findings = new ArrayList<>();
        for (NodeInfo node : state.nodes()) {
            List<String> reasons = new ArrayList<>();
            Evidence evidence = Evidence.of();

            Instant cordonedSince = node.unschedulable() ? NodeFacts.cordonedSince(node).orElse(null) : null;
            if (cordonedSince != null) {
                Duration cordonAge = Duration.between(cordonedSince, state.now());
                if (cordonAge.compareTo(settings.abandonedAfter()) > 0) {
                    reasons.add("cordoned for " + Durations.format(cordonAge) + " (since " + cordonedSince + ")");
                    evidence.time("cordonedSince", cordonedSince).seconds("cordonedSeconds", cordonAge);
                }
            }
            Condition ready = node.condition("Ready");
            if (ready != null && !"True".equals(ready.status()) && ready.lastTransitionTime() != null) {
                Duration notReadyAge = Duration.between(ready.lastTransitionTime(), state.now());
                if (notReadyAge.compareTo(settings.abandonedAfter()) > 0) {
                    reasons.add("Ready=" + ready.status() + " for " + Durations.format(notReadyAge)
                            + " (since " + ready.lastTransitionTime() + ")");
                    evidence.put("readyStatus", ready.status()).time("notReadySince", ready.lastTransitionTime())
                            .seconds("notReadySeconds", notReadyAge);
                }
            }
            if (reasons.isEmpty()) {
                continue;
            }
            evidence.seconds("abandonedAfterSeconds", settings.abandonedAfter());
            findings.add(new Finding(code(), Severity.WARNING, List.of(node.name()),
                    "Node " + String.join(" and ", reasons) + ", longer than " + Durations.format(settings.abandonedAfter())
                            + ": nobody seems to own it.",
                    evidence.build(),
                    "Find its owner. To remove it, run the removal gate (nodegate gate) with the host owner's "
                            + "cleanup reply; to keep it, uncordon it or fix the host."));
        }
        return findings;
    }
}
