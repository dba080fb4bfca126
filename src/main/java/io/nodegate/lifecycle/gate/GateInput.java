package io.nodegate.lifecycle.gate;

import io.nodegate.lifecycle.baseline.Baseline;

/**
 * Everything a {@link GateCheck} may look at: the baseline, what the cluster says now, the operator's request,
 * and the host-side evidence given with --host-report/--probe-kubelet ({@link HostEvidence.Given#NONE} without).
 */
public record GateInput(Baseline baseline, GateEvidence evidence, GateRequest request, HostEvidence.Given host) {

    public GateInput {
        host = host == null ? HostEvidence.Given.NONE : host;
    }

    public GateInput(Baseline baseline, GateEvidence evidence, GateRequest request) {
        this(baseline, evidence, request, HostEvidence.Given.NONE);
    }

    /** The target as the baseline recorded it; null when the node is not one of the baseline's targets. */
    public Baseline.Target baselineTarget() {
        return baseline.target(request.node());
    }
}
