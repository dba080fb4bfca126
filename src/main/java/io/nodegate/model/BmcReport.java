package io.nodegate.model;

import io.nodegate.model.bmc.BmcReading;
import io.nodegate.model.bmc.NodePower;
import io.nodegate.model.ClusterState;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Taint;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What `nodegate bmc` shows: each Node's power verdict beside what the cluster says of it (Ready, Lease age, taints),
 * the BMC systems no Node carries, and every BMC read or failed. Built from one snapshot; pure.
 *
 * @param problems what keeps the readings from being complete evidence ({@link BmcBinding#problems}): exit 3
 */
public record BmcReport(Instant now, String source, List<Row> rows, List<BmcBinding.Unbound> unbound,
                        List<BmcBinding.DuplicateUuid> duplicates, List<BmcReading> bmcs, List<String> problems) {

    public BmcReport {
        rows = List.copyOf(rows);
        unbound = List.copyOf(unbound);
        duplicates = List.copyOf(duplicates);
        bmcs = List.copyOf(bmcs);
        problems = List.copyOf(problems);
    }

    /** One Node: what its object and Lease say, and what its BMC says. */
    public record Row(String node, String ready, Instant leaseRenewTime, Duration leaseAge, List<Taint> taints,
                      NodePower power) {
        public Row {
            taints = List.copyOf(taints);
        }
    }

    /** @param names the Nodes to show (all when empty), each known to be in the snapshot */
    public static BmcReport of(ClusterState state, List<String> names) {
        BmcBinding binding = BmcBinding.bind(state.nodes(), state.bmc());
        Map<String, LeaseInfo> leases = state.nodeLeasesByName();
        List<Row> rows = new ArrayList<>();
        for (NodeInfo node : state.nodes()) {
            if (!names.isEmpty() && !names.contains(node.name())) {
                continue;
            }
            LeaseInfo lease = leases.get(node.name());
            Instant renew = lease == null ? null : lease.renewTime();
            rows.add(new Row(node.name(), node.readyStatus(), renew,
                    renew == null ? null : Duration.between(renew, state.now()), node.taints(),
                    binding.of(node.name())));
        }
        return new BmcReport(state.now(), state.source(), rows, binding.unbound(), binding.duplicates(), state.bmc().bmcs(),
                binding.problems(state.bmc()));
    }
}
