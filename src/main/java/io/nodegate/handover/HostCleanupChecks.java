package io.nodegate.handover;

import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.nodegate.handover.HandoverChecks.HOST_REPORT;
import static io.nodegate.handover.HandoverChecks.REMOVED_AT;
import static io.nodegate.handover.HandoverChecks.prepend;

/**
 * The checks of step 2, host cleanup: the owner's reply with a removal time per node, and each host report judged
 * clean ({@link HandoverChecks} composes the steps).
 */
final class HostCleanupChecks implements StepChecks {

    @Override
    public Step step() {
        return Step.HOST_CLEANUP;
    }

    @Override
    public List<StepCheck> check(NodeHandover h, StepRecord claim, HandoverReading r) {
        return hostCleanup(h, claim, r);
    }

    private static List<StepCheck> hostCleanup(NodeHandover h, StepRecord claim, HandoverReading r) {
        List<StepCheck> out = new ArrayList<>();
        String title = "the owner's reply with a removal time";
        if (claim == null) {
            out.add(new StepCheck(2, null, new Check("reply", title, Verdict.HOLD, List.of("waiting for the infra "
                    + "team's reply: `handover step " + h.name() + " 2 --by WHO --removed-at [NODE=]TIME`"), Map.of())));
        }
        for (String node : h.spec().nodes()) {
            if (claim != null) {
                Optional<String> at = claim.value(StepRecord.perNode(REMOVED_AT, node));
                out.add(new StepCheck(2, node, at.isPresent()
                        ? new Check("reply", title, Verdict.PASS, List.of(), Map.of("by", claim.by(),
                        "removedAt", at.get()))
                        : new Check("reply", title, Verdict.HOLD, List.of("the reply gives no removal time for "
                        + node + " (RKE2 removed or agent stopped at: not the reboot time): "
                        + "without it, a stopped Lease cannot be told from a cleanup"), Map.of("by", claim.by()))));
            }
            Check report = hostReport(node, claim, r);
            if (report != null) {
                out.add(new StepCheck(2, node, report));
            }
        }
        if (out.stream().noneMatch(c -> HOST_REPORT.equals(c.check().id()))) {
            out.add(new StepCheck(2, null, new Check(HOST_REPORT, "host reports", Verdict.NOT_CHECKED,
                    List.of("no host report given (optional: `nodegate host inspect` on each host, then --host-report "
                            + "FILE)"), Map.of())));
        }
        return out;
    }

    /** The node's host report check, or null when no report was given for it (reports are optional). */
    private static Check hostReport(String node, StepRecord claim, HandoverReading r) {
        String title = "host report";
        HandoverReading.HostReportSeen seen = r.hostReports().stream().filter(x -> x.node().equals(node))
                .reduce((a, b) -> b).orElse(null);
        if (seen != null) {
            return judged(seen);
        }
        Optional<String> recorded = claim == null ? Optional.empty()
                : claim.value(StepRecord.perNode(HOST_REPORT, node));
        if (recorded.isEmpty()) {
            return null;
        }
        String verdict = recorded.get().split(" ", 2)[0];
        Map<String, String> ev = Map.of("recorded", recorded.get());
        return switch (verdict) {
            case "clean" -> new Check(HOST_REPORT, title + ": clean", Verdict.PASS, List.of(), ev);
            case "stopped" -> new Check(HOST_REPORT, title + ": stopped", Verdict.HOLD, List.of("the agent is "
                    + "stopped, not removed: it rejoins on start"), ev);
            case "incomplete" -> new Check(HOST_REPORT, title + ": incomplete", Verdict.HOLD, List.of("the report "
                    + "could not tell whether an agent runs on the host (its services were not read)"), ev);
            default -> new Check(HOST_REPORT, title + ": " + verdict, Verdict.FAIL, List.of("the host report says "
                    + recorded.get()), ev);
        };
    }

    /** A host report read with this look (step 2 or status --host-report). */
    static Check judged(HandoverReading.HostReportSeen seen) {
        String title = "host report";
        Map<String, String> ev = new LinkedHashMap<>();
        ev.put("file", seen.file());
        ev.put("sha256", seen.sha256());
        ev.put("inspectedAt", String.valueOf(seen.inspectedAt()));
        ev.put("server", String.valueOf(seen.server()));
        if (!seen.intact()) {
            return new Check(HOST_REPORT, title, Verdict.INVALID, List.of("the report's sha256 does not match its "
                    + "body: it was changed after `host inspect` wrote it"), ev);
        }
        if (!seen.identityProblems().isEmpty()) {
            return new Check(HOST_REPORT, title, Verdict.INVALID, seen.identityProblems(), ev);
        }
        return switch (seen.verdict()) {
            case "clean" -> new Check(HOST_REPORT, title + ": clean", Verdict.PASS, List.of(), ev);
            case "stopped" -> new Check(HOST_REPORT, title + ": stopped", Verdict.HOLD,
                    prepend("the agent is stopped, not removed: it rejoins on start", seen.reasons()), ev);
            case "incomplete" -> new Check(HOST_REPORT, title + ": incomplete", Verdict.HOLD,
                    prepend("the report could not tell whether an agent runs on the host: its services were not read "
                            + "(`host inspect --root` without --systemctl)", seen.reasons()), ev);
            case "points-elsewhere" -> new Check(HOST_REPORT, title + ": points-elsewhere", Verdict.FAIL,
                    prepend("the agent points at " + seen.server() + ", not this cluster: the host left for "
                            + "another cluster", seen.reasons()), ev);
            default -> new Check(HOST_REPORT, title + ": " + seen.verdict(), Verdict.FAIL,
                    prepend("an agent is running on the host", seen.reasons()), ev);
        };
    }
}
