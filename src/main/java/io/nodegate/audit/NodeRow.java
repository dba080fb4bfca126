package io.nodegate.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One line of the audit's node table: what the Node object and its Lease say, ages computed against the
 * snapshot's clock. Times and ages are null when the object does not record them.
 *
 * @param ready       Ready condition status: True, False, Unknown, or null when absent
 * @param readyReason Ready condition reason (e.g. NodeStatusUnknown, KubeletNotReady)
 */
public record NodeRow(
        String name,
        String ready,
        String readyReason,
        Instant leaseRenewTime,
        Duration leaseRenewAge,
        Instant lastHeartbeatTime,
        Duration lastHeartbeatAge,
        boolean cordoned,
        List<String> roles,
        String internalIp,
        String kubeletVersion,
        String bootId,
        String systemUuid,
        Instant created,
        Duration age) {

    public NodeRow {
        roles = roles == null ? List.of() : List.copyOf(roles);
    }
}
