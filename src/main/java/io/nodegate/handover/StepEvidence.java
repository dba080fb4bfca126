package io.nodegate.handover;

import io.nodegate.model.verdict.Check;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a step is recorded with besides the person's words: the facts its checks established, as named values
 * (the gate record's sha256 and the Lease stop it matched, the removal time, the verify-gone run, where the host
 * was admitted). They are what the watch, which cannot read the operator's evidence directory, and the HTML report
 * go on later. Pure.
 */
public final class StepEvidence {

    private StepEvidence() {
    }

    /** The person's claim with the checks' facts added (a name the person gave is kept as given). */
    public static StepRecord complete(StepRecord claim, List<StepCheck> checks, HandoverReading r) {
        Map<String, String> values = new LinkedHashMap<>();
        claim.evidence().forEach(e -> values.put(e.name(), e.value()));
        for (StepCheck sc : checks) {
            Check c = sc.check();
            Map<String, String> ev = c.evidence();
            String node = sc.node();
            switch (claim.step()) {
                case 1 -> {
                    if (node != null && HandoverChecks.CORDONED.equals(c.id())) {
                        put(values, StepRecord.perNode(HandoverChecks.CORDONED, node), c.outcome().name());
                    } else if (node != null && HandoverChecks.PODS.equals(c.id()) && ev.containsKey("pods")) {
                        put(values, StepRecord.perNode(HandoverChecks.PODS, node), ev.get("pods"));
                    } else if (HandoverChecks.SILENCES.equals(c.id())) {
                        put(values, HandoverChecks.SILENCES, c.outcome() + (r.silences() == null ? ""
                                : ": " + r.silences().replicas().stream().map(x -> x.url() + " " + x.state())
                                .reduce((a, b) -> a + ", " + b).orElse("")));
                    }
                }
                case 3 -> {
                    if (r.evidence() != null) {
                        put(values, HandoverChecks.EVIDENCE_DIR, r.evidence().dir());
                    }
                    if (node != null && HandoverChecks.GATE.equals(c.id())) {
                        String v = ev.containsKey("override") ? "override: " + ev.get("override")
                                : ev.containsKey("verdict") ? ev.get("verdict") + " " + ev.get("gatedAt") + " sha256:"
                                + ev.get("sha256") : c.outcome().name();
                        put(values, StepRecord.perNode(HandoverChecks.GATE, node), v);
                        if (ev.containsKey("leaseRenewTime")) {
                            put(values, StepRecord.perNode(HandoverChecks.LEASE_STOPPED, node), ev.get("leaseRenewTime"));
                        }
                    } else if (node != null && HandoverChecks.REMOVAL.equals(c.id()) && ev.containsKey("state")) {
                        HandoverReading.RemovalSeen rs = r.evidence() == null ? null : r.evidence().removals().get(node);
                        put(values, StepRecord.perNode(HandoverChecks.REMOVAL, node), ev.get("state") + " deleted "
                                + ev.get("deletedAt") + (rs != null && rs.handedTo() != null ? " handed to "
                                + rs.handedTo() : "") + (rs != null && rs.override() != null ? " override" : ""));
                    } else if (node == null && HandoverChecks.VERIFY_GONE.equals(c.id()) && ev.containsKey("verdict")) {
                        put(values, HandoverChecks.VERIFY_GONE, ev.get("verdict") + " " + ev.get("at"));
                    }
                }
                case 5 -> {
                    if (node != null && HandoverChecks.ADMITTED.equals(c.id()) && ev.containsKey("node")) {
                        put(values, StepRecord.perNode(HandoverChecks.ADMITTED, node), ev.get("node") + " created "
                                + ev.get("created") + " Ready=" + ev.get("ready") + " kubelet " + ev.get("kubeletVersion")
                                + " GPUs " + ev.get("gpus"));
                    } else if (node == null && "verifyGoneAgain".equals(c.id()) && ev.containsKey("verdict")) {
                        put(values, HandoverChecks.VERIFY_GONE, ev.get("verdict") + " " + ev.get("at"));
                    }
                }
                default -> {
                    // steps 0, 2, 4 and 6 are recorded with what the person gave
                }
            }
        }
        List<StepRecord.Evidence> evidence = new ArrayList<>();
        values.forEach((k, v) -> evidence.add(new StepRecord.Evidence(k, v)));
        return new StepRecord(claim.step(), claim.by(), claim.at(), claim.message(), claim.override(), evidence);
    }

    private static void put(Map<String, String> values, String name, String value) {
        if (value != null) {
            values.putIfAbsent(name, value.length() > 1024 ? value.substring(0, 1023) + "…" : value);
        }
    }
}
