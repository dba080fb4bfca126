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
 * @param cordonedBy  the field manager that set spec.unschedulable (managedFields), or null when not known
 * @param cordonedAt  when it set it (its managedFields entry's time), or null
 * @param cordonAge   how long ago, or null
 * @param cordonReason the {@code nodegate.io/cordon-reason} annotation, or null
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
        Duration age,
        String cordonedBy,
        Instant cordonedAt,
        Duration cordonAge,
        String cordonReason) {

    public NodeRow {
        roles = roles == null ? List.of() : List.copyOf(roles);
    }
}
