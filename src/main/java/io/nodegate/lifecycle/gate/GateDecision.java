package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.baseline.BaselineCollector;
import io.nodegate.model.EtcdEndpointReport;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The pre-deletion gate as a pure function: (baseline, evidence now, request) -> verdict with the evidence of
 * every check. It comes from a 13-node hand-over in which a Node object's silence was taken as proof that its host
 * was cleaned up, while the host had in fact been restarted against another cluster. Any doubt goes to HOLD, never
 * to PASS; evidence that cannot be trusted is INVALID.
 */
public final class GateDecision {

    /** The gate's checks, in the order they are shown. Each is one class; add a check with one line here. */
    static final List<GateCheck> CHECKS = List.of(
            new ControlNodeCheck(),
            new TargetAndWorkerCheck(),
            new EtcdMemberGoneCheck(),
            new ServerRedundancyCheck(),
            new ReplyCheck(),
            new TimeMatchCheck(),
            new ClusterUnchangedCheck(),
            new NotReRegisteredCheck(),
            new BatchStopCheck(),
            new HostReportCheck(),
            new KubeletPortCheck(),
            new NoHostEvidenceCheck(),
            new BmcPowerCheck(),
            new FleetCheck(),
            new MachineCheck());

    private GateDecision() {
    }

    public static GateResult decide(Baseline baseline, GateEvidence ev, GateRequest req) {
        return decide(baseline, ev, req, HostEvidence.Given.NONE);
    }

    /** With host-side evidence: a host report and/or the kubelet probe's answer (see {@link HostEvidence}). */
    public static GateResult decide(Baseline baseline, GateEvidence ev, GateRequest req, HostEvidence.Given host) {
        List<Check> checks = new ArrayList<>();
        String error = ev.collectionError();
        if (error == null) {
            error = ev.etcd().stream().filter(r -> !r.ok())
                    .map(r -> "etcd endpoint " + r.endpoint() + ": " + r.error()).findFirst().orElse(null);
        }
        if (error != null) {
            // a failed call invalidates everything: no check runs on evidence that is partly missing
            checks.add(new Check("collection", "every API call answered", Verdict.INVALID,
                    List.of("call failed: " + error + "; nothing this run saw can be trusted"),
                    Map.of()));
            return new GateResult(req.node(), Verdict.INVALID, checks);
        }
        checks.add(new Check("collection", "every API call answered", Verdict.PASS, List.of(),
                Map.of("observedAt", String.valueOf(ev.observedAt()))));
        GateInput in = new GateInput(baseline, ev, req, host);
        Verdict verdict = Verdict.PASS;
        for (GateCheck check : CHECKS) {
            if (check.appliesTo(in)) {
                String missing = check.notGiven(in);
                Check c = missing != null ? Check.notChecked(check.id(), check.title(), missing) : check.evaluate(in);
                checks.add(c);
                verdict = Verdict.worst(verdict, c.outcome());
            }
        }
        return new GateResult(req.node(), verdict, checks);
    }

    /** Current members from every endpoint; null when no etcd source was given. */
    static List<Baseline.EtcdMemberRef> currentEtcd(List<EtcdEndpointReport> reports) {
        if (reports.isEmpty()) {
            return null;
        }
        for (EtcdEndpointReport r : reports) {
            if (!r.ok()) {
                throw new IllegalStateException("etcd endpoint " + r.endpoint() + " failed: " + r.error());
            }
        }
        return BaselineCollector.etcdMembers(reports);
    }

}
