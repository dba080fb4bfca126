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

/** (e) The host did not register again since the baseline: same uid, bootID, node-args and role labels. */
final class NotReRegisteredCheck implements GateCheck {

    @Override
    public String id() {
        return "e";
    }

    @Override
    public String title() {
        return "not re-registered";
    }

    @Override
    public boolean appliesTo(GateInput in) {
        return in.evidence().target() != null && in.baselineTarget() != null;
    }

    @Override
    public Check evaluate(GateInput in) {
        Baseline.Target t = in.baselineTarget();
        NodeInfo n = in.evidence().target();
        List<String> reasons = new ArrayList<>();
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("bootID", n.systemInfo().bootId() + " (baseline " + t.bootId() + ")");
        if (!Objects.equals(t.uid(), n.uid())) {
            reasons.add("the Node object was recreated after the baseline (uid " + t.uid() + " -> " + n.uid()
                    + "): the host registered again");
        }
        if (!Objects.equals(t.bootId(), n.systemInfo().bootId())) {
            reasons.add("bootID changed " + t.bootId() + " -> " + n.systemInfo().bootId()
                    + ": the host rebooted and reported to this cluster again (RKE2 still installed)");
        }
        if (!Objects.equals(t.nodeArgs(), n.nodeArgs())) {
            reasons.add("node-args annotation changed: the agent was started again with other arguments");
        }
        Map<String, String> roles = new TreeMap<>();
        n.labels().forEach((k, v) -> {
            if (k.startsWith(NodeInfo.ROLE_PREFIX)) {
                roles.put(k, v);
            }
        });
        if (!new TreeMap<>(t.roleLabels()).equals(roles)) {
            reasons.add("role labels changed " + new TreeMap<>(t.roleLabels()).keySet() + " -> " + roles.keySet());
        }
        return result(Verdict.FAIL, reasons, evid);
    }
}
