package io.nodegate.detect;

import io.nodegate.model.ClusterState;

import java.time.Duration;

/**
 * The node-monitor-grace-period in force: how long the node lifecycle controller waits for a heartbeat before
 * it sets Ready=Unknown. kube-controller-manager's default went from 40 s to 50 s in v1.32.
 *
 * @param value  the grace period
 * @param source where it came from, for evidence ("--grace-period", "apiserver v1.34.1", ...)
 */
public record GracePeriod(Duration value, String source) {

    public static final Duration SINCE_1_32 = Duration.ofSeconds(50);
    public static final Duration BEFORE_1_32 = Duration.ofSeconds(40);

    public static GracePeriod resolve(ClusterState state, AuditSettings settings) {
        if (settings.gracePeriod() != null) {
            return new GracePeriod(settings.gracePeriod(), "--grace-period");
        }
        return KubeVersion.parse(state.serverVersion())
                .map(v -> new GracePeriod(v.atLeast(1, 32) ? SINCE_1_32 : BEFORE_1_32, "default for apiserver " + v))
                // Unknown version: the longer default counts fewer Leases as silent, so it cannot invent a batch.
                .orElse(new GracePeriod(SINCE_1_32, "default (apiserver version unknown)"));
    }
}
