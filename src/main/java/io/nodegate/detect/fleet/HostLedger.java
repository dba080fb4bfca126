package io.nodegate.detect.fleet;

import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.SharedMachineIds;

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
 *
 * <p>A machineID reported with two or more different systemUUIDs is an image's /etc/machine-id, not a host's
 * ({@link SharedMachineIds}): clusters built from one image or cloned VM template report it on every Node. It
 * joins nothing, so one image in two clusters is never "one host in two clusters"; {@link #shared()} keeps it, and
 * `fleet` names it in a note.
 */
public final class HostLedger {

    private static final Comparator<HostAppearance> OLDEST_FIRST = Comparator
            .comparing(HostAppearance::created, Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
            .thenComparing(HostAppearance::cluster).thenComparing(HostAppearance::node);

    private final List<Host> hosts;
    private final SharedMachineIds shared;

    private HostLedger(List<Host> hosts, SharedMachineIds shared) {
        this.hosts = List.copyOf(hosts);
        this.shared = shared;
    }

    /** The machineIDs seen with several systemUUIDs across every cluster read: images, never joining hosts. */
    public SharedMachineIds shared() {
        return shared;
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
        SharedMachineIds shared = new SharedMachineIds();
        all.forEach(a -> shared.add(a.systemUuid(), a.machineId(), a.cluster()));
        Map<String, Integer> firstWithId = new HashMap<>();
        for (int i = 0; i < all.size(); i++) {
            HostAppearance a = all.get(i);
            boolean midIdentifies = a.machineId() != null && !shared.isImage(a.machineId());
            for (String key : new String[]{a.systemUuid() == null ? null : "uuid:" + a.systemUuid(),
                    midIdentifies ? "mid:" + a.machineId() : null}) {
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
            hosts.add(host(group, shared));
        }
        hosts.sort(Comparator.comparing((Host h) -> h.appearances().get(0).cluster())
                .thenComparing(h -> h.appearances().get(0).node()));
        return new HostLedger(hosts, shared);
    }

    private static Host host(List<HostAppearance> group, SharedMachineIds shared) {
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
        // an image's machineID on both sides confirms nothing: the match is the firmware UUID's alone
        boolean midShared = mids.size() == 1 && withMid >= 2 && !shared.isImage(mids.first());
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
