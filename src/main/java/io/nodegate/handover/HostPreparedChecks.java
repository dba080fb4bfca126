package io.nodegate.handover;

import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.nodegate.handover.HandoverChecks.DRIVER;
import static io.nodegate.handover.HandoverChecks.NEW_IP;
import static io.nodegate.handover.HandoverChecks.NEW_NAME;
import static io.nodegate.handover.HandoverChecks.OS;

/**
 * The checks of step 4, host prepared: infra's reply with the new name, IP, OS and driver per host ({@link
 * HandoverChecks} composes the steps).
 */
final class HostPreparedChecks implements StepChecks {

    @Override
    public Step step() {
        return Step.HOST_PREPARED;
    }

    @Override
    public List<StepCheck> check(NodeHandover h, StepRecord claim, HandoverReading r) {
        return hostPrepared(h, claim);
    }

    private static List<StepCheck> hostPrepared(NodeHandover h, StepRecord claim) {
        List<StepCheck> out = new ArrayList<>();
        String title = "infra's reply (new name, IP, OS, driver)";
        if (!h.spec().type().hasDestination()) {
            out.add(new StepCheck(4, null, new Check("prepared", title, Verdict.NOT_CHECKED,
                    List.of("a decommission has no receiving cluster"), Map.of())));
            return out;
        }
        for (String node : h.spec().nodes()) {
            if (claim == null) {
                out.add(new StepCheck(4, node, new Check("prepared", title, Verdict.HOLD, List.of("waiting for "
                        + "infra's reply: `handover step " + h.name() + " 4 --by WHO --new-name " + node + "=NAME "
                        + "--new-ip " + node + "=IP`"), Map.of())));
                continue;
            }
            Map<String, String> e = new LinkedHashMap<>();
            List<String> missing = new ArrayList<>();
            for (String what : List.of(NEW_NAME, NEW_IP)) {
                Optional<String> v = claim.value(StepRecord.perNode(what, node));
                v.ifPresent(x -> e.put(what, x));
                if (v.isEmpty()) {
                    missing.add("no " + (NEW_NAME.equals(what) ? "new name" : "new IP") + " for " + node);
                }
            }
            claim.value(OS).ifPresent(x -> e.put(OS, x));
            claim.value(DRIVER).ifPresent(x -> e.put(DRIVER, x));
            out.add(new StepCheck(4, node, new Check("prepared", title, missing.isEmpty() ? Verdict.PASS
                    : Verdict.HOLD, missing, e)));
        }
        return out;
    }
}
