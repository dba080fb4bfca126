package io.nodegate.model;

import java.time.Instant;

/** One entry of a Node's status.conditions. Times may be null when the object lacks them. */
public record Condition(String type, String status, String reason, String message,
                        Instant lastHeartbeatTime, Instant lastTransitionTime) {
}
