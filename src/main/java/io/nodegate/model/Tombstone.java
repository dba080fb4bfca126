package io.nodegate.model;

import java.time.Instant;
import java.util.Locale;

/**
 * A host that `nodegate remove` deleted, as recorded in the tombstones ConfigMap: the Node name it had and the
 * two host identities that survive a rename (firmware systemUUID, /etc/machine-id). A Node that registers again
 * under the name, or with either identity, is the removed host coming back (NG302).
 *
 * @param name             the Node name the host had when it was removed
 * @param uid              the deleted Node object's uid (a Node with this uid is the removed object itself, seen in
 *                         a read taken before the delete: not a return)
 * @param systemUuid       status.nodeInfo.systemUUID at removal (null when it was empty or all zeros)
 * @param machineId        status.nodeInfo.machineID at removal (null when it was empty or all zeros)
 * @param removedAt        when the Node was deleted
 * @param gateRecordSha256 sha256 of the gate record the removal relied on (null for an --override)
 * @param removedBy        who ran the removal (local user and kubeconfig user)
 */
public record Tombstone(String name, String uid, String systemUuid, String machineId, Instant removedAt, String gateRecordSha256,
                        String removedBy) {

    public Tombstone {
        systemUuid = identity(systemUuid);
        machineId = identity(machineId);
    }

    /**
     * An identity as tombstones store and compare it: lower case, null when it identifies nothing (empty or all
     * zeros: some boards report a zero UUID, and two such hosts are not one host).
     */
    public static String identity(String id) {
        return NodeSystemInfo.isMeaningfulId(id) ? id.strip().toLowerCase(Locale.ROOT) : null;
    }

    /**
     * Which of this tombstone's identities the node carries: "name", "systemUUID", "machineID", or null. Names are
     * per cluster, so a name counts only where the tombstone was written ({@code sameCluster}); the host
     * identities count in any cluster. The deleted object itself (same uid) never matches.
     */
    public String matchOf(NodeInfo node, boolean sameCluster) {
        if (uid != null && uid.equals(node.uid())) {
            return null;
        }
        if (sameCluster && name.equals(node.name())) {
            return "name";
        }
        if (systemUuid != null && systemUuid.equals(identity(node.systemInfo().systemUuid()))) {
            return "systemUUID";
        }
        if (machineId != null && machineId.equals(identity(node.systemInfo().machineId()))) {
            return "machineID";
        }
        return null;
    }
}
