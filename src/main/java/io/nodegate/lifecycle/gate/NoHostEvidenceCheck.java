package io.nodegate.lifecycle.gate;

import java.util.List;
import java.util.Map;

/**
 * Says, in every run without --host-report and --probe-kubelet, that step (b) rests on the reply's text alone
 * (seed 000: "cleanup done" was a sentence typed by a person). It never changes the verdict.
 */
final class NoHostEvidenceCheck implements GateCheck {

    @Override
    public String id() {
        return "host";
    }

    @Override
    public String title() {
        return HostEvidence.NONE;
    }

    @Override
    public boolean appliesTo(GateInput in) {
        return in.evidence().target() != null && !in.host().any();
    }

    @Override
    public Check evaluate(GateInput in) {
        return new Check(id(), title(), Verdict.PASS, List.of(), Map.of("hostEvidence", "none"));
    }
}
