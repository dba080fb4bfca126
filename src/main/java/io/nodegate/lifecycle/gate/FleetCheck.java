package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.SharedMachineIds;
import io.nodegate.model.Tombstone;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * (fleet) The target's host does not serve another cluster. Seed 000: gpu-a07..a09 looked shut down from cluster A
 * (Ready=Unknown, Lease frozen) while they were Ready in cluster B under new names; a cleanup reply about such a
 * host is about the wrong machine state. The host is followed by machineID and systemUUID (empty and all-zero IDs
 * ignored), never by name, and never by a machineID that is an image's: one reported with several systemUUIDs in
 * this cluster or the others, or with a systemUUID other than the target's ({@link SharedMachineIds}; clusters
 * built from one image or VM template share /etc/machine-id). Ready elsewhere is a FAIL, seen but not Ready a HOLD; without --fleet-context or
 * --fleet-kubeconfig the check is "not checked", never a pass.
 */
final class FleetCheck implements GateCheck {

    /**
     * The input this check reads: the Nodes of the other clusters given with --fleet-context/--fleet-kubeconfig; absent
     * when none was given (this check then says "not checked").
     */
    static final LaterInputs.Key<List<NamedView>> INPUT = new LaterInputs.Key<>("fleet");

    @Override
    public String id() {
        return "fleet";
    }

    @Override
    public String title() {
        return "host not serving another cluster";
    }

    @Override
    public String notGiven(GateInput in) {
        return in.evidence().input(INPUT) == null ? "no --fleet-context or --fleet-kubeconfig given: whether this host now "
                + "serves another cluster was not checked" : null;
    }

    @Override
    public Check evaluate(GateInput in) {
        List<NamedView> fleet = in.evidence().input(INPUT);
        NodeInfo target = in.evidence().target();
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("clustersChecked", fleet.stream().map(NamedView::name).toList().toString());
        String uuid = Tombstone.identity(target.systemInfo().systemUuid());
        String mid = Tombstone.identity(target.systemInfo().machineId());
        evid.put("systemUUID", String.valueOf(uuid));
        evid.put("machineID", String.valueOf(mid));
        if (uuid == null && mid == null) {
            return new Check(id(), title(), Verdict.HOLD, List.of(target.name() + " reports neither a systemUUID nor a "
                    + "machineID (empty or all zeros): its host cannot be followed to another cluster"), evid);
        }
        SharedMachineIds images = new SharedMachineIds().addAll(in.evidence().nodes(), null);
        fleet.forEach(v -> images.addAll(v.state().nodes(), null));
        if (mid != null && images.isImage(mid)) {
            evid.put("machineIDIsAnImage", "true");
            if (uuid == null) {
                return new Check(id(), title(), Verdict.HOLD, List.of(target.name() + " reports no systemUUID (empty"
                        + " or all zeros), and its machineID " + mid + " is reported with several systemUUIDs (an"
                        + " image's /etc/machine-id): its host cannot be followed to another cluster"), evid);
            }
        }
        List<String> ready = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (NamedView cluster : fleet) {
            for (NodeInfo n : cluster.state().nodes()) {
                String otherUuid = Tombstone.identity(n.systemInfo().systemUuid());
                // the same machineID under another firmware UUID is two machines from one image
                boolean midIdentifies = mid != null && !images.isImage(mid)
                        && (uuid == null || otherUuid == null || uuid.equals(otherUuid));
                String by = midIdentifies && mid.equals(Tombstone.identity(n.systemInfo().machineId())) ? "machineID"
                        : uuid != null && uuid.equals(otherUuid) ? "systemUUID"
                        : null;
                if (by == null) {
                    continue;
                }
                if (n.isReady()) {
                    ready.add("host now serves " + cluster.name() + " as " + n.name()
                            + (n.created() == null ? "" : " since " + n.created()) + " (Ready; same " + by + ")");
                } else {
                    seen.add("host is also Node " + n.name() + " in " + cluster.name() + " (Ready="
                            + (n.readyStatus() == null ? "none" : n.readyStatus()) + "; same " + by
                            + "): find out which cluster it belongs to before deleting");
                }
            }
        }
        if (!ready.isEmpty()) {
            List<String> reasons = new ArrayList<>(ready);
            reasons.addAll(seen);
            return new Check(id(), title(), Verdict.FAIL, reasons, evid);
        }
        return result(Verdict.HOLD, seen, evid);
    }
}
