package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.Condition;
import io.nodegate.model.NodeInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/** (b) The host owner's cleanup reply gives the time RKE2 was removed or the agent stopped. */
final class ReplyCheck implements GateCheck {

    @Override
    public String id() {
        return "b";
    }

    @Override
    public String title() {
        return "cleanup reply with removal time";
    }

    @Override
    public Check evaluate(GateInput in) {
        GateRequest req = in.request();
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("removedAt", String.valueOf(req.removedAt()));
        if (req.replyFrom() != null) {
            evid.put("replyFrom", req.replyFrom());
        }
        if (req.reply() != null) {
            evid.put("reply", req.reply());
        }
        if (req.removedAt() == null) {
            return result(Verdict.HOLD, List.of("no --removed-at: the host owner's reply must give the time RKE2 was removed or the agent "
                            + "stopped (not the reboot time)"), evid);
        }
        return result(Verdict.PASS, List.of(), evid);
    }
}
