package io.nodegate.model.probe;

import java.time.Duration;
import java.util.List;

/**
 * What probing one apiserver gave: the renewal latencies, or the error that stopped the measurement, and what
 * happened to the probe Lease on it.
 *
 * @param renewals latencies of the Lease PUTs that succeeded (all of them when {@code error} is null)
 * @param error    why this apiserver could not be measured, null when it was
 * @param cleanup  what became of the probe Lease, in a few words ("deleted", "not created", "NOT DELETED", ...)
 * @param cleanupError why the apiserver itself did not delete it (null when it did or nothing was created);
 *                     when {@code cleanupFailed}, also how to remove it by hand
 * @param cleanupFailed true when the probe Lease may still exist
 */
public record EndpointResult(ApiserverTarget target, String url, List<Duration> renewals, String error,
                             String cleanup, String cleanupError, boolean cleanupFailed) {

    public EndpointResult {
        renewals = List.copyOf(renewals);
    }

    public boolean measured() {
        return error == null && !renewals.isEmpty();
    }

    public Latencies latencies() {
        return measured() ? Latencies.of(renewals) : null;
    }
}
