package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Check;
/**
 * Host evidence (b'): a report from `nodegate host inspect` on the target host. Its sha256 and identity must hold,
 * and its time must lie between the Lease's last renewal and now (else INVALID); clean = PASS (no objection: a
 * report can only make the gate stricter), stopped and incomplete = HOLD, points-elsewhere and running = FAIL.
 * See {@link HostEvidence}.
 */
final class HostReportCheck implements GateCheck {

    @Override
    public String id() {
        return "host";
    }

    @Override
    public String title() {
        return "host report";
    }

    @Override
    public boolean appliesTo(GateInput in) {
        return in.evidence().target() != null && in.host().report() != null;
    }

    @Override
    public Check evaluate(GateInput in) {
        return HostEvidence.hostReport(in.host(), in.evidence().target(), in.evidence().targetLease(),
                HostEvidence.clusterHosts(in.host().apiServer(), in.evidence().nodes(), in.host().clusterAddresses()),
                in.evidence().observedAt(), in.request().removedAt(), in.request().matchWindow());
    }
}
