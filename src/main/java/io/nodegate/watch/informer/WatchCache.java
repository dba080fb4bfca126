package io.nodegate.watch.informer;

import io.nodegate.CollectionException;
import io.nodegate.model.ClusterState;
import io.nodegate.model.LeaseInfo;
import io.nodegate.source.kube.Kinds;
import io.nodegate.source.kube.ReadKind;
import io.nodegate.source.kube.StateAssembler;
import io.nodegate.source.kube.ApiCalls;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * One {@link KindWatch} per row of {@link Kinds#audited()}: exactly what `audit` reads, kept current by LIST +
 * WATCH over the same read layer as `audit` ({@link ApiCalls}: one HTTP client, one pagination rule, one error
 * wording), re-listing after a 410 Gone and retrying failed calls with back-off. Objects are held as the plain JSON
 * values {@code KubeJson} parses (managedFields, images and Secret values skipped while parsing), so nothing the
 * model never reads is held.
 *
 * <p>Health is per kind: a kind is usable only while its copy is proven fresh ({@link Freshness}): listed, watching,
 * an event or bookmark within its idle limit, not proved behind by a consistent read. After a failed re-list, a broken
 * or silent watch, an unanswered watch request or a back-off it is not, until the watch shows progress again;
 * {@link #unhealthy()} names those kinds and why, and the watch neither reports nor resolves anything while any is
 * listed. A silence finding needs more: {@link #proveSilenceInputs}.
 *
 * <p>Optional kinds are probed when the cache starts: an API that answers 404 (CSINode) or a namespace that does
 * not exist (cattle-system) is proven absent and gets no watch, as {@code LiveSource} would note it. The
 * every-interval pass probes them again ({@link #recheckAbsent}), so a kind that appears later is watched without
 * a restart.
 *
 * <p>A Lease update that only renews ({@link LeaseRenewal}) does not call {@code onChange}: it is a heartbeat, and
 * the interval pass sees the age it moves. Objects are mapped into the model as they arrive, so a pass only
 * collects the models ({@link KindWatch.Held}).
 */
public final class WatchCache implements AutoCloseable {

    private final ApiCalls api;
    private final List<ReadKind<?, ?>> kinds;
    private final Runnable onChange;
    private final Consumer<String> log;
    private final Freshness limits;
    private final Clock clock;
    private final FreshnessProof proof;
    private final Map<ReadKind<?, ?>, String> checkFailed = new ConcurrentHashMap<>();
    private final ScheduledExecutorService monitor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "nodegate-watch-idle");
        t.setDaemon(true);
        return t;
    });
    private final Map<ReadKind<?, ?>, KindWatch> watches = new ConcurrentHashMap<>();
    /** Absent kinds whose last re-probe failed: their absence is no longer known, so they are not usable. */
    private final Map<ReadKind<?, ?>, String> recheckFailed = new ConcurrentHashMap<>();
    private final Map<ReadKind<?, ?>, String> absent = new ConcurrentHashMap<>();
    private final AtomicReference<String> serverVersion = new AtomicReference<>();
    private final AtomicLong updates = new AtomicLong();
    private final AtomicLong renewals = new AtomicLong();
    private final KindWatch.Listener listener = new KindWatch.Listener() {
        @Override
        public void changed(ReadKind<?, ?> kind) {
            updates.incrementAndGet();
            onChange.run();
        }

        @Override
        public void renewed(ReadKind<?, ?> kind) {
            // a heartbeat, not a change: the every-interval pass sees the age it moves (LeaseRenewal, NodeHeartbeat)
            updates.incrementAndGet();
            renewals.incrementAndGet();
        }
    };
    private volatile boolean started;
    private volatile boolean closed;

    /**
     * @param api      the read layer (its request timeout bounds each LIST; a watch is bounded by its own timeout)
     * @param onChange called after every add, delete or change the watches see (the watch debounces it)
     * @param log      where retries and failures are said, one line each
     */
    public WatchCache(ApiCalls api, List<ReadKind<?, ?>> kinds, Runnable onChange, Consumer<String> log) {
        this(api, kinds, onChange, log, Freshness.DEFAULTS, Clock.systemUTC());
    }

    /**
     * @param limits when a kind's copy counts as fresh ({@link Freshness})
     * @param clock  the clock Lease renewTimes are compared with (the passes' clock)
     */
    public WatchCache(ApiCalls api, List<ReadKind<?, ?>> kinds, Runnable onChange, Consumer<String> log,
                      Freshness limits, Clock clock) {
        this.api = api;
        this.kinds = List.copyOf(kinds);
        this.onChange = onChange;
        this.log = log;
        this.limits = limits;
        this.clock = clock;
        this.proof = new FreshnessProof(api, limits);
    }

    /** The kinds this cache was asked to hold, in table order. */
    public List<ReadKind<?, ?>> kinds() {
        return kinds;
    }

    /**
     * Reads the server version and probes the optional kinds, then starts every kind's watch (without waiting for
     * them to list). Throws {@link CollectionException} when the API cannot be asked: the caller retries.
     */
    public synchronized void start() {
        if (started || closed) {
            return;
        }
        String version = api.serverVersion();
        serverVersion.set(version);
        Map<ReadKind<?, ?>, String> found = new LinkedHashMap<>();
        for (ReadKind<?, ?> kind : kinds) {
            String absence = probeAbsence(kind);
            if (absence != null) {
                found.put(kind, absence);
            }
        }
        absent.putAll(found);
        for (ReadKind<?, ?> kind : kinds) {
            if (!absent.containsKey(kind)) {
                startWatch(kind);
            }
        }
        long tick = limits.tick().toNanos();
        monitor.scheduleWithFixedDelay(this::checkIdle, tick, tick, TimeUnit.NANOSECONDS);
        started = true;
    }

    /** Closes streams silent past their idle limit and ends catch-ups that did not come ({@link KindWatch#checkIdle}). */
    private void checkIdle() {
        long now = System.nanoTime();
        for (KindWatch watch : watches.values()) {
            try {
                watch.checkIdle(now);
            } catch (RuntimeException e) {
                log.accept("informer " + watch.kind().id() + ": idle check failed: " + e);
            }
        }
    }

    /**
     * The periodic progress check ({@link FreshnessProof#check}): each watched kind's copy against a consistent
     * {@code limit=1} LIST. A read that fails is said once per cause and proves nothing either way.
     */
    public void checkProgress() {
        if (!started || closed) {
            return;
        }
        for (KindWatch watch : watches.values()) {
            String failure = proof.check(watch);
            ReadKind<?, ?> kind = watch.kind();
            if (failure == null) {
                if (checkFailed.remove(kind) != null) {
                    log.accept("progress check of " + kind.id() + " answers again");
                }
            } else if (!failure.replaceAll("[0-9]+", "#").equals(
                    String.valueOf(checkFailed.put(kind, failure)).replaceAll("[0-9]+", "#"))) {
                log.accept("progress check of " + kind.id() + " failed: " + failure);
            }
        }
    }

    /**
     * Proves at quorum that the copy a silence finding (NG101-NG103) rests on is fresh: the node Leases, all of them,
     * and, when {@code nodes} is not empty, those Nodes ({@link FreshnessProof#prove}). A copy proved behind is
     * listed again ({@link KindWatch#markStale}); the caller holds the finding either way until a proof succeeds.
     */
    public FreshnessProof.Result proveSilenceInputs(java.util.Set<String> nodes) {
        FreshnessProof.Result leases = prove(Kinds.NODE_LEASES, null);
        if (!leases.fresh() || nodes.isEmpty()) {
            return leases;
        }
        FreshnessProof.Result named = prove(Kinds.NODES, nodes);
        return named.fresh() ? FreshnessProof.Result.fresh(leases.why() + "; " + named.why()) : named;
    }

    private FreshnessProof.Result prove(ReadKind<?, ?> kind, java.util.Set<String> keys) {
        KindWatch watch = watches.get(kind);
        if (watch == null) {
            return FreshnessProof.Result.failed(kind.id() + " is not watched");
        }
        FreshnessProof.Result result = proof.prove(watch, keys);
        if (!result.fresh() && !result.error() && watch.freshnessProblem(System.nanoTime()) == null) {
            watch.markStale(result.why());
        }
        return result;
    }

    /** Watch restarts since start: kind id -> reason -> count (nodegate_informer_restarts_total). */
    public Map<String, Map<String, Long>> restarts() {
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        kinds.forEach(k -> {
            KindWatch w = watches.get(k);
            if (w != null) {
                out.put(k.id(), w.restarts());
            }
        });
        return out;
    }

    /** BOOKMARK events received since start, by kind id (nodegate_informer_bookmarks_total). */
    public Map<String, Long> bookmarks() {
        Map<String, Long> out = new LinkedHashMap<>();
        kinds.forEach(k -> {
            KindWatch w = watches.get(k);
            if (w != null) {
                out.put(k.id(), w.bookmarks());
            }
        });
        return out;
    }

    public boolean started() {
        return started;
    }

    /**
     * Asks again about the optional kinds proven absent (the every-interval pass calls it): Rancher installed after
     * the watch started creates cattle-system, and a CSINode API can come with an upgrade. A kind that now exists
     * gets its watch and, like any kind, is usable once that has listed (passes fail until then, so nothing
     * resolves on half a picture). A probe that fails (not a 404, not "no such namespace") makes the kind unusable
     * until a probe answers again: an error does not keep proving absence.
     */
    public synchronized void recheckAbsent() {
        if (!started || closed || absent.isEmpty()) {
            return;
        }
        for (ReadKind<?, ?> kind : kinds) {
            if (!absent.containsKey(kind)) {
                continue;
            }
            String absence;
            try {
                absence = probeAbsence(kind);
            } catch (RuntimeException e) {
                String said = e.getMessage();
                if (recheckFailed.put(kind, said) == null) {
                    log.accept("kind " + kind.id() + ": cannot tell whether it is still absent: " + said
                            + "; nothing is evaluated until it answers");
                }
                continue;
            }
            recheckFailed.remove(kind);
            if (absence == null) {
                log.accept("kind " + kind.id() + " appeared after start (" + kind.listWhat()
                        + " answers now): watching it from now on");
                startWatch(kind);
                absent.remove(kind);
            }
        }
    }

    /** apiserver gitVersion read at start. */
    public String serverVersion() {
        return serverVersion.get();
    }

    private String probeAbsence(ReadKind<?, ?> kind) {
        return switch (kind.presence()) {
            case OPTIONAL_API -> api.serves(kind) ? null : kind.absentNote();
            case OPTIONAL_NAMESPACE -> api.namespaceExists(kind.namespace()) ? null : kind.absentNote();
            default -> null;
        };
    }

    private void startWatch(ReadKind<?, ?> kind) {
        KindWatch watch = new KindWatch(api, kind, WatchCache::map, listener, log, KindWatch.MIN_WATCH_SECONDS,
                limits, clock);
        watches.put(kind, watch);
        watch.start();
    }

    /** True when this kind can be read: proven absent, or its copy fresh ({@link KindWatch#freshnessProblem}). */
    public boolean healthy(ReadKind<?, ?> kind) {
        if (absent.containsKey(kind)) {
            return !recheckFailed.containsKey(kind);
        }
        KindWatch watch = watches.get(kind);
        return watch != null && watch.healthy();
    }

    /** Kind id -> usable, its copy fresh (1 in nodegate_informer_synced), in table order. */
    public Map<String, Boolean> health() {
        Map<String, Boolean> out = new LinkedHashMap<>();
        kinds.forEach(k -> out.put(k.id(), started && healthy(k)));
        return out;
    }

    /** The kinds not usable now, each with why: not started, absence unknown, or why its copy is not fresh. */
    public List<String> unhealthy() {
        List<String> out = new ArrayList<>();
        long now = System.nanoTime();
        for (ReadKind<?, ?> kind : kinds) {
            if (!started) {
                out.add(kind.id() + " (not started)");
                continue;
            }
            if (absent.containsKey(kind)) {
                if (recheckFailed.containsKey(kind)) {
                    out.add(kind.id() + " (absence unknown: " + recheckFailed.get(kind) + ")");
                }
                continue;
            }
            KindWatch watch = watches.get(kind);
            String problem = watch == null ? "no watch" : watch.freshnessProblem(now);
            if (problem != null) {
                out.add(kind.id() + " (" + problem + ")");
            }
        }
        return out;
    }

    /** Waits until every kind is usable or the timeout passes; true when usable. */
    public boolean awaitHealthy(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (started && unhealthy().isEmpty()) {
                return true;
            }
            Thread.sleep(50);
        }
        return started && unhealthy().isEmpty();
    }

    /**
     * What the watches hold now, as the state `audit` would build from the same objects read by LIST: absent
     * kinds carry the same note the live source attaches, the source's notes come before the mapping's, in table
     * order. The objects were mapped as they arrived ({@link KindWatch.Held}); an object whose mapping failed
     * fails the pass, naming it. Call only while every kind is healthy.
     */
    public ClusterState state(Instant now, String source, String context, String server) {
        StateAssembler.Mapped mapped = new StateAssembler.Mapped();
        List<String> notes = new ArrayList<>();
        List<String> mappingNotes = new ArrayList<>();
        for (ReadKind<?, ?> kind : kinds) {
            if (absent.containsKey(kind)) {
                notes.add(absent.get(kind));
                continue;
            }
            collect(kind, mapped, mappingNotes);
        }
        notes.addAll(mappingNotes);
        return StateAssembler.incremental().finish(
                StateAssembler.Origin.at(now, source, context, server, serverVersion.get()), mapped, notes);
    }

    @SuppressWarnings("unchecked")
    private <M> void collect(ReadKind<?, M> kind, StateAssembler.Mapped mapped, List<String> notes) {
        var held = watches.get(kind).held();
        List<M> models = new ArrayList<>(held.size());
        for (KindWatch.Held h : held) {
            if (h.mappingFailure() != null) {
                throw h.mappingFailure();
            }
            models.add((M) h.model());
            notes.addAll(h.notes());
        }
        mapped.put(kind, models);
    }

    /** One object into the model, with the notes its mapping made; a mapping that fails is kept as the failure. */
    private static KindWatch.Held map(ReadKind<?, ?> kind, Map<String, Object> object) {
        StateAssembler assembler = StateAssembler.incremental();
        try {
            Object model = kind.fromJson(assembler, object);
            return new KindWatch.Held(object, model, assembler.mappingNotes(), null);
        } catch (RuntimeException e) {
            Object meta = object.get("metadata");
            String name = meta instanceof Map<?, ?> m ? m.get("namespace") instanceof String ns
                    ? ns + "/" + m.get("name") : String.valueOf(m.get("name")) : "?";
            return new KindWatch.Held(object, null, List.of(), new CollectionException(kind.kind() + " " + name
                    + " from " + kind.listWhat().replaceFirst("^LIST ", "") + ": " + e.getMessage(), e));
        }
    }

    /**
     * The kube-node-lease Leases as this watch holds them now (nodegate_node_lease_renew_timestamp_seconds reads
     * them at scrape time, so a renewal shows as soon as its event arrived, not one --interval later). Each is passed
     * with its name and its model, or a null model when its mapping failed (the pass that meets it fails, naming
     * it). Nothing is made up: each value is a renewTime an event or a LIST delivered; while the Lease stream is not
     * fresh the values simply stop moving, and {@link #health()} says why. Returns false, calling nothing, before the
     * Leases were first listed.
     *
     * <p>Called on an HTTP thread while the Lease watch's thread writes: see {@link KindWatch#forEachHeld}. No copy
     * of the store is made (5,000 Leases at every scrape).
     */
    public boolean nodeLeasesNow(BiConsumer<String, LeaseInfo> each) {
        KindWatch watch = watches.get(Kinds.NODE_LEASES);
        if (watch == null || !watch.synced()) {
            return false;
        }
        watch.forEachHeld((key, held) -> {
            if (held.model() instanceof LeaseInfo lease) {
                each.accept(lease.name(), lease);
            } else {
                each.accept(key.substring(key.indexOf('/') + 1), null);
            }
        });
        return true;
    }

    /** Updates the watches delivered (of any kind), since start. */
    public long updatesSeen() {
        return updates.get();
    }

    /** Updates that were only heartbeats (Lease renewals, Node heartbeat posts; no pass asked), since start. */
    public long renewalsSeen() {
        return renewals.get();
    }

    /** Number of objects held per kind id (for logs and the benchmark). */
    public Map<String, Integer> sizes() {
        Map<String, Integer> out = new LinkedHashMap<>();
        kinds.forEach(k -> {
            KindWatch w = watches.get(k);
            if (w != null) {
                out.put(k.id(), w.size());
            }
        });
        return out;
    }

    @Override
    public synchronized void close() {
        closed = true;
        monitor.shutdownNow();
        watches.values().forEach(KindWatch::close);
        watches.clear();
    }
}
