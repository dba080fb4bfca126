package io.nodegate.detect.fleet;

import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The host ledger: every Node of every cluster read, grouped into hosts by identity.
 *
 * <p>The identity rule (docs/findings.md, "Host identity"): two Node objects are one host when they report the same
 * machineID (/etc/machine-id) or the same systemUUID (firmware), compared without case. An ID that is empty or all
 * zeros identifies nothing and is ignored: some boards report a zero UUID, and hosts that share it are not one host.
 * Names never join hosts: node names are per cluster, and "worker-1" exists in many of them. A Node with neither ID
 * is a host of its own. Matching is transitive (A shares the UUID with B, B the machineID with C: one host).
 */
public final class HostLedger {

    private static final Comparator<HostAppearance> OLDEST_FIRST = Comparator
            .comparing(HostAppearance::created, Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
            .thenComparing(HostAppearance::cluster).thenComparing(HostAppearance::node);

    private final List<Host> hosts;

    private HostLedger(List<Host> hosts) {
        this.hosts = List.copyOf(hosts);
    }

    /** Every host, with the hosts seen more than once first-class citizens of {@link #repeated()}. */
    public List<Host> hosts() {
        return hosts;
    }

    /** Hosts that appear as more than one Node (in two clusters, or twice in one), oldest appearance first. */
    public List<Host> repeated() {
        return hosts.stream().filter(h -> h.appearances().size() > 1).toList();
    }

    public static HostLedger of(List<NamedView> clusters) {
        List<HostAppearance> all = new ArrayList<>();
        for (NamedView cluster : clusters) {
            Map<String, LeaseInfo> leases = cluster.state().nodeLeasesByName();
            for (NodeInfo node : cluster.state().nodes()) {
                all.add(HostAppearance.of(cluster.name(), node, leases.get(node.name())));
            }
        }
        return group(all);
    }

    static HostLedger group(List<HostAppearance> all) {
        int[] parent = new int[all.size()];
        for (int i = 0; i < parent.length; i++) {
            parent[i] = i;
        }
        Map<String, Integer> firstWithId = new HashMap<>();
        for (int i = 0; i < all.size(); i++) {
            HostAppearance a = all.get(i);
            for (String key : new String[]{a.systemUuid() == null ? null : "uuid:" + a.systemUuid(),
                    a.machineId() == null ? null : "mid:" + a.machineId()}) {
                if (key == null) {
                    continue;
                }
                Integer first = firstWithId.putIfAbsent(key, i);
                if (first != null) {
                    union(parent, first, i);
                }
            }
        }
        Map<Integer, List<HostAppearance>> groups = new HashMap<>();
        for (int i = 0; i < all.size(); i++) {
            groups.computeIfAbsent(find(parent, i), k -> new ArrayList<>()).add(all.get(i));
        }
        List<Host> hosts = new ArrayList<>();
        for (List<HostAppearance> group : groups.values()) {
            group.sort(OLDEST_FIRST);
            hosts.add(host(group));
        }
        hosts.sort(Comparator.comparing((Host h) -> h.appearances().get(0).cluster())
                .thenComparing(h -> h.appearances().get(0).node()));
        return new HostLedger(hosts);
    }

    private static Host host(List<HostAppearance> group) {
        TreeSet<String> uuids = new TreeSet<>();
        TreeSet<String> mids = new TreeSet<>();
        long withUuid = 0;
        long withMid = 0;
        for (HostAppearance a : group) {
            if (a.systemUuid() != null) {
                uuids.add(a.systemUuid());
                withUuid++;
            }
            if (a.machineId() != null) {
                mids.add(a.machineId());
                withMid++;
            }
        }
        boolean uuidShared = uuids.size() == 1 && withUuid >= 2;
        boolean midShared = mids.size() == 1 && withMid >= 2;
        String match = group.size() < 2 ? null
                : uuidShared && midShared ? Host.BOTH
                : midShared ? Host.MACHINE_ID
                : Host.SYSTEM_UUID;
        return new Host(List.copyOf(uuids), List.copyOf(mids), match, group);
    }

    private static int find(int[] parent, int i) {
        while (parent[i] != i) {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        return i;
    }

    private static void union(int[] parent, int a, int b) {
        int ra = find(parent, a);
        int rb = find(parent, b);
        if (ra != rb) {
            parent[Math.max(ra, rb)] = Math.min(ra, rb);
        }
    }
}
