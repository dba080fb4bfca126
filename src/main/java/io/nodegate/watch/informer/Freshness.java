package io.nodegate.watch.informer;

import java.time.Duration;

/**
 * When a kind's copy counts as fresh, and how hard the watch works to keep it so. The field case behind every
 * number: an HA control plane loses the apiserver host the watch's streams go through; its TCP connections stay
 * half-open (no FIN, no RST), so a blocked read waits for ever, new requests to that address get no answer, and the
 * kubelets go on renewing their Leases through the other apiservers. The frozen copy then shows every Lease stopped
 * at the same moment: a false NG103 for the whole cluster, in exactly the case the watch exists for.
 *
 * <p><b>{@link #idleLimit} 135 s: a stream that sent nothing, not even a bookmark, for that long is dead.</b> The
 * watch asks for bookmarks ({@code allowWatchBookmarks=true}). kube-apiserver's watch cache
 * ({@code staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go}) sends each watcher a bookmark every
 * {@code defaultBookmarkFrequency = time.Minute} and one 2 s before the watch's deadline ({@code cache_watcher.go}
 * {@code nextBookmarkTime}); watchers are kept in 1-second time buckets and the dispatch timer ticks every
 * {@code wait.Jitter(time.Second, 0.25)}, so a healthy, quiet stream on an idle apiserver carries a bookmark about
 * every 62 s. A bookmark is only handed to a watcher whose buffer has room, and an apiserver starved of CPU sends it
 * late: a real kube-apiserver on two busy cores left a quiet Secret stream without one for 75 s. So the limit allows
 * one bookmark missed, two minutes, plus the 15 s the cacher itself allows past a minute
 * ({@code DefaultEventFreshDuration = defaultBookmarkFrequency + 15*time.Second}, the history it keeps "to maximize
 * chances that last bookmark was sent within kept history"). A longer limit hides nothing: a change that a dead stream
 * failed to deliver is caught by the consistent progress check ({@link #progressEvery}, every minute), whatever the
 * idle limit; the idle limit only decides how soon a stream that is silent, and has nothing to deliver, is replaced. A
 * stream past it is closed (on a thread of its own: a read blocked on a half-open socket is never waited for) and
 * watched again from its last resourceVersion. A server that sends no bookmarks (before v1.16, or a proxy that drops
 * them) costs one extra watch request per quiet 135 s, never a wrong answer.
 *
 * <p><b>{@link #leaseIdleLimit} 30 s for Lease watches while a Lease seen renewing is still valid.</b> A kubelet
 * renews its Lease every {@code nodeLeaseRenewIntervalFraction (0.25) x nodeLeaseDurationSeconds (40 s)} = 10 s
 * ({@code pkg/kubelet/kubelet.go}) and retries a failed renewal within 7 s ({@code maxBackoff} of the lease
 * controller, {@code component-helpers/apimachinery/lease/controller.go}); control-plane components renew their
 * leader Leases every 2 s. While a Lease this watch has seen renewed is still valid ({@code renewTime +
 * leaseDurationSeconds} after now), its holder should renew it again, so 30 s without a Lease event is three missed
 * renewals. Only renewals seen count: a Lease that is valid but nobody renews (a removed apiserver's identity Lease
 * lasts an hour) says nothing. When none is valid (every kubelet really stopped: the batch shutdown NG103 is for)
 * the stream legitimately goes quiet and the 135 s limit applies: a real silence is still reported.
 *
 * <p><b>{@link #answerGrace} 5 s: a watch request not answered by then is not fresh.</b> kube-apiserver writes a
 * watch's status line and headers as soon as the watch is registered ({@code endpoints/handlers/watch.go}:
 * {@code w.WriteHeader(http.StatusOK); flusher.Flush()} before the first event); its cache waits at most 3 s
 * ({@code blockTimeout}) for a version it has not seen yet. The request itself fails after --request-timeout.
 *
 * <p><b>{@link #progressEvery}: the consistent progress check.</b> A {@code limit=1} LIST without a resourceVersion
 * is read at quorum (see {@link ResourceVersions} for what its version does and does not say). Its one item, if the
 * copy holds an older version of it (or does not hold it), is a change the watch has not delivered: the copy gets
 * {@link #proofWait} to catch up, else it is stale and listed again.
 *
 * <p><b>{@link #proofWait} 2 s: how long a proof waits for the watch to catch up</b> with a consistent read (see
 * {@link FreshnessProof}): in a cluster whose kubelets renew, the Lease stream passes any version within a second.
 *
 * @param idleLimit      a watch stream silent longer than this is closed and watched again
 * @param leaseIdleLimit the same for Lease watches while a Lease seen renewing is still valid
 * @param answerGrace    a watch request unanswered longer than this makes the copy not fresh
 * @param progressEvery  how often each kind's copy is compared with a consistent {@code limit=1} LIST
 * @param proofWait      how long a proof waits for the watch to deliver what a consistent read saw
 * @param tick           how often idle streams and pending proofs are checked
 * @param shortWatch     a watch that ends sooner than this with no event is a failure (client-go's "very short
 *                       watch", {@code tools/cache/reflector.go})
 * @param backoff        the wait between failed tries ({@link Backoff})
 */
public record Freshness(Duration idleLimit, Duration leaseIdleLimit, Duration answerGrace, Duration progressEvery,
                        Duration proofWait, Duration tick, Duration shortWatch, Backoff.Settings backoff) {

    public static final Freshness DEFAULTS = new Freshness(Duration.ofSeconds(135), Duration.ofSeconds(30),
            Duration.ofSeconds(5), Duration.ofSeconds(60), Duration.ofSeconds(2), Duration.ofSeconds(1),
            Duration.ofSeconds(1), Backoff.CLIENT_GO);

    public Freshness {
        for (Duration d : new Duration[] {idleLimit, leaseIdleLimit, answerGrace, progressEvery, proofWait, tick,
                shortWatch}) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("freshness durations must be positive: " + d);
            }
        }
    }

    /**
     * These limits with every duration but {@link #shortWatch} divided by {@code factor}: tests play the field's
     * minutes in seconds through the same code path. The short-watch rule stays at its real second: a watch the
     * server ends at once is short at any scale.
     */
    public Freshness scaled(double factor) {
        return new Freshness(divide(idleLimit, factor), divide(leaseIdleLimit, factor), divide(answerGrace, factor),
                divide(progressEvery, factor), divide(proofWait, factor), divide(tick, factor), shortWatch,
                backoff.scaled(factor));
    }

    private static Duration divide(Duration d, double factor) {
        return Duration.ofNanos(Math.max(5_000_000, (long) (d.toNanos() / factor)));
    }
}
