package io.nodegate.watch.informer;

import io.nodegate.CollectionException;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.source.kube.StateAssembler;
import io.nodegate.source.kube.ReadKind;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.kube.ApiCalls;
import io.nodegate.source.kube.ApiHttp;
import io.nodegate.time.Durations;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The objects of one row of the kinds table, kept current the way client-go's reflector keeps an informer's store:
 * LIST (paginated) at a resourceVersion, then WATCH from that version, for ever; and never trusted further than it
 * can be shown fresh ({@link Freshness}).
 * <ul>
 *   <li>Each watch asks the server to end it after 5-10 min ({@code timeoutSeconds}, spread so that replicas do
 *       not all come back at once) and asks for BOOKMARK events, which move the version on without a change. When
 *       the server ends it, the next watch starts from the last version seen: nothing is missed, nothing re-listed.</li>
 *   <li>A stream that sends nothing, not even a bookmark, for longer than its idle limit is closed from outside
 *       ({@link #checkIdle}; a read blocked on a half-open connection is never waited for) and watched again from
 *       its last version.</li>
 *   <li>410 Gone (the version was compacted away, at start or as an ERROR event): LIST again. The new list
 *       replaces the store; what is no longer there is deleted, what changed is updated. So does a copy a
 *       consistent read proved behind ({@link #markStale}).</li>
 *   <li>Any other failure (connection refused, 403, 500, no answer, a broken or cut stream, a watch the server
 *       ended in under a second with no event): retried after client-go's jittered back-off ({@link Backoff}); a
 *       failed LIST as a LIST, a failed watch as a watch from the last version. The first failure and each change of
 *       cause are logged, not every retry. An error never empties the store.</li>
 * </ul>
 * While the copy is not fresh ({@link #freshnessProblem}: not listed, listing again, backing off, a watch request
 * unanswered, no progress within the idle limit, or proved behind) the watch neither reports nor resolves
 * anything.
 *
 * <p>Each object is mapped into the model as it arrives ({@link Held}), so a pass only collects models. A Lease
 * update that only renews ({@link LeaseRenewal}) replaces only the renewTime and resourceVersion of the Lease already
 * held instead of storing the new one: at 5,000 nodes that is 500 updates a second, and storing each new object moved
 * them all into the old generation, whose full collections (~200 ms every ~20 s, measured) landed in the passes.
 *
 * <p>Why not fabric8's SharedIndexInformer, which does the same: it parses every event into fabric8's typed model.
 * At 5,000 nodes the kubelets renew their Leases 500 times a second, and that parsing alone cost 12 % of a core
 * (bench/RESULTS.md). Here each event is read by {@link KubeJson} straight into the plain values the model maps
 * from, skipping managedFields, and a Secret's values, as it is parsed.
 */
final class KindWatch {

    /**
     * One object as held: its model and the notes its mapping made, or the mapping's failure (a field of the wrong
     * shape: the pass that meets it fails, naming it, as a LIST would); its resourceVersion; and what tells its next
     * version's kind of update: a Node keeps a digest of the fields a heartbeat post leaves alone
     * ({@link NodeHeartbeat#digest}), a Lease one of the fields a renewal leaves alone ({@link LeaseRenewal#digest});
     * other kinds keep nothing more. No plain JSON is held once mapped: holding each Node's beside its model kept
     * every Node twice (at 20,000 field-sized nodes most of the watch's heap), and each Lease's maps were the next
     * biggest part (bench/RESULTS.md).
     *
     * @param object          the plain JSON values as mapped; null once held
     * @param version         metadata.resourceVersion, or null when the object had none
     * @param heartbeatDigest a Node's {@link NodeHeartbeat#digest} or a Lease's {@link LeaseRenewal#digest}, or null
     */
    record Held(Map<String, Object> object, Object model, List<String> notes, RuntimeException mappingFailure,
                String version, byte[] heartbeatDigest) {

        /** As a mapper makes it: with the plain values it mapped, which {@link KindWatch} then keeps or drops. */
        Held(Map<String, Object> object, Object model, List<String> notes, RuntimeException mappingFailure) {
            this(object, model, notes, mappingFailure, object == null ? null : KindWatch.version(object), null);
        }
    }

    /** Maps one object into the model as it arrives. */
    interface Mapper {
        Held map(ReadKind<?, ?> kind, Map<String, Object> object);
    }

    /** What the cache hears from one kind's watch. Called on the watch's own thread, one call at a time. */
    interface Listener {
        /** An object was added, changed or deleted (a LIST after 410 reports only what differs). */
        void changed(ReadKind<?, ?> kind);

        /**
         * A heartbeat, not a change: a Lease only renewed ({@link LeaseRenewal}) or a Node whose kubelet only posted
         * its heartbeat times ({@link NodeHeartbeat}). The object is stored; no pass is asked for.
         */
        void renewed(ReadKind<?, ?> kind);
    }

    /** Where the watch is; only {@link #WATCHING} (or a new watch just asked for) can be fresh. */
    enum Phase { STARTING, LISTING, REQUESTING, WATCHING, BACKING_OFF, CLOSED }

    /** Why a watch was started again: the label of nodegate_informer_restarts_total. */
    static final List<String> RESTART_REASONS = List.of("idle", "stale", "short", "gone", "error");

    /** A kubelet's Lease duration when a Lease does not say (nodeLeaseDurationSeconds default). */
    private static final long DEFAULT_LEASE_SECONDS = 40;

    private final ApiCalls api;
    private final ReadKind<?, ?> kind;
    private final Mapper mapper;
    private final Listener listener;
    private final Consumer<String> log;
    private final Freshness limits;
    private final Clock clock;
    private final boolean leases;
    private final boolean nodes;
    private final Backoff backoff;
    private final Map<String, Held> store = new ConcurrentHashMap<>();
    /** The texts that many held Nodes or Leases repeat, one copy each; written on this kind's watch thread only. */
    private final SharedStrings shared = new SharedStrings();
    private final Map<String, AtomicLong> restarts = new ConcurrentHashMap<>();
    private final AtomicLong bookmarks = new AtomicLong();
    private final Thread thread;
    private volatile boolean closed;
    private volatile boolean synced;
    private volatile Phase phase = Phase.STARTING;
    private volatile long lastProgressNanos;
    private volatile long requestedAtNanos;
    private volatile String lastError;
    private volatile Runnable abortWatch;
    /** Why the open stream was closed from outside (idle, stale); null when the server or the network ended it. */
    private volatile String abortCause;
    private volatile String staleReason;
    private volatile boolean idleAbortSent;
    /** The watch being asked for replaces one closed for silence: not fresh until the server answers it. */
    private volatile boolean replacingSilentStream;
    private Duration lastSilentWithin;
    private volatile boolean relistRequested;
    private volatile CatchUp pendingCatchUp;
    /** The latest renewTime + leaseDurationSeconds of the Leases held (Lease kinds only). */
    private volatile Instant leaseValidUntil;
    /**
     * The version the copy holds everything up to (the LIST's, then each event's or bookmark's), where the next watch
     * starts; null: LIST first. Written by the watch thread only.
     */
    private volatile String resourceVersion;
    /** 410 answers since the last event (only the watch thread reads and writes it). */
    private int goneInARow;
    private volatile long eventsThisWatch;
    private volatile long openedAtNanos;
    private volatile int failuresInARow;
    private String lastLoggedCause;

    /** client-go's reflector: each watch lasts between 5 and 10 min (minWatchTimeout times 1 to 2). */
    static final int MIN_WATCH_SECONDS = 300;

    private final int minWatchSeconds;

    KindWatch(ApiCalls api, ReadKind<?, ?> kind, Mapper mapper, Listener listener, Consumer<String> log) {
        this(api, kind, mapper, listener, log, MIN_WATCH_SECONDS);
    }

    /** @param minWatchSeconds each watch asks to be ended after this to twice this many seconds */
    KindWatch(ApiCalls api, ReadKind<?, ?> kind, Mapper mapper, Listener listener, Consumer<String> log,
              int minWatchSeconds) {
        this(api, kind, mapper, listener, log, minWatchSeconds, Freshness.DEFAULTS, Clock.systemUTC());
    }

    /**
     * @param limits when the copy counts as fresh, and the back-off
     * @param clock  the clock Lease renewTimes are compared with (whether a held Lease is still valid)
     */
    KindWatch(ApiCalls api, ReadKind<?, ?> kind, Mapper mapper, Listener listener, Consumer<String> log,
              int minWatchSeconds, Freshness limits, Clock clock) {
        this.minWatchSeconds = minWatchSeconds;
        this.api = api;
        this.kind = kind;
        this.mapper = mapper;
        this.leases = "Lease".equals(kind.kind());
        this.nodes = "Node".equals(kind.kind());
        this.listener = listener;
        this.log = log;
        this.limits = limits;
        this.clock = clock;
        this.backoff = new Backoff(limits.backoff(), () -> ThreadLocalRandom.current().nextDouble());
        RESTART_REASONS.forEach(r -> restarts.put(r, new AtomicLong()));
        this.thread = new Thread(this::run, "nodegate-watch-" + kind.id());
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    ReadKind<?, ?> kind() {
        return kind;
    }

    /** True while the copy is fresh: listed, watching, progress within its limit, not proved behind. */
    boolean healthy() {
        return freshnessProblem(System.nanoTime()) == null;
    }

    boolean synced() {
        return synced;
    }

    Phase phase() {
        return phase;
    }

    /** The last failure said, until a LIST or watch succeeds again; null when none. */
    String lastError() {
        return lastError;
    }

    /** The objects held now, with their models (a live view: read it during a pass, do not keep it). */
    Collection<Held> held() {
        return store.values();
    }

    int size() {
        return store.size();
    }

    /**
     * Calls {@code each} with every object held now, by key. Safe from any thread beside the watch thread's writes:
     * the store is a ConcurrentHashMap (each mapping is seen complete, with everything written before its put), and
     * a {@link Held} and its model are immutable. Weakly consistent: a put during the walk may or may not be seen.
     */
    void forEachHeld(java.util.function.BiConsumer<String, Held> each) {
        store.forEach(each);
    }

    /** Watches started again since start, by reason ({@link #RESTART_REASONS}). */
    Map<String, Long> restarts() {
        Map<String, Long> out = new java.util.LinkedHashMap<>();
        RESTART_REASONS.forEach(r -> out.put(r, restarts.get(r).get()));
        return out;
    }

    /** BOOKMARK events received since start: each moved the version on without a change. */
    long bookmarks() {
        return bookmarks.get();
    }

    /** The version the copy holds everything up to; null before the first LIST. */
    String version() {
        return resourceVersion;
    }

    /** True when the copy has delivered everything up to {@code version} (an event or bookmark at or past it). */
    boolean reached(String version) {
        return ResourceVersions.atLeast(resourceVersion, version);
    }

    /** The resourceVersion of the object held under {@code key} ("namespace/name" or "name"), or null. */
    String heldVersion(String key) {
        Held h = store.get(key);
        return h == null ? null : h.version();
    }

    /** The keys held now. */
    Set<String> heldKeys() {
        return Set.copyOf(store.keySet());
    }

    /**
     * Why the copy is not fresh at {@code nowNanos} (System.nanoTime), or null when it is: listed once, not listing
     * again, not backing off, a watch open (or asked for less than {@link Freshness#answerGrace} ago), progress
     * (the LIST, the watch's answer, an event or a bookmark) within the idle limit, and not proved behind.
     */
    String freshnessProblem(long nowNanos) {
        if (closed) {
            return "closed";
        }
        String error = lastError == null ? "" : ": " + lastError;
        if (!synced) {
            return "not listed yet" + error;
        }
        if (staleReason != null) {
            return "behind the server, listing again (" + staleReason + ")";
        }
        Phase p = phase;
        switch (p) {
            case LISTING -> {
                return "listing again" + error;
            }
            case BACKING_OFF, STARTING -> {
                return "not watching, retrying" + error;
            }
            case REQUESTING -> {
                long waiting = nowNanos - requestedAtNanos;
                if (failuresInARow > 0 || replacingSilentStream) {
                    // after a failure, or a stream closed for silence, only an answer shows the server is back: the
                    // grace below is for a stream that was healthy, not for the copy a dead stream left
                    return "watch request sent " + seconds(waiting) + " ago, not answered yet" + error;
                }
                if (waiting > limits.answerGrace().toNanos()) {
                    return "watch request sent " + seconds(waiting) + " ago and not answered";
                }
            }
            case WATCHING -> {
                long open = nowNanos - openedAtNanos;
                if (failuresInARow > 0 && eventsThisWatch == 0 && open < limits.shortWatch().toNanos()) {
                    // a server that ends every watch at once answers each one: after failures, a watch counts
                    // once it delivered an event or outlived the short-watch limit
                    return "watch answered " + seconds(open) + " ago after failures, not shown to last yet" + error;
                }
            }
            default -> {
            }
        }
        Duration limit = idleLimit();
        long quiet = nowNanos - lastProgressNanos;
        if (quiet > limit.toNanos()) {
            return "no event or bookmark for " + seconds(quiet) + " (limit " + Durations.format(limit) + ")";
        }
        return null;
    }

    /**
     * The idle limit now: the shorter Lease one while a Lease seen renewing on this watch is still valid
     * ({@link Freshness}). Only renewals seen count: a Lease that is valid but nobody renews (a removed apiserver's
     * identity Lease lasts an hour) says nothing about how soon the next event comes.
     */
    Duration idleLimit() {
        Instant valid = leaseValidUntil;
        return leases && valid != null && valid.isAfter(clock.instant()) ? limits.leaseIdleLimit()
                : limits.idleLimit();
    }

    /**
     * Closes the open stream when it sent nothing for longer than its idle limit, so it is watched again from the
     * last version; and marks the copy stale when a catch-up the progress check asked for did not come in time.
     * Called every {@link Freshness#tick} from outside the watch thread.
     */
    void checkIdle(long nowNanos) {
        if (closed) {
            return;
        }
        if (phase == Phase.WATCHING && !idleAbortSent) {
            Duration limit = idleLimit();
            long quiet = nowNanos - lastProgressNanos;
            if (quiet > limit.toNanos()) {
                // once per stream: on a half-open connection the close waits for the blocked read, which the
                // socket's read timeout ends ({@link #watchOnce}); the copy counts as not fresh either way
                idleAbortSent = true;
                abort("idle", "no event or bookmark for " + seconds(quiet) + " (idle limit "
                        + Durations.format(limit) + "): the stream is closed and watched again from version "
                        + resourceVersion);
            }
        }
        CatchUp wanted = pendingCatchUp;
        if (wanted != null) {
            if (wanted.satisfied(this)) {
                pendingCatchUp = null;
            } else if (nowNanos - wanted.askedNanos() > limits.proofWait().toNanos()) {
                pendingCatchUp = null;
                markStale(wanted.describe(this));
            }
        }
    }

    /**
     * A consistent read saw something the watch has not delivered: the copy gets {@link Freshness#proofWait} to
     * catch up (an event in flight), after which {@link #checkIdle} marks it stale.
     */
    void expectCatchUp(CatchUp wanted) {
        if (!wanted.satisfied(this)) {
            pendingCatchUp = wanted;
        }
    }

    /**
     * The copy is proved behind the server: it is not fresh until a new LIST has replaced it. The open stream is
     * closed: at once while it delivers; a silent one (a half-open connection, where the close waits for the blocked
     * read) when its read timeout, the idle limit, ends the read.
     */
    void markStale(String reason) {
        if (closed) {
            return;
        }
        staleReason = reason;
        relistRequested = true;
        log.accept("informer " + kind.id() + ": the copy is behind the server: " + reason + "; listing again");
        abort("stale", null);
    }

    private void abort(String reason, String cause) {
        Runnable abort = abortWatch;
        if (abort != null) {
            abortCause = reason + (cause == null ? "" : ": " + cause);
            abort.run();
        }
    }

    /** Stops the watch without waiting for it (the connection is closed on a thread of its own, see ApiHttp). */
    void close() {
        closed = true;
        phase = Phase.CLOSED;
        Runnable abort = abortWatch;
        if (abort != null) {
            abort.run();
        }
        thread.interrupt();
    }

    private void run() {
        while (!closed) {
            try {
                if (resourceVersion == null || relistRequested) {
                    phase = Phase.LISTING;
                    relist();
                }
                watchOnce();
            } catch (ApiCalls.Gone gone) {
                if (closed) {
                    return;
                }
                restarts.get("gone").incrementAndGet();
                log.accept("informer " + kind.id() + ": " + gone.getMessage());
                resourceVersion = null;
                // a server that answers 410 to the version of the LIST it just served would make this a loop of
                // whole LISTs: the second 410 in a row without an event between waits like any failure
                if (goneInARow++ > 0 && !backOff(gone.getMessage())) {
                    return;
                }
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                // a failed call or a broken answer (CollectionException), or one nobody expected; or a stream closed
                // from outside (idle, stale): the kind is not fresh and is tried again, never "0 found"
                String cause = abortCause;
                abortCause = null;
                if (cause == null && e instanceof ApiHttp.Silent) {
                    cause = "idle: no event or bookmark for " + Durations.format(lastSilentWithin) + " ("
                            + e.getMessage() + "): watched again from version " + resourceVersion;
                }
                String said = cause != null ? cause
                        : e instanceof CollectionException ? e.getMessage() : e.toString();
                if (cause != null && cause.startsWith("stale")) {
                    restarts.get("stale").incrementAndGet();
                    continue; // the next round lists again at once
                }
                if (cause != null && cause.startsWith("idle")) {
                    // watched again at once from the last version: a quiet stream from a server that sends no
                    // bookmarks is answered again at once; a dead host's is not, and that failure backs off
                    restarts.get("idle").incrementAndGet();
                    replacingSilentStream = true;
                    logOnce(said, "");
                    lastError = said;
                    continue;
                }
                restarts.get(e instanceof ShortWatch ? "short" : "error").incrementAndGet();
                if (!backOff(said)) {
                    return;
                }
            }
        }
    }

    /** Says the failure (the first one, and each change of cause), then waits; false when closed meanwhile. */
    private boolean backOff(String cause) {
        phase = Phase.BACKING_OFF;
        lastError = cause;
        failuresInARow++;
        Duration wait = backoff.next(System.nanoTime());
        logOnce(cause, "; retrying in " + Durations.format(wait) + " (jittered back-off up to "
                + Durations.format(limits.backoff().cap()) + "; further tries are logged when the cause changes)");
        try {
            Thread.sleep(Math.max(1, wait.toMillis()));
            return !closed;
        } catch (InterruptedException e) {
            return false;
        }
    }

    /** Says {@code cause} (and {@code more}) unless the same cause was said last (until the watch delivers again). */
    private void logOnce(String cause, String more) {
        if (!Objects.equals(causeOf(cause), lastLoggedCause)) {
            lastLoggedCause = causeOf(cause);
            log.accept("informer " + kind.id() + ": " + cause + more);
        }
    }

    /** A cause without the numbers that change from one try to the next (seconds waited, versions). */
    private static String causeOf(String said) {
        return said == null ? null : said.replaceAll("[0-9]+(\\.[0-9]+)?", "#");
    }

    /**
     * The watch works again (its first event, or it lived past the short-watch limit): says so once after failures.
     * Merely answering is not enough: a server that ends every watch at once answers each one.
     */
    private void recovered() {
        if (failuresInARow > 0) {
            log.accept("informer " + kind.id() + ": watching again after " + failuresInARow + " failed "
                    + (failuresInARow == 1 ? "try" : "tries") + " (last: " + lastError + ")");
            // after a real failure the next one is said again; quiet streams closed for silence (a server that
            // sends no bookmarks: every idle limit) are said once
            lastLoggedCause = null;
        }
        failuresInARow = 0;
        lastError = null;
    }

    /** One item of a LIST: its key, and what to hold for it, or null when the same version is held already. */
    private record Listed(String key, Held held) {
    }

    /** LIST, then make the store hold exactly what it answered (telling the listener what changed). */
    private void relist() {
        relistRequested = false;
        // each item is mapped as its page is read, so that the plain JSON of a 20,000-node LIST is never all held at
        // once beside the cache (at 20,000 field-sized nodes that peak, not the cache, set the heap the watch needs:
        // bench/RESULTS.md); the store is changed only once the whole LIST was read
        ApiCalls.Listed<Listed> listed = api.listVersioned(kind, KubeJson.MODEL, object -> {
            String key = key(object);
            String version = version(object);
            Held before = store.get(key);
            // a LIST after 410 Gone brings equal copies of most objects: keep what is held when the version is the same
            return new Listed(key, before != null && Objects.equals(before.version(), version) ? null
                    : kept(mapper.map(kind, object), object));
        });
        if (listed.resourceVersion() == null || listed.resourceVersion().isEmpty()) {
            throw new CollectionException(kind.listWhat() + " at " + api.server()
                    + ": unusable answer: the list carries no metadata.resourceVersion, so no watch can follow it");
        }
        Map<String, Held> now = new HashMap<>(Math.max(16, listed.items().size() * 4 / 3 + 1));
        for (Listed item : listed.items()) {
            now.put(item.key(), item.held());
        }
        boolean changed = false;
        for (var it = store.keySet().iterator(); it.hasNext(); ) {
            if (!now.containsKey(it.next())) {
                it.remove();
                changed = true;
            }
        }
        for (var e : now.entrySet()) {
            if (e.getValue() != null) {
                store.put(e.getKey(), e.getValue());
                changed = true;
            }
        }
        // renewals are counted from the watch that follows (a LIST cannot tell who still renews)
        leaseValidUntil = null;
        if (changed) {
            listener.changed(kind);
        }
        resourceVersion = listed.resourceVersion();
        pendingCatchUp = null;
        staleReason = null;
        synced = true;
        lastError = null;
        lastProgressNanos = System.nanoTime();
    }

    private void watchOnce() {
        int timeoutSeconds = minWatchSeconds + ThreadLocalRandom.current().nextInt(minWatchSeconds + 1);
        eventsThisWatch = 0;
        abortCause = null;
        idleAbortSent = false;
        // the socket's read timeout ends a read blocked on a silent (half-open) stream: the idle limit in force now
        Duration silentWithin = idleLimit();
        lastSilentWithin = silentWithin;
        phase = Phase.REQUESTING;
        long started = System.nanoTime();
        requestedAtNanos = started;
        try {
            api.watch(kind, resourceVersion, timeoutSeconds, silentWithin, KubeJson.MODEL,
                    new ApiCalls.WatchListener() {
                @Override
                public void opened(Runnable abort) {
                    if (closed || relistRequested) {
                        // before the body is read: failing here closes the answer on this thread, no blocked read
                        abortCause = closed ? null : "stale";
                        throw new CollectionException(closed ? "closed" : "stale: listing again");
                    }
                    abortWatch = abort;
                    replacingSilentStream = false;
                    long now = System.nanoTime();
                    openedAtNanos = now;
                    lastProgressNanos = now;
                    phase = Phase.WATCHING;
                }

                @Override
                public void event(KubeJson.WatchEvent event) {
                    apply(event);
                }
            });
        } finally {
            abortWatch = null;
        }
        if (abortCause != null) {
            // closed from outside while the server had nothing more to say: the same as a failed read
            throw new CollectionException(abortCause);
        }
        long lasted = System.nanoTime() - started;
        if (eventsThisWatch == 0 && lasted < limits.shortWatch().toNanos()) {
            throw new ShortWatch("WATCH " + kind.listWhat().replaceFirst("^LIST ", "") + " at " + api.server()
                    + ": the server ended the watch after " + (lasted / 1_000_000) + " ms with no event (a very short "
                    + "watch, as client-go's reflector calls it): treated as a failure");
        }
        // the server ended a watch that lived: watch again at once from the last version
        recovered();
    }

    /** A watch the server ended in under a second with no event. */
    private static final class ShortWatch extends CollectionException {
        ShortWatch(String message) {
            super(message);
        }
    }

    private void apply(KubeJson.WatchEvent event) {
        goneInARow = 0;
        if (eventsThisWatch++ == 0) {
            recovered();
        }
        lastProgressNanos = System.nanoTime();
        Map<String, Object> object = event.object();
        String version = version(object);
        switch (event.type()) {
            case "ADDED", "MODIFIED" -> {
                String key = key(object);
                Held before = store.get(key);
                Held now;
                byte[] leaseDigest = leases ? LeaseRenewal.digest(object) : null;
                if (leaseDigest != null && before != null
                        && java.util.Arrays.equals(before.heartbeatDigest(), leaseDigest)) {
                    now = renewed(before, object, leaseDigest);
                    store.put(key, now);
                    listener.renewed(kind);
                    // a holder seen renewing while its Lease is valid should renew again within the short limit
                    leaseValidUntil = later(leaseValidUntil, validUntil(now));
                } else {
                    now = kept(mapper.map(kind, object), object);
                    store.put(key, now);
                    // a Node's heartbeat post is mapped (the model holds the new times) but asks for no pass
                    if (nodes && before != null && before.heartbeatDigest() != null
                            && java.util.Arrays.equals(before.heartbeatDigest(), now.heartbeatDigest())) {
                        listener.renewed(kind);
                    } else {
                        listener.changed(kind);
                    }
                }
            }
            case "DELETED" -> {
                store.remove(key(object));
                listener.changed(kind);
            }
            case "BOOKMARK" -> bookmarks.incrementAndGet(); // only the version moves
            default -> {
            }
        }
        if (version != null && !version.isEmpty()) {
            resourceVersion = version;
        }
    }

    /**
     * What is held of a mapped object: its model without its plain values; a Node with the digest its next version
     * is compared by ({@link NodeHeartbeat}), its repeated texts shared ({@link SharedStrings}); a Lease with the
     * digest a renewal leaves alone ({@link LeaseRenewal}).
     */
    private Held kept(Held mapped, Map<String, Object> object) {
        Object model = mapped.model();
        if (nodes && model instanceof NodeInfo node) {
            model = shared.node(node);
        } else if (leases && model instanceof LeaseInfo lease) {
            model = sharedLease(lease);
        }
        return new Held(null, model, mapped.notes(), mapped.mappingFailure(), version(object),
                nodes ? NodeHeartbeat.digest(object) : leases ? LeaseRenewal.digest(object) : null);
    }

    /** The Lease with its namespace and holder shared (its name and uid are its own). */
    private LeaseInfo sharedLease(LeaseInfo l) {
        return new LeaseInfo(shared.shared(l.namespace()), l.name(), l.uid(), l.created(),
                shared.shared(l.holderIdentity()), l.renewTime(), l.leaseDurationSeconds(), l.apiserverHost());
    }

    /** When a held Lease stops being valid: renewTime + leaseDurationSeconds; null for anything else. */
    private Instant validUntil(Held held) {
        if (leases && held != null && held.model() instanceof LeaseInfo lease && lease.renewTime() != null) {
            long seconds = lease.leaseDurationSeconds() == null ? DEFAULT_LEASE_SECONDS : lease.leaseDurationSeconds();
            return lease.renewTime().plusSeconds(seconds);
        }
        return null;
    }

    private static Instant later(Instant a, Instant b) {
        return a == null ? b : b == null ? a : a.isAfter(b) ? a : b;
    }

    /**
     * The held Lease after a renewal: its model with the renewal's renewTime, everything else as held (the digests
     * are equal, so nothing else moved), and the renewal's resourceVersion. Nothing of the new event is kept but
     * those two values, so the 2,000 renewals a second at 20,000 nodes leave no new strings or maps in the old
     * generation. A held Lease whose mapping failed, or a renewTime that does not parse, is mapped again as any
     * change would be (the pass that meets a failure names it).
     */
    private Held renewed(Held before, Map<String, Object> renewal, byte[] digest) {
        Instant renewTime = renewal.get("spec") instanceof Map<?, ?> spec && spec.get("renewTime") instanceof String t
                ? StateAssembler.parseOrNull(t) : null;
        if (before.mappingFailure() != null || !(before.model() instanceof LeaseInfo l) || renewTime == null) {
            return kept(mapper.map(kind, renewal), renewal);
        }
        return new Held(null, new LeaseInfo(l.namespace(), l.name(), l.uid(), l.created(), l.holderIdentity(),
                renewTime, l.leaseDurationSeconds(), l.apiserverHost()), before.notes(), null, version(renewal), digest);
    }

    /** "namespace/name" or "name"; an object without a name is a broken answer. */
    private String key(Map<String, Object> object) {
        String key = keyOf(object);
        if (key != null) {
            return key;
        }
        throw new CollectionException(kind.listWhat().replaceFirst("^LIST", "WATCH") + " at " + api.server()
                + ": unusable answer: an object without metadata.name");
    }

    /** "namespace/name" or "name" of a plain object; null without a name. */
    static String keyOf(Map<String, Object> object) {
        if (object.get("metadata") instanceof Map<?, ?> meta && meta.get("name") instanceof String name
                && !name.isEmpty()) {
            return meta.get("namespace") instanceof String ns && !ns.isEmpty() ? ns + "/" + name : name;
        }
        return null;
    }

    static String version(Map<String, Object> object) {
        return object.get("metadata") instanceof Map<?, ?> meta && meta.get("resourceVersion") instanceof String v
                ? v : null;
    }

    private static String seconds(long nanos) {
        return Durations.format(Duration.ofNanos(nanos).truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
    }

    /**
     * What a consistent read saw that the copy must show within {@link Freshness#proofWait}: an object at (at least)
     * a version, or gone; satisfied as well once the watch has delivered everything up to the read's version.
     *
     * @param key           the object ("namespace/name" or "name")
     * @param serverVersion its version at the read, or null when the read did not have it
     * @param readVersion   the read's (the collection's) version
     */
    record CatchUp(String key, String serverVersion, String readVersion, long askedNanos) {

        boolean satisfied(KindWatch watch) {
            if (watch.reached(readVersion)) {
                return true;
            }
            String held = watch.heldVersion(key);
            if (serverVersion == null) {
                return held == null;
            }
            if (held == null) {
                return false;
            }
            int c = ResourceVersions.compare(held, serverVersion);
            return c == ResourceVersions.NOT_COMPARABLE ? held.equals(serverVersion) : c >= 0;
        }

        String describe(KindWatch watch) {
            String held = watch.heldVersion(key);
            return serverVersion == null
                    ? "a consistent read at version " + readVersion + " no longer has " + key + ", the copy still "
                    + "holds it at version " + held
                    : "a consistent read at version " + readVersion + " has " + key + " at version " + serverVersion
                    + ", the copy " + (held == null ? "does not hold it" : "holds version " + held)
                    + " and has delivered up to version " + watch.version();
        }
    }
}
