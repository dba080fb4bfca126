package io.nodegate.handover;

import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.nodegate.handover.HandoverChecks.MEMBERSHIP;
import static io.nodegate.handover.HandoverChecks.PERIOD;
import static io.nodegate.handover.HandoverChecks.RETURN_DATE;

/**
 * The checks of step 6, the record: membership, period and return date ({@link HandoverChecks} composes the steps).
 */
final class RecordChecks implements StepChecks {

    @Override
    public Step step() {
        return Step.RECORD;
    }

    @Override
    public List<StepCheck> check(NodeHandover h, StepRecord claim, HandoverReading r) {
        return record(h, claim);
    }

    private static List<StepCheck> record(NodeHandover h, StepRecord claim) {
        String title = "membership, period, return date";
        if (claim == null) {
            return List.of(new StepCheck(6, null, new Check("record", title, Verdict.HOLD, List.of("waiting for the "
                    + "record: `handover step " + h.name() + " 6 --by WHO --term TEXT --return-date DATE|none`"),
                    Map.of())));
        }
        Map<String, String> e = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (String what : List.of(MEMBERSHIP, PERIOD, RETURN_DATE)) {
            Optional<String> v = claim.value(what);
            v.ifPresent(x -> e.put(what, x));
            if (v.isEmpty()) {
                missing.add("no " + what);
            }
        }
        return List.of(new StepCheck(6, null, new Check("record", title, missing.isEmpty() ? Verdict.PASS
                : Verdict.HOLD, missing, e)));
    }
}
