package io.nodegate.lifecycle.gate;

import java.time.Duration;
import java.time.Instant;

/**
 * What the operator brings to the gate: the node, and the host owner's reply.
 *
 * @param removedAt when RKE2 was removed or the agent stopped (not the reboot time); null when not given
 */
public record GateRequest(String node, Instant removedAt, String replyFrom, String reply, Duration matchWindow) {
    public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(5);

    public GateRequest {
        matchWindow = matchWindow == null ? DEFAULT_WINDOW : matchWindow;
    }
}
