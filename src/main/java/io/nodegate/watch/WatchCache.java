package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.nodegate.CollectionException;
import io.nodegate.source.Kinds;
import io.nodegate.model.ClusterState;
import io.nodegate.source.StateAssembler;
import io.nodegate.source.ReadKind;
import io.nodegate.source.live.ApiCalls;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * One fabric8 SharedIndexInformer per row of {@link Kinds#audited()}: exactly what `audit` reads, kept current by
 * LIST + WATCH (re-listing after a 410 Gone, retrying failed calls with fabric8's back-off). Each cached object is
 * trimmed as it is stored ({@link ReadKind#trim}: a Secret keeps metadata only) on top of the model-only parsing
 * of the client, so managedFields, images and Secret values are never held.
 *
 * <p>Health is per kind: a kind is usable only while its informer has synced <em>and</em> is watching. After a
 * failed re-list or a broken watch it is not, until a LIST succeeds again; {@link #unhealthy()} names those
 * kinds and the watch neither reports nor resolves anything while any is listed.
 *
 * <p>Optional kinds are probed when the cache starts: an API that answers 404 (CSINode) or a namespace that does
 * not exist (cattle-system) is proven absent and gets no informer, as {@code LiveSource} would note it. The
 * every-interval pass probes them again ({@link #recheckAbsent}), so a kind that appears later is watched without
 * a restart.
 *
 * <p>A Lease update that only renews ({@link LeaseRenewal}) does not call {@code onChange}: it is a heartbeat, and
 * the interval pass sees the age it moves. A pass maps only objects that changed since the last one
 * ({@link MappedObjects}).
 */
public final class WatchCache implements AutoCloseable {

    private final KubernetesClient client;
    private final ApiCalls api;
    private final List<ReadKind<?, ?>> kinds;
    private final Runnable onChange;
    private final Consumer<String> log;
    private final Map<ReadKind<?, ?>, SharedIndexInformer<? extends HasMetadata>> informers =
            new ConcurrentHashMap<>();
    /** Absent kinds whose last re-probe failed: their absence is no longer known, so they are not usable. */
    private final Map<ReadKind<?, ?>, String> recheckFailed = new ConcurrentHashMap<>();
    private final Map<ReadKind<?, ?>, String> absent = new ConcurrentHashMap<>();
    private final Map<ReadKind<?, ?>, String> lastError = new ConcurrentHashMap<>();
    private final AtomicReference<String> serverVersion = new AtomicReference<>();
    private final MappedObjects mappedObjects = new MappedObjects();
    private final AtomicLong updates = new AtomicLong();
    private final AtomicLong renewals = new AtomicLong();
    private volatile boolean started;

    /**
     * @param onChange called after every add, update or delete the informers see (the watch debounces it)
     * @param log      where retries and failures are said, one line each
     */
    public WatchCache(KubernetesClient client, Duration requestTimeout, List<ReadKind<?, ?>> kinds,
                      Runnable onChange, Consumer<String> log) {
        this.client = client;
        this.api = new ApiCalls(client, requestTimeout);
        this.kinds = List.copyOf(kinds);
        this.onChange = onChange;
        this.log = log;
    }

    /** The kinds this cache was asked to hold, in table order. */
    public List<ReadKind<?, ?>> kinds() {
        return kinds;
    }

    /**
     * Reads the server version and probes the optional kinds, then starts every informer (without waiting for
     * them to sync). Throws {@link CollectionException} when the API cannot be asked: the caller retries.
     */
    public synchronized void start() {
        if (started) {
            return;
        }
        String version = api.call("GET /version", client::getKubernetesVersion).getGitVersion();
        serverVersion.set(version);
        for (ReadKind<?, ?> kind : kinds) {
            String absence = probeAbsence(kind);
            if (absence != null) {
                absent.put(kind, absence);
            }
        }
        for (ReadKind<?, ?> kind : kinds) {
            if (!absent.containsKey(kind)) {
                informers.put(kind, startInformer(kind));
            }
        }
        started = true;
    }

    public boolean started() {
        return started;
    }

    /**
     * Asks again about the optional kinds proven absent (the every-interval pass calls it): Rancher installed after
     * the watch started creates cattle-system, and a CSINode API can come with an upgrade. A kind that now exists
     * gets its informer and, like any kind, is usable once that has synced (passes fail until then, so nothing
     * resolves on half a picture). A probe that fails (not a 404, not "no such namespace") makes the kind unusable
     * until a probe answers again: an error does not keep proving absence.
     */
    public synchronized void recheckAbsent() {
        if (!started || absent.isEmpty()) {
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
                String said = api.describe(e);
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
                informers.put(kind, startInformer(kind));
                absent.remove(kind);
            }
        }
    }

    /** apiserver gitVersion read at start. */
    public String serverVersion() {
        return serverVersion.get();
    }

    private String probeAbsence(ReadKind<?, ?> kind) {
        switch (kind.presence()) {
            case OPTIONAL_API -> {
                try {
                    api.call(kind.listWhat(), () -> kind.operation(client)
                            .list(new ListOptionsBuilder().withLimit(1L).build()));
                    return null;
                } catch (ApiCalls.NotFound e) {
                    return kind.absentNote();
                }
            }
            case OPTIONAL_NAMESPACE -> {
                try {
                    boolean exists = api.call("GET namespace " + kind.namespace(),
                            () -> client.namespaces().withName(kind.namespace()).get()) != null;
                    return exists ? null : kind.absentNote();
                } catch (ApiCalls.NotFound e) {
                    return kind.absentNote();
                }
            }
            default -> {
                return null;
            }
        }
    }

    private <T extends HasMetadata> SharedIndexInformer<T> startInformer(ReadKind<T, ?> kind) {
        SharedIndexInformer<T> informer = kind.operation(client).withLimit(ApiCalls.PAGE_SIZE).runnableInformer(0);
        informer.itemStore(new TrimmingStore<>(kind));
        informer.exceptionHandler((wasStarted, failure) -> {
            String said = kind.listWhat() + " / WATCH: " + api.describe(failure);
            lastError.put(kind, said);
            log.accept("informer " + kind.id() + ": " + said + "; retrying with back-off");
            return true; // keep retrying: an error is never the end of the watch, nor "0 found"
        });
        informer.addEventHandler(new ResourceEventHandler<T>() {
            @Override
            public void onAdd(T obj) {
                lastError.remove(kind);
                onChange.run();
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                lastError.remove(kind);
                updates.incrementAndGet();
                if (LeaseRenewal.onlyRenewed(oldObj, newObj)) {
                    // a heartbeat, not a change: the every-interval pass sees the age it moves (see LeaseRenewal)
                    renewals.incrementAndGet();
                    return;
                }
                onChange.run();
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                onChange.run();
            }
        });
        informer.start();
        return informer;
    }

    /** True when this kind can be read: proven absent, or synced and watching. */
    public boolean healthy(ReadKind<?, ?> kind) {
        if (absent.containsKey(kind)) {
            return !recheckFailed.containsKey(kind);
        }
        SharedIndexInformer<?> informer = informers.get(kind);
        return informer != null && informer.hasSynced() && informer.isWatching();
    }

    /** Kind id -> usable (1 in nodegate_informer_synced), in table order. */
    public Map<String, Boolean> health() {
        Map<String, Boolean> out = new LinkedHashMap<>();
        kinds.forEach(k -> out.put(k.id(), started && healthy(k)));
        return out;
    }

    /** The kinds not usable now, each with its last error when one was seen. */
    public List<String> unhealthy() {
        List<String> out = new ArrayList<>();
        for (ReadKind<?, ?> kind : kinds) {
            if (!started || !healthy(kind)) {
                String error = recheckFailed.containsKey(kind) ? recheckFailed.get(kind) : lastError.get(kind);
                SharedIndexInformer<?> informer = informers.get(kind);
                String state = !started ? "not started" : recheckFailed.containsKey(kind) ? "absence unknown"
                        : informer == null ? "no informer"
                        : !informer.hasSynced() ? "not synced" : "not watching";
                out.add(kind.id() + " (" + state + (error == null ? "" : ": " + error) + ")");
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
     * What the informers hold now, as the state `audit` would build from the same objects read by LIST: absent
     * kinds carry the same note the live source attaches, the source's notes come before the mapping's, in table
     * order. Only objects that changed since the last call are mapped again ({@link MappedObjects}). Call only
     * while every kind is healthy.
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
            mapKind(kind, mapped, mappingNotes);
        }
        notes.addAll(mappingNotes);
        return StateAssembler.incremental().finish(
                new StateAssembler.Origin(now, source, context, server, serverVersion.get()), mapped, notes);
    }

    @SuppressWarnings("unchecked")
    private <T extends HasMetadata, M> void mapKind(ReadKind<T, M> kind, StateAssembler.Mapped mapped,
                                                    List<String> notes) {
        var informer = (SharedIndexInformer<T>) informers.get(kind);
        mapped.put(kind, mappedObjects.map(kind, informer.getStore().list(), notes));
    }

    /** Updates the informers delivered (of any kind), since start. */
    long updatesSeen() {
        return updates.get();
    }

    /** Lease updates that were only renewals (no pass asked for them), since start. */
    public long renewalsSeen() {
        return renewals.get();
    }

    /** Objects mapped, reused and renewed in place by the passes so far (tests and the benchmark log). */
    MappedObjects.Counts mappingCounts() {
        return mappedObjects.counts();
    }

    /** Number of objects cached per kind id (for logs and the benchmark). */
    public Map<String, Integer> sizes() {
        Map<String, Integer> out = new LinkedHashMap<>();
        informers.forEach((k, i) -> out.put(k.id(), i.getStore().list().size()));
        return out;
    }

    @Override
    public synchronized void close() {
        informers.values().forEach(SharedIndexInformer::stop);
        informers.clear();
    }

    /** The informer's store, keeping each object as {@link ReadKind#trim} leaves it. */
    private static final class TrimmingStore<T extends HasMetadata> implements ItemStore<T> {
        private final ReadKind<T, ?> kind;
        private final Map<String, T> items = new ConcurrentHashMap<>();

        TrimmingStore(ReadKind<T, ?> kind) {
            this.kind = kind;
        }

        @Override
        public String getKey(T obj) {
            return Cache.metaNamespaceKeyFunc(obj);
        }

        @Override
        public T put(String key, T obj) {
            return items.put(key, kind.trim(obj));
        }

        @Override
        public T remove(String key) {
            return items.remove(key);
        }

        @Override
        public Stream<String> keySet() {
            return items.keySet().stream();
        }

        @Override
        public Stream<T> values() {
            return items.values().stream();
        }

        @Override
        public int size() {
            return items.size();
        }

        @Override
        public T get(String key) {
            return items.get(key);
        }
    }
}
