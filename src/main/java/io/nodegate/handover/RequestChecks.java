package io.nodegate.handover;

import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.NodeInfo;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.nodegate.handover.HandoverChecks.blank;
import static io.nodegate.handover.HandoverChecks.givingFailed;
import static io.nodegate.handover.HandoverChecks.givingName;
import static io.nodegate.handover.HandoverChecks.invalid;

/**
 * The checks of step 0, the request: every target Node exists in the giving cluster, and the destination, type and
 * due are set ({@link HandoverChecks} composes the steps).
 */
final class RequestChecks implements StepChecks {

    @Override
    public Step step() {
        return Step.REQUEST;
    }

    @Override
    public List<StepCheck> check(NodeHandover h, StepRecord claim, HandoverReading r) {
        return request(h, r);
    }

    private static List<StepCheck> request(NodeHandover h, HandoverReading r) {
        List<StepCheck> out = new ArrayList<>();
        HandoverSpec s = h.spec();
        List<String> missing = new ArrayList<>();
        Map<String, String> ev = new LinkedHashMap<>();
        ev.put("type", s.type() == null ? "-" : s.type().text());
        ev.put("destination", s.destination() == null ? "-" : s.destination().cluster()
                + (s.destination().context() == null ? "" : " (context " + s.destination().context() + ")"));
        ev.put("due", String.valueOf(s.due()));
        ev.put("requester", String.valueOf(s.requester()));
        if (s.type() == null) {
            missing.add("no type (move, return or decommission)");
        } else if (s.type().hasDestination() && (s.destination() == null || blank(s.destination().cluster()))) {
            missing.add("a " + s.type().text() + " needs a destination cluster");
        }
        if (blank(s.due())) {
            missing.add("no due date");
        } else {
            try {
                LocalDate.parse(s.due());
            } catch (DateTimeParseException e) {
                missing.add("due '" + s.due() + "' is not a date (YYYY-MM-DD)");
            }
        }
        if (blank(s.requester())) {
            missing.add("no requester");
        }
        out.add(new StepCheck(0, null, new Check("request", "destination, type and due are set",
                missing.isEmpty() ? Verdict.PASS : Verdict.FAIL, missing, ev)));
        for (String node : s.nodes()) {
            out.add(new StepCheck(0, node, targetExists(h, node, r)));
        }
        return out;
    }

    private static Check targetExists(NodeHandover h, String node, HandoverReading r) {
        String title = "target exists in " + givingName(r);
        if (givingFailed(r)) {
            return invalid("target", title, r.giving().error());
        }
        NodeInfo n = r.giving().node(node);
        if (n == null) {
            return new Check("target", title, Verdict.FAIL, List.of("no Node " + node + " in " + givingName(r)
                    + " (NotFound)"), Map.of());
        }
        Map<String, String> ev = new LinkedHashMap<>();
        ev.put("uid", n.uid());
        ev.put("systemUUID", String.valueOf(n.systemInfo().systemUuid()));
        ev.put("machineID", String.valueOf(n.systemInfo().machineId()));
        ev.put("internalIPs", String.join(", ", n.internalIps()));
        if (n.isServer()) {
            ev.put("server", "roles " + n.roles() + ": its etcd member must be gone from every endpoint before "
                    + "the gate can PASS (step 3)");
        }
        Optional<HandoverSpec.Target> t = h.spec().target(node);
        if (t.isPresent() && t.get().uid() != null && !t.get().uid().equals(n.uid())) {
            return new Check("target", title, Verdict.FAIL, List.of("Node " + node + " is another object (uid "
                    + n.uid() + ", created " + n.created() + ") than at open (uid " + t.get().uid() + ")"), ev);
        }
        return new Check("target", title, Verdict.PASS, List.of(), ev);
    }
}
