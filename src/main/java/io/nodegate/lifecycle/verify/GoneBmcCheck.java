package io.nodegate.lifecycle.verify;

import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeSystemInfo;
import io.nodegate.model.BmcBinding;
import io.nodegate.model.bmc.BmcReadings;
import io.nodegate.model.bmc.NodePower;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * verify-gone --bmc: the power state of each removed target's machine, read from its BMC and bound by the systemUUID
 * the baseline recorded (the Node is gone, its host is not). It informs: a removed host may run, for another cluster
 * or another team, so no power state fails the run. A BMC that could not be read (or two claiming one UUID) makes the
 * check INVALID, like any other failed read. Pure.
 */
public final class GoneBmcCheck {

    private GoneBmcCheck() {
    }

    public static final String ID = "bmc";
    public static final String TITLE = "power state of removed hosts (their BMCs)";

    /** @param readings what the BMCs said; null when no --bmc or --bmc-inventory was given ("not checked") */
    public static Check check(Baseline baseline, List<NodeInfo> nodesHere, BmcReadings readings) {
        if (readings == null || !readings.read()) {
            return Check.notChecked(ID, TITLE, "no --bmc or --bmc-inventory given: the removed hosts' power state "
                    + "was not read from their BMCs");
        }
        Set<String> here = nodesHere.stream().map(NodeInfo::name).collect(Collectors.toSet());
        List<NodeInfo> removed = new ArrayList<>();
        for (Baseline.Target t : baseline.targets()) {
            if (!here.contains(t.name())) {
                removed.add(new NodeInfo(t.name(), t.uid(), null, t.created(), Map.of(), Map.of(), List.of(), false,
                        null, List.of(), List.of(), new NodeSystemInfo(t.bootId(), t.systemUuid(), t.machineId(),
                        t.kernelVersion(), null, t.kubeletVersion(), null), Map.of()));
            }
        }
        BmcBinding binding = BmcBinding.bind(removed, readings);
        Map<String, String> evid = new LinkedHashMap<>();
        for (NodeInfo n : removed) {
            NodePower p = binding.of(n.name());
            evid.put(n.name(), p.verdict().label() + (p.powerOffTime() == null ? "" : " at " + p.powerOffTime())
                    + ": " + p.source());
        }
        if (removed.isEmpty()) {
            evid.put("removed", "no baseline target is removed yet");
        }
        List<String> problems = binding.problems(readings);
        return new Check(ID, TITLE, problems.isEmpty() ? Verdict.PASS
                : Verdict.INVALID, problems.stream().map(p -> p + ": unreadable, never evidence either way").toList(),
                evid);
    }
}
