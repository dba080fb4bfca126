package io.nodegate.handover;

import io.nodegate.model.NodeInfo;
import io.nodegate.model.Tombstone;

import java.util.List;

/**
 * Following a target's host by what survives a rename, an address change and a move to another cluster: its
 * firmware systemUUID and its /etc/machine-id (docs/findings.md, "Host identity"; empty and all-zero IDs identify
 * nothing). Names never join hosts.
 */
final class HostIdentity {

    private HostIdentity() {
    }

    /** "systemUUID", "machineID", "systemUUID and machineID", or null when the Node is not the target's host. */
    static String match(HandoverSpec.Target target, NodeInfo node) {
        String uuid = Tombstone.identity(target.systemUuid());
        String mid = Tombstone.identity(target.machineId());
        boolean u = uuid != null && uuid.equals(Tombstone.identity(node.systemInfo().systemUuid()));
        boolean m = mid != null && mid.equals(Tombstone.identity(node.systemInfo().machineId()));
        return u && m ? "systemUUID and machineID" : u ? "systemUUID" : m ? "machineID" : null;
    }

    /** The Nodes among {@code nodes} that are the target's host. */
    static List<NodeInfo> appearances(HandoverSpec.Target target, List<NodeInfo> nodes) {
        return nodes.stream().filter(n -> match(target, n) != null).toList();
    }
}
