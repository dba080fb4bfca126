package io.nodegate.lifecycle.verify;

import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Tombstone;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * verify-gone's look across the fleet: for every baseline target whose Node is gone here, where its host is now
 * (by machineID or systemUUID, never by name) in the other clusters given. Seed 000's hosts "shut down" in cluster
 * A were serving cluster B; this says so next to the proof that nothing came back here. It informs, it does not
 * fail the run: a removed host is allowed to serve another cluster. Without a fleet it is "not checked".
 */
public final class WhereRemovedHostsWent {

    private WhereRemovedHostsWent() {
    }

    /** @param fleet the other clusters' Nodes; null when no --fleet-context/--fleet-kubeconfig was given */
    public static Check check(Baseline baseline, List<NodeInfo> nodesHere, List<NamedView> fleet) {
        String title = "where removed hosts went";
        Map<String, String> evid = new LinkedHashMap<>();
        if (fleet == null) {
            return new Check("fleet", title, Verdict.NOT_CHECKED, List.of("no --fleet-context or --fleet-kubeconfig "
                    + "given: other clusters were not looked at"), evid);
        }
        Set<String> here = nodesHere.stream().map(NodeInfo::name).collect(Collectors.toSet());
        evid.put("clustersChecked", fleet.stream().map(NamedView::name).toList().toString());
        for (Baseline.Target t : baseline.targets()) {
            if (here.contains(t.name())) {
                continue;
            }
            String uuid = Tombstone.identity(t.systemUuid());
            String mid = Tombstone.identity(t.machineId());
            List<String> places = new ArrayList<>();
            for (NamedView cluster : fleet) {
                for (NodeInfo n : cluster.state().nodes()) {
                    boolean same = (mid != null && mid.equals(Tombstone.identity(n.systemInfo().machineId())))
                            || (uuid != null && uuid.equals(Tombstone.identity(n.systemInfo().systemUuid())));
                    if (same) {
                        places.add(n.name() + " in " + cluster.name() + " (Ready="
                                + (n.readyStatus() == null ? "none" : n.readyStatus())
                                + (n.created() == null ? "" : ", created " + n.created()) + ")");
                    }
                }
            }
            evid.put(t.name(), uuid == null && mid == null ? "no systemUUID or machineID recorded: cannot be followed"
                    : places.isEmpty() ? "not a Node in any of these clusters" : "now " + String.join("; ", places));
        }
        return new Check("fleet", title, Verdict.PASS, List.of(), evid);
    }
}
