package io.nodegate.detect;

import java.time.Duration;

/**
 * Tunables shared by detectors.
 *
 * @param batchWindow    NG103: Leases that stopped within this of each other form a batch
 * @param newcomerWindow NG111: how recent a Node must be to count as a newcomer
 * @param abandonedAfter NG170: cordoned or not Ready longer than this
 * @param gracePeriod    node-monitor-grace-period; null means "derive from the apiserver version"
 *                       (50 s since v1.32, 40 s before)
 */
public record AuditSettings(Duration batchWindow, Duration newcomerWindow, Duration abandonedAfter,
                            Duration gracePeriod) {

    public static final AuditSettings DEFAULTS =
            new AuditSettings(Duration.ofSeconds(30), Duration.ofHours(72), Duration.ofHours(72), null);
}
