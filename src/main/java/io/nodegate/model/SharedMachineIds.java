package io.nodegate.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The machineIDs that identify an image rather than a host: a {@code /etc/machine-id} reported together with two or
 * more different systemUUIDs. Clusters built from one image or a cloned VM template (without emptying
 * /etc/machine-id) report it on every Node; siderolabs/talos#4759 shows four Nodes of one cluster with machineID
 * {@code ad432f2cb0c28bbcd1f87a20199237f9}, the default baked into the kubelet image, and distinct systemUUIDs.
 * Such a machineID ties nothing together: every matcher that follows a host by machineID (the fleet's host ledger,
 * NG302, the gate's fleet check) asks here first. A machineID seen with one systemUUID (or only on Nodes that report
 * none) is still an identity; {@code audit} never joins Nodes by machineID at all (NG110 keys on the systemUUID).
 *
 * <p>IDs are taken through {@link HostIdentity#normalise}: empty and all-zero values count for nothing.
 */
public final class SharedMachineIds {

    /** machineID → the distinct systemUUIDs reported with it, and where. */
    private final Map<String, Set<String>> uuidsByMachineId = new TreeMap<>();
    private final Map<String, Set<String>> seenAt = new TreeMap<>();

    /** Counts one Node (or tombstone) that reports {@code machineId} together with {@code systemUuid}. */
    public SharedMachineIds add(String systemUuid, String machineId, String where) {
        String mid = HostIdentity.normalise(machineId);
        String uuid = HostIdentity.normalise(systemUuid);
        if (mid == null) {
            return this;
        }
        Set<String> uuids = uuidsByMachineId.computeIfAbsent(mid, k -> new TreeSet<>());
        if (uuid != null) {
            uuids.add(uuid);
        }
        if (where != null) {
            seenAt.computeIfAbsent(mid, k -> new TreeSet<>()).add(where);
        }
        return this;
    }

    /** Counts every Node of a snapshot; {@code where} names the place (a cluster) in {@link #images()}. */
    public SharedMachineIds addAll(List<NodeInfo> nodes, String where) {
        for (NodeInfo n : nodes) {
            add(n.systemInfo().systemUuid(), n.systemInfo().machineId(), where);
        }
        return this;
    }

    /** Whether this (raw) machineID was seen with two or more systemUUIDs: an image's, identifying no host. */
    public boolean isImage(String machineId) {
        String mid = HostIdentity.normalise(machineId);
        return mid != null && uuidsByMachineId.getOrDefault(mid, Set.of()).size() > 1;
    }

    /**
     * One shared machineID.
     *
     * @param machineId   the normalised machineID
     * @param systemUuids how many different systemUUIDs report it
     * @param where       the places (clusters) it was seen in, sorted
     */
    public record Image(String machineId, int systemUuids, List<String> where) {
    }

    /** Every machineID seen with several systemUUIDs, sorted by machineID. */
    public List<Image> images() {
        List<Image> out = new ArrayList<>();
        uuidsByMachineId.forEach((mid, uuids) -> {
            if (uuids.size() > 1) {
                out.add(new Image(mid, uuids.size(), List.copyOf(seenAt.getOrDefault(mid, Set.of()))));
            }
        });
        return out;
    }
}
