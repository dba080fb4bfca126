package io.nodegate.model;

import java.util.ArrayList;
import java.util.List;

/**
 * Which Nodes are held at birth, and why: a Node whose systemUUID or machineID is tombstoned, belongs to another
 * (older) live Node, or that the declared inventory does not place gets the taint {@value #TAINT_KEY} until a
 * person accepts it (`nodegate accept`). The same rule for the watch, which applies the taint, and for `accept`,
 * which says what it is lifting. Pure.
 */
public final class NewcomerHold {

    public static final String TAINT_KEY = "nodegate.io/unaccepted";
    public static final String NO_SCHEDULE = "NoSchedule";
    public static final String NO_EXECUTE = "NoExecute";
    /** Who accepted the Node (`nodegate accept`): the local and the kubeconfig user, never a credential. */
    public static final String ACCEPTED_BY = "nodegate.io/accepted-by";
    public static final String ACCEPTED_AT = "nodegate.io/accepted-at";

    private NewcomerHold() {
    }

    /**
     * The hold's effect as a flag gives it ({@code --hold-effect} of `policy --hold` and of the watch): NoSchedule or
     * NoExecute, spelled as Kubernetes spells them; null for anything else.
     */
    public static String effect(String flag) {
        return NO_SCHEDULE.equals(flag) || NO_EXECUTE.equals(flag) ? flag : null;
    }

    /** Whether the Node carries the hold. */
    public static boolean held(NodeInfo node) {
        return node.taints().stream().anyMatch(t -> TAINT_KEY.equals(t.key()));
    }

    /** Whether a person accepted it (the annotation `accept` writes): the watch never holds it again. */
    public static boolean accepted(NodeInfo node) {
        return node.annotation(ACCEPTED_BY) != null;
    }

    /**
     * Why {@code node} must be held, in words; empty when nothing holds it. The tombstones' own rules apply (a Node
     * that existed when the tombstone was written, or was created before the removal, is no return); a shared
     * identity counts only against an older Node (the newer one is the newcomer) and a machineID only while it is
     * an identity, not an image's ({@link SharedMachineIds}); the inventory only when one is declared.
     */
    public static List<String> reasons(NodeInfo node, ClusterState state) {
        List<String> reasons = new ArrayList<>();
        SharedMachineIds images = new SharedMachineIds().addAll(state.nodes(), null);
        for (Tombstone t : state.tombstones().items()) {
            String match = t.matchOf(node, true, images);
            if (match == null || t.existedAtRemoval(node)) {
                continue;
            }
            if (node.created() != null && t.removedAt() != null && !node.created().isAfter(t.removedAt())) {
                continue;
            }
            reasons.add("its " + match + " is tombstoned: host " + t.name() + " was removed"
                    + (t.removedAt() == null ? "" : " at " + t.removedAt()));
        }
        String uuid = HostIdentity.normalise(node.systemInfo().systemUuid());
        String mid = HostIdentity.normalise(node.systemInfo().machineId());
        for (NodeInfo other : state.nodes()) {
            if (other.name().equals(node.name()) || !olderThan(other, node)) {
                continue;
            }
            if (uuid != null && uuid.equals(HostIdentity.normalise(other.systemInfo().systemUuid()))) {
                reasons.add("its systemUUID " + uuid + " belongs to the older Node " + other.name());
            } else if (mid != null && !images.isImage(mid)
                    && mid.equals(HostIdentity.normalise(other.systemInfo().machineId()))) {
                reasons.add("its machineID " + mid + " belongs to the older Node " + other.name());
            }
        }
        if (state.inventory() != null) {
            NodeInventory.Judgement j = state.inventory().judge(node, state.nodes());
            if (!j.declared()) {
                reasons.add("it is not in the declared inventory: " + j.reason());
            }
        }
        return reasons;
    }

    private static boolean olderThan(NodeInfo a, NodeInfo b) {
        if (a.created() == null || b.created() == null) {
            return b.created() != null; // an unknown age is treated as older: the known newcomer is the one held
        }
        return a.created().isBefore(b.created()) || (a.created().equals(b.created()) && a.name().compareTo(b.name()) < 0);
    }
}
