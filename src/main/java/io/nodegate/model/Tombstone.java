package io.nodegate.model;

import java.time.Instant;
import java.util.List;

/**
 * A host that `nodegate remove` deleted, as recorded in the tombstones ledger: the Node name it had and the two host
 * identities that survive a rename (firmware systemUUID, /etc/machine-id). A Node created after the removal under
 * the name, or with either identity, is the removed host coming back (NG302).
 *
 * @param name               the Node name the host had when it was removed
 * @param uid                the deleted Node object's uid (a Node with this uid is the removed object itself, seen in
 *                           a read taken before the delete: not a return)
 * @param systemUuid         status.nodeInfo.systemUUID at removal ({@link HostIdentity}; null when it identifies
 *                           nothing)
 * @param machineId          status.nodeInfo.machineID at removal (as systemUuid)
 * @param removedAt          when the Node was deleted: the API server's clock (the Date of its answer to the DELETE,
 *                           whole seconds), the clock creationTimestamps come from; nodegate's clock only when the
 *                           answer carried none
 * @param gateRecordSha256   sha256 of the gate record the removal relied on (null for an --override)
 * @param removedBy          who ran the removal (local user and kubeconfig user)
 * @param handedTo           the cluster the host was handed to ({@code remove --handed-to}, the name `fleet` shows
 *                           for it), or null: its Node there is the expected arrival, not a return
 * @param liveSameSystemUuid Nodes of the removing cluster that existed at removal and report the same systemUUID
 *                           (cloned VMs, the other half of an NG110 pair): they existed before the tombstone, so the
 *                           quarantine never refuses their names for this identity (a restarting kubelet POSTs its
 *                           Node first, and admission runs before the API server finds that it exists)
 * @param liveSameMachineId  the same for the machineID
 */
public record Tombstone(String name, String uid, String systemUuid, String machineId, Instant removedAt,
                        String gateRecordSha256, String removedBy, String handedTo, List<String> liveSameSystemUuid,
                        List<String> liveSameMachineId) {

    public static final String BY_NAME = "name";
    public static final String BY_SYSTEM_UUID = "systemUUID";
    public static final String BY_MACHINE_ID = "machineID";

    public Tombstone {
        systemUuid = identity(systemUuid);
        machineId = identity(machineId);
        handedTo = handedTo == null || handedTo.isBlank() ? null : handedTo.strip();
        liveSameSystemUuid = liveSameSystemUuid == null ? List.of()
                : liveSameSystemUuid.stream().distinct().sorted().toList();
        liveSameMachineId = liveSameMachineId == null ? List.of()
                : liveSameMachineId.stream().distinct().sorted().toList();
    }

    /** A tombstone without a destination and without Nodes that shared its identities. */
    public Tombstone(String name, String uid, String systemUuid, String machineId, Instant removedAt,
                     String gateRecordSha256, String removedBy) {
        this(name, uid, systemUuid, machineId, removedAt, gateRecordSha256, removedBy, null, List.of(), List.of());
    }

    /** An identity as tombstones store and compare it ({@link HostIdentity#normalise}). */
    public static String identity(String id) {
        return HostIdentity.normalise(id);
    }

    /**
     * Which of this tombstone's identities the node carries: {@link #BY_NAME}, {@link #BY_SYSTEM_UUID},
     * {@link #BY_MACHINE_ID}, or null. Names are per cluster, so a name counts only where the tombstone was written
     * ({@code sameCluster}); the host identities count in any cluster. The deleted object itself (same uid) never
     * matches.
     */
    public String matchOf(NodeInfo node, boolean sameCluster) {
        return matchOf(node, sameCluster, new SharedMachineIds());
    }

    /**
     * As {@link #matchOf(NodeInfo, boolean)}, where a machineID matches only while it is an identity: not when the
     * two sides report different systemUUIDs (the machineID is then carried by two of them), and not when
     * {@code images} has seen it with several systemUUIDs ({@link SharedMachineIds}): Nodes built from the removed
     * host's image or VM template share its /etc/machine-id without being it.
     */
    public String matchOf(NodeInfo node, boolean sameCluster, SharedMachineIds images) {
        if (uid != null && uid.equals(node.uid())) {
            return null;
        }
        if (sameCluster && name.equals(node.name())) {
            return BY_NAME;
        }
        String uuid = identity(node.systemInfo().systemUuid());
        if (systemUuid != null && systemUuid.equals(uuid)) {
            return BY_SYSTEM_UUID;
        }
        boolean uuidsDiffer = systemUuid != null && uuid != null;
        if (machineId != null && machineId.equals(identity(node.systemInfo().machineId())) && !uuidsDiffer
                && !images.isImage(machineId)) {
            return BY_MACHINE_ID;
        }
        return null;
    }

    /**
     * True when one identity matches and the other one, known on both sides, differs: only the firmware UUID
     * matches (a reinstalled host regenerated /etc/machine-id, or VMs cloned with a copied UUID), or only the
     * machineID does (VMs cloned from one image without a new machine-id). The rule of docs/findings.md "Host
     * identity": such a match is never critical on its own.
     */
    public boolean contradictedBy(NodeInfo node) {
        String uuid = identity(node.systemInfo().systemUuid());
        String mid = identity(node.systemInfo().machineId());
        boolean uuidKnown = systemUuid != null && uuid != null;
        boolean midKnown = machineId != null && mid != null;
        return uuidKnown && midKnown && systemUuid.equals(uuid) != machineId.equals(mid);
    }

    /**
     * Whether the quarantine exempts this node: it was one of the live Nodes recorded for every identity it shares
     * with the tombstone, and it does not carry the tombstone's name (the same rule as the CEL in
     * {@code QuarantinePolicy}).
     */
    public boolean existedAtRemoval(NodeInfo node) {
        String uuid = identity(node.systemInfo().systemUuid());
        String mid = identity(node.systemInfo().machineId());
        boolean byUuid = systemUuid != null && systemUuid.equals(uuid);
        boolean byMid = machineId != null && machineId.equals(mid);
        return (byUuid || byMid) && !name.equals(node.name())
                && (!byUuid || liveSameSystemUuid.contains(node.name()))
                && (!byMid || liveSameMachineId.contains(node.name()));
    }
}
