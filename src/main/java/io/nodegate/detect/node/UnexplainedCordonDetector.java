package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.CordonOwner;
import io.nodegate.model.NodeInfo;
import io.nodegate.time.Durations;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * NG171: a Node cordoned for more than a day with nothing that says why: no {@value CordonOwner#REASON_ANNOTATION}
 * annotation and no open NodeHandover naming it. In seed 000 gpu-a06 stayed cordoned for days with no owner, and
 * only NG170's 72 h noticed it; a cordon is cheap to set and easy to forget, so it is asked about after a day, with
 * who set it (managedFields) so the question goes to someone.
 *
 * <p>When the hand-overs were not read (a saved dump holds none) an open hand-over cannot be ruled out: the finding
 * is then {@code info} and says so, never "no hand-over". The cordon's age is its managedFields entry's time, else
 * the unschedulable taint's timeAdded; a cordon of unknown age is not aged.
 */
public final class UnexplainedCordonDetector implements Detector {

    /** How long a cordon may go without a reason before it is asked about. */
    public static final Duration AFTER = Duration.ofDays(1);

    @Override
    public FindingCode code() {
        return FindingCode.NG171;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        List<Finding> findings = new ArrayList<>();
        for (NodeInfo node : state.nodes()) {
            if (!node.unschedulable() || node.cordonReason() != null || !state.handovers().of(node.name()).isEmpty()) {
                continue;
            }
            CordonOwner owner = node.cordonOwner();
            Instant since = owner != null && owner.time() != null ? owner.time()
                    : NodeFacts.cordonedSince(node).orElse(null);
            if (since == null) {
                continue;
            }
            Duration age = Duration.between(since, state.now());
            if (age.compareTo(AFTER) <= 0) {
                continue;
            }
            boolean handoversRead = state.handovers().read();
            String who = owner == null || owner.manager() == null
                    ? "by an unknown writer (its managedFields were not read)"
                    : "by " + owner.manager() + " (" + owner.operation() + ")";
            Evidence evidence = Evidence.of()
                    .put("cordonedBy", owner == null ? null : owner.manager())
                    .time("cordonedSince", since).seconds("cordonedSeconds", age)
                    .put("ageFrom", owner != null && owner.time() != null ? "managedFields" : "taint")
                    .put("handoversRead", handoversRead);
            String handovers = handoversRead ? "and no open hand-over names it"
                    : "and the NodeHandovers were not read, so an open hand-over cannot be ruled out";
            findings.add(new Finding(code(), handoversRead ? Severity.WARNING : Severity.INFO, List.of(node.name()),
                    "Node cordoned " + who + " for " + Durations.format(age) + " (since " + since + ") with no "
                            + CordonOwner.REASON_ANNOTATION + " annotation " + handovers + ".",
                    evidence.build(),
                    "Ask " + (owner == null || owner.manager() == null ? "whoever cordoned it" : owner.manager()
                            + "'s user") + " why, and write it down: kubectl annotate node " + node.name() + " "
                            + CordonOwner.REASON_ANNOTATION + "='WHY' (or uncordon it)."));
        }
        return findings;
    }
}
