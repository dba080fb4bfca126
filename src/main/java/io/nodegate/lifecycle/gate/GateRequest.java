package io.nodegate.lifecycle.gate;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the operator brings to the gate: the node, and the host owner's reply.
 *
 * @param removedAt   when RKE2 was removed or the agent stopped (not the reboot time); null when not given
 * @param replyCovers the nodes the host owner's reply says were cleaned up at that time (--reply-covers); the
 *                    gated node is always covered
 * @param batchWindow Leases that stopped within this of each other form a batch (NG103's rule)
 */
public record GateRequest(String node, Instant removedAt, String replyFrom, String reply, Duration matchWindow,
                          Set<String> replyCovers, Duration batchWindow) {
    public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(5);
    /** NG103's default: Leases that stopped within 30 s of each other form a batch. */
    public static final Duration DEFAULT_BATCH_WINDOW = Duration.ofSeconds(30);

    public GateRequest {
        matchWindow = matchWindow == null ? DEFAULT_WINDOW : matchWindow;
        replyCovers = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(replyCovers == null ? Set.of() : replyCovers));
        batchWindow = batchWindow == null ? DEFAULT_BATCH_WINDOW : batchWindow;
    }

    /** A reply for this node alone, with the default batch window. */
    public GateRequest(String node, Instant removedAt, String replyFrom, String reply, Duration matchWindow) {
        this(node, removedAt, replyFrom, reply, matchWindow, Set.of(), null);
    }
}
