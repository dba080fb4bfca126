package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import io.nodegate.lifecycle.baseline.Baseline;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * (d) The cluster equals the baseline minus the targets already removed: etcd members, other nodes' Ready and
 * cordon, DaemonSet desired counts, GPU totals and MetalLB announcers ({@link BaselineComparisons}). Any change is
 * HOLD: something else happened in the cluster, and a person should look before a node is deleted.
 */
final class ClusterUnchangedCheck implements GateCheck {

    private final List<BaselineComparison> comparisons = BaselineComparisons.all();

    @Override
    public String id() {
        return "d";
    }

    @Override
    public String title() {
        return "cluster unchanged since the baseline";
    }

    @Override
    public Check evaluate(GateInput in) {
        List<String> changes = new ArrayList<>();
        Map<String, String> evid = new LinkedHashMap<>();
        BaselineComparisons.Now now = BaselineComparisons.Now.of(in);
        evid.put("targetsAlreadyRemoved", now.removedTargets().stream().map(Baseline.Target::name).toList().toString());
        for (BaselineComparison c : comparisons) {
            c.compare(in, now, changes, evid);
        }
        return result(Verdict.HOLD, changes, evid);
    }
}
