package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.Condition;
import io.nodegate.model.NodeInfo;
import io.nodegate.time.Durations;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/** (c) The target is not Ready and its Lease stopped renewing within --match-window of the reported removal time. */
final class TimeMatchCheck implements GateCheck {

    @Override
    public String id() {
        return "c";
    }

    @Override
    public String title() {
        return "agent stopped when the reply says";
    }

    @Override
    public Check evaluate(GateInput in) {
        GateEvidence ev = in.evidence();
        GateRequest req = in.request();
        NodeInfo node = ev.target();
        Condition ready = node.condition("Ready");
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("ready", String.valueOf(node.readyStatus()));
        evid.put("leaseRenewTime", ev.targetLease() == null ? "NotFound" : String.valueOf(ev.targetLease().renewTime()));
        evid.put("readyLastHeartbeatTime", ready == null ? "null" : String.valueOf(ready.lastHeartbeatTime()));
        evid.put("readyLastTransitionTime", ready == null ? "null" : String.valueOf(ready.lastTransitionTime()));
        evid.put("bootID", String.valueOf(node.systemInfo().bootId()));
        evid.put("removedAt", String.valueOf(req.removedAt()));
        evid.put("matchWindow", Durations.format(req.matchWindow()));
        String bmc = BmcPowerCheck.timeMatchLine(in);
        if (bmc != null) {
            evid.put("bmcPowerOff", bmc); // said here, judged in the bmc check
        }
        if (node.isReady()) {
            return result(Verdict.FAIL, List.of("Ready=True: the kubelet is alive and reporting"), evid);
        }
        if (req.removedAt() == null) {
            return result(Verdict.HOLD, List.of("no removal time to compare the Lease with"), evid);
        }
        if (ev.targetLease() == null || ev.targetLease().renewTime() == null) {
            return result(Verdict.HOLD, List.of("Lease kube-node-lease/" + node.name()
                            + (ev.targetLease() == null ? " not found" : " has no renewTime")
                            + ": when the agent stopped cannot be shown"), evid);
        }
        Duration gap = Duration.between(ev.targetLease().renewTime(), req.removedAt());
        evid.put("leaseStoppedBeforeRemovedAt", (gap.isNegative() ? "-" : "") + Durations.format(gap.abs()));
        if (gap.abs().compareTo(req.matchWindow()) > 0) {
            return result(Verdict.HOLD, List.of("Lease renewTime " + ev.targetLease().renewTime() + " is " + Durations.format(gap.abs())
                            + (gap.isNegative() ? " after" : " before") + " the reported removal " + req.removedAt()
                            + " (window ±" + Durations.format(req.matchWindow()) + "): the heartbeat stopped at another moment"),
                    evid);
        }
        return result(Verdict.PASS, List.of(), evid);
    }
}
