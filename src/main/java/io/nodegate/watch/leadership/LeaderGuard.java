package io.nodegate.watch.leadership;

import io.nodegate.source.json.KubeJson;
import io.nodegate.source.kube.ApiCalls;

import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Asked before every write the watch makes (each Event; any status write added later goes through it too): does this
 * replica still hold the leader Lease? Field case: a leader whose Lease renewals failed kept posting Events for a
 * minute after another replica had taken over, because a pass asked once, at its start; the two replicas' Events
 * then contradicted each other on the same Nodes.
 *
 * <p>The answer is read, not remembered: the elector must still say this replica leads, and a GET of the Lease
 * (read at quorum: no resourceVersion) must name this replica as holder with a renewTime that has not expired. The
 * renewTime was written by this replica with its own clock, so it is compared with the same clock (no skew).
 *
 * <p>What it cannot do: the Events API has no fencing token, so a POST sent in the instant before another replica
 * takes over can still land after. The window is one request, not a pass.
 */
public final class LeaderGuard {

    /** Without leader election (a single process): every write is allowed. */
    public static final LeaderGuard NONE = new LeaderGuard(null, null, null, null, () -> true, Clock.systemUTC());

    private final ApiCalls api;
    private final String namespace;
    private final String leaseName;
    private final String identity;
    private final BooleanSupplier elected;
    private final Clock wallClock;

    /**
     * @param elected   what the elector says now
     * @param wallClock the clock the elector writes renewTime with (the real one)
     */
    public LeaderGuard(ApiCalls api, String namespace, String leaseName, String identity, BooleanSupplier elected,
                       Clock wallClock) {
        this.api = api;
        this.namespace = namespace;
        this.leaseName = leaseName;
        this.identity = identity;
        this.elected = elected;
        this.wallClock = wallClock;
    }

    /** Null when this replica may write now; else why not. */
    public String whyNot() {
        if (!elected.getAsBoolean()) {
            return "this replica no longer leads";
        }
        if (api == null) {
            return null;
        }
        String what = "GET lease " + namespace + "/" + leaseName;
        Optional<Map<String, Object>> lease;
        try {
            lease = api.getPlain(what, "/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases/"
                    + leaseName, "Lease", leaseName, KubeJson.MODEL);
        } catch (RuntimeException e) {
            return "cannot read the leader Lease to check it is still held: " + e.getMessage();
        }
        if (lease.isEmpty()) {
            return "the leader Lease " + namespace + "/" + leaseName + " does not exist";
        }
        Object specValue = lease.get().get("spec");
        Map<?, ?> spec = specValue instanceof Map<?, ?> m ? m : Map.of();
        Object holder = spec.get("holderIdentity");
        if (!identity.equals(holder)) {
            return "the leader Lease " + namespace + "/" + leaseName + " is held by " + holder;
        }
        if (spec.get("renewTime") instanceof String renew && spec.get("leaseDurationSeconds") instanceof Number d) {
            try {
                Instant expires = Instant.parse(renew).plusSeconds(d.longValue());
                if (!expires.isAfter(wallClock.instant())) {
                    return "this replica's leader Lease expired at " + expires + " (its renewals are failing)";
                }
            } catch (DateTimeParseException e) {
                return "the leader Lease has an unreadable renewTime " + renew;
            }
        }
        return null;
    }

    /** Throws {@link LeadershipLost} unless this replica may write now. */
    public void require() {
        String why = whyNot();
        if (why != null) {
            throw new LeadershipLost(why);
        }
    }
}
