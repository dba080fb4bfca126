package io.nodegate.detect.bmc;

import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Tombstone;

import java.util.List;
import java.util.Optional;

/**
 * Whether a Node is about to leave the cluster, and why: a node on its way out whose host is found running is the
 * seed's exact mistake (its silence read as a shutdown), so findings about it are critical. Each reason is one rule;
 * {@link #RULES} lists them.
 */
public final class RemovalTargets {

    /** Why one Node is a removal or hand-over target; empty when the rule does not say so. Pure. */
    @FunctionalInterface
    public interface Rule {
        Optional<String> reason(NodeInfo node, ClusterState state);
    }

    /**
     * Every rule, in the order reasons are told. The hand-over target (a Node a NodeHandover names) is the rule still
     * to be added here, by the hand-over feature: one line.
     */
    public static final List<Rule> RULES = List.of(RemovalTargets::gated, RemovalTargets::tombstoned);

    /**
     * The annotation `nodegate gate --annotate` writes (GatePolicy.VERDICT_ANNOTATION, GateService.ANN_VERDICT):
     * someone has gated this Node for removal.
     */
    static final String GATE_VERDICT = "nodegate.io/gate-verdict";

    private RemovalTargets() {
    }

    /** The first reason any rule gives, or empty when the Node is no target. */
    public static Optional<String> of(NodeInfo node, ClusterState state) {
        for (Rule rule : RULES) {
            Optional<String> reason = rule.reason(node, state);
            if (reason.isPresent()) {
                return reason;
            }
        }
        return Optional.empty();
    }

    static Optional<String> gated(NodeInfo node, ClusterState state) {
        String verdict = node.annotation(GATE_VERDICT);
        return verdict == null ? Optional.empty()
                : Optional.of("a removal target: the gate judged it (" + GATE_VERDICT + "=" + verdict + ")");
    }

    static Optional<String> tombstoned(NodeInfo node, ClusterState state) {
        for (Tombstone t : state.tombstones().items()) {
            String by = t.matchOf(node, true);
            if (by != null) {
                return Optional.of("a removal target: `nodegate remove` deleted this host (" + t.name() + ", same "
                        + by + ") at " + t.removedAt());
            }
        }
        return Optional.empty();
    }
}
