package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Check;
/**
 * Says, in every run without --host-report and --probe-kubelet, that no evidence from the host was given: step (b)
 * rests on the reply's text alone (seed 000: "cleanup done" was a sentence typed by a person). Shown "not checked",
 * never PASS; it never changes the verdict.
 */
final class NoHostEvidenceCheck implements GateCheck {

    @Override
    public String id() {
        return "host";
    }

    @Override
    public String title() {
        return "host evidence (host report, kubelet port)";
    }

    @Override
    public boolean appliesTo(GateInput in) {
        return in.evidence().target() != null && !in.host().any();
    }

    @Override
    public String notGiven(GateInput in) {
        return "no --host-report or --probe-kubelet given: the cleanup (b) rests on the reply's text alone";
    }

    @Override
    public Check evaluate(GateInput in) {
        throw new IllegalStateException("host evidence is never given when this check applies");
    }
}
