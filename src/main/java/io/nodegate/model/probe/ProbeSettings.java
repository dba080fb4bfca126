package io.nodegate.model.probe;

import java.time.Duration;

/**
 * What a probe does and what counts as slow.
 *
 * @param renewals          Lease PUTs per apiserver
 * @param renewDeadline     the leader-election renew deadline the latencies are compared with
 *                          (controller-runtime default 10 s)
 * @param thresholdFraction an apiserver is slow when its p99 exceeds this fraction of the renew deadline
 * @param namespace         where the probe Lease is created
 * @param leaseName         the probe Lease's name
 */
public record ProbeSettings(int renewals, Duration renewDeadline, double thresholdFraction, String namespace,
                            String leaseName) {

    public static final int DEFAULT_RENEWALS = 20;
    public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);
    public static final double DEFAULT_THRESHOLD_FRACTION = 0.2;
    public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY = "nodegate";

    public ProbeSettings {
        if (renewals < 1) {
            throw new IllegalArgumentException("--count must be at least 1, got " + renewals);
        }
        if (renewDeadline == null || renewDeadline.isZero() || renewDeadline.isNegative()) {
            throw new IllegalArgumentException("--renew-deadline must be positive, got " + renewDeadline);
        }
        if (!(thresholdFraction > 0 && thresholdFraction <= 1)) {
            throw new IllegalArgumentException("--threshold-fraction must be in (0, 1], got " + thresholdFraction);
        }
    }

    /** p99 above this is slow. */
    public Duration threshold() {
        return Duration.ofNanos(Math.round(renewDeadline.toNanos() * thresholdFraction));
    }
}
