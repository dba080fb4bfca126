package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Check;
/**
 * Host evidence from the cluster side: who answered on the target's kubelet port (--probe-kubelet), judged by
 * signature ({@link io.nodegate.probe.KubeletProbe}). This cluster's CA = FAIL (alive), another cluster's CA = FAIL
 * (departed, NG303), no answer or refused = PASS (consistent with cleanup), anything else that answers (a
 * self-signed kubelet, a reset, no TLS) = HOLD. See {@link HostEvidence}.
 */
final class KubeletPortCheck implements GateCheck {

    @Override
    public String id() {
        return "kubelet";
    }

    @Override
    public String title() {
        return "kubelet port";
    }

    @Override
    public boolean appliesTo(GateInput in) {
        return in.evidence().target() != null && in.host().kubelet() != null;
    }

    @Override
    public Check evaluate(GateInput in) {
        return HostEvidence.kubeletProbe(in.host().kubelet());
    }
}
