package io.nodegate.lifecycle.gate;

import io.nodegate.lifecycle.baseline.Baseline;

/** Everything a {@link GateCheck} may look at: the baseline, what the cluster says now, and the operator's request. */
public record GateInput(Baseline baseline, GateEvidence evidence, GateRequest request) {

    /** The target as the baseline recorded it; null when the node is not one of the baseline's targets. */
    public Baseline.Target baselineTarget() {
        return baseline.target(request.node());
    }
}
