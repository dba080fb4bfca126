package io.nodegate.watch;

import io.nodegate.CollectionException;
import io.nodegate.source.ReadKind;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.live.ApiCalls;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * The objects of one row of the kinds table, kept current the way client-go's reflector keeps an informer's store:
 * LIST (paginated) at a resourceVersion, then WATCH from that version, for ever.
 * <ul>
 *   <li>Each watch asks the server to end it after 5-10 min ({@code timeoutSeconds}, spread so that replicas do
 *       not all come back at once) and asks for BOOKMARK events, which move the version on without a change. When
 *       the server ends it, the next watch starts from the last version seen: nothing is missed, nothing re-listed.</li>
 *   <li>410 Gone (the version was compacted away, at start or as an ERROR event): LIST again. The new list
 *       replaces the store; what is no longer there is deleted, what changed is updated.</li>
 *   <li>Any other failure (connection refused, 403, 500, a broken or cut stream): said in the log, retried after a
 *       back-off of 1 s doubling to 30 s; a failed LIST is retried as a LIST, a failed watch as a watch from the
 *       last version. Until a LIST or watch is open again the kind is not {@link #healthy()}: the watch neither
 *       reports nor resolves anything on it. An error never empties the store.</li>
 * </ul>
 *
 * <p>Each object is mapped into the model as it arrives ({@link Held}), so a pass only collects models. A Lease
 * update that only renews ({@link LeaseRenewal}) moves the renewTime and resourceVersion of the object already held
 * instead of storing the new one: at 5,000 nodes that is 500 updates a second, and storing each new object moved
 * them all into the old generation, whose full collections (~200 ms every ~20 s, measured) landed in the passes.
 *
 * <p>Why not fabric8's SharedIndexInformer, which does the same: it parses every event into fabric8's typed model.
 * At 5,000 nodes the kubelets renew their Leases 500 times a second, and that parsing alone cost 12 % of a core
 * (bench/RESULTS.md). Here each event is read by {@link KubeJson} straight into the plain values the model maps
 * from, skipping managedFields, and a Secret's values, as it is parsed.
 */
final class KindWatch {

    /**
     * One object as held: its plain JSON values, its model and the notes its mapping made, or the mapping's failure
     * (a field of the wrong shape: the pass that meets it fails, naming it, as a LIST would).
     */
    record Held(Map<String, Object> object, Object model, List<String> notes, RuntimeException mappingFailure) {
    }

    /** Maps one object into the model as it arrives. */
    interface Mapper {
        Held map(ReadKind<?, ?> kind, Map<String, Object> object);
    }

    /** What the cache hears from one kind's watch. Called on the watch's own thread, one call at a time. */
    interface Listener {
        /** An object was added, changed or deleted (a LIST after 410 reports only what differs). */
        void changed(ReadKind<?, ?> kind);

        /** A Lease only renewed ({@link LeaseRenewal}): a heartbeat, not a change. */
        void renewed(ReadKind<?, ?> kind);
    }

    static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private final ApiCalls api;
    private final ReadKind<?, ?> kind;
    private final Mapper mapper;
    private final Listener listener;
    private final Consumer<String> log;
    private final boolean leases;
    private final Map<String, Held> store = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean closed;
    private volatile boolean synced;
    private volatile boolean watching;
    private volatile String lastError;
    private volatile Runnable abortWatch;
    /** The version the next watch starts from; null: LIST first. */
    private String resourceVersion;
    /** 410 answers since the last event (only the watch thread reads and writes it). */
    private int goneInARow;

    /** client-go's reflector: each watch lasts between 5 and 10 min (minWatchTimeout times 1 to 2). */
    static final int MIN_WATCH_SECONDS = 300;

    private final int minWatchSeconds;

    KindWatch(ApiCalls api, ReadKind<?, ?> kind, Mapper mapper, Listener listener, Consumer<String> log) {
        this(api, kind, mapper, listener, log, MIN_WATCH_SECONDS);
    }

    /** @param minWatchSeconds each watch asks to be ended after this to twice this many seconds */
    KindWatch(ApiCalls api, ReadKind<?, ?> kind, Mapper mapper, Listener listener, Consumer<String> log,
              int minWatchSeconds) {
        this.minWatchSeconds = minWatchSeconds;
        this.api = api;
        this.kind = kind;
        this.mapper = mapper;
        this.leases = "Lease".equals(kind.kind());
        this.listener = listener;
        this.log = log;
        this.thread = new Thread(this::run, "nodegate-watch-" + kind.id());
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** True once a LIST has filled the store and while a watch is open on top of it. */
    boolean healthy() {
        return synced && watching;
    }

    boolean synced() {
        return synced;
    }

    boolean watching() {
        return watching;
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

    /** Stops the watch without waiting for it (the connection is closed on a thread of its own, see ApiHttp). */
    void close() {
        closed = true;
        Runnable abort = abortWatch;
        if (abort != null) {
            abort.run();
        }
        thread.interrupt();
    }

    private void run() {
        Duration backoff = FIRST_BACKOFF;
        while (!closed) {
            try {
                if (resourceVersion == null) {
                    relist();
                }
                watchOnce();
                backoff = FIRST_BACKOFF; // the server ended a healthy watch: watch again at once
            } catch (ApiCalls.Gone gone) {
                if (closed) {
                    return;
                }
                watching = false;
                log.accept("informer " + kind.id() + ": " + gone.getMessage());
                resourceVersion = null;
                // a server that answers 410 to the version of the LIST it just served would make this a loop of
                // whole LISTs: the second 410 in a row without an event between waits like any failure
                if (goneInARow++ > 0) {
                    if (!sleep(backoff)) {
                        return;
                    }
                    backoff = longer(backoff);
                }
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                // a failed call or a broken answer (CollectionException), or one nobody expected: the kind stays
                // unusable and is tried again, never "0 found"
                watching = false;
                String said = e instanceof CollectionException ? e.getMessage() : e.toString();
                if (!Objects.equals(said, lastError)) {
                    log.accept("informer " + kind.id() + ": " + said + "; retrying in " + backoff.toSeconds() + " s");
                }
                lastError = said;
                if (!sleep(backoff)) {
                    return;
                }
                backoff = longer(backoff);
            }
        }
    }

    /** LIST, then make the store hold exactly what it answered (telling the listener what changed). */
    private void relist() {
        ApiCalls.Listed<Map<String, Object>> listed = api.listVersioned(kind, KubeJson.MODEL, o -> o);
        if (listed.resourceVersion() == null || listed.resourceVersion().isEmpty()) {
            throw new CollectionException(kind.listWhat() + " at " + api.server()
                    + ": unusable answer: the list carries no metadata.resourceVersion, so no watch can follow it");
        }
        Map<String, Map<String, Object>> now = new HashMap<>(Math.max(16, listed.items().size() * 4 / 3 + 1));
        for (Map<String, Object> object : listed.items()) {
            now.put(key(object), object);
        }
        boolean changed = false;
        for (var it = store.keySet().iterator(); it.hasNext(); ) {
            if (!now.containsKey(it.next())) {
                it.remove();
                changed = true;
            }
        }
        for (var e : now.entrySet()) {
            Held before = store.get(e.getKey());
            // a LIST after 410 Gone brings equal copies of most objects: keep what is held when the version is the same
            if (before == null || !Objects.equals(version(before.object()), version(e.getValue()))) {
                store.put(e.getKey(), mapper.map(kind, e.getValue()));
                changed = true;
            }
        }
        if (changed) {
            listener.changed(kind);
        }
        resourceVersion = listed.resourceVersion();
        synced = true;
        lastError = null;
    }

    private void watchOnce() {
        int timeoutSeconds = minWatchSeconds + ThreadLocalRandom.current().nextInt(minWatchSeconds + 1);
        try {
            api.watch(kind, resourceVersion, timeoutSeconds, KubeJson.MODEL, new ApiCalls.WatchListener() {
                @Override
                public void opened(Runnable abort) {
                    abortWatch = abort;
                    if (closed) {
                        abort.run();
                        return;
                    }
                    watching = true;
                    lastError = null;
                }

                @Override
                public void event(KubeJson.WatchEvent event) {
                    apply(event);
                }
            });
        } finally {
            abortWatch = null;
        }
    }

    private void apply(KubeJson.WatchEvent event) {
        goneInARow = 0;
        Map<String, Object> object = event.object();
        String version = version(object);
        switch (event.type()) {
            case "ADDED", "MODIFIED" -> {
                String key = key(object);
                Held before = store.get(key);
                if (leases && before != null && LeaseRenewal.onlyRenewed(before.object(), object)) {
                    store.put(key, renewedInPlace(before, object));
                    listener.renewed(kind);
                } else {
                    store.put(key, mapper.map(kind, object));
                    listener.changed(kind);
                }
            }
            case "DELETED" -> {
                store.remove(key(object));
                listener.changed(kind);
            }
            default -> {
                // BOOKMARK: only the version moves
            }
        }
        if (version != null && !version.isEmpty()) {
            resourceVersion = version;
        }
    }

    /**
     * The held Lease with the renewal's renewTime and resourceVersion, mapped again. The held object is updated in
     * place (two values replaced, nothing added or removed) and the new one is dropped young; only this thread
     * writes held objects, and passes read only the models.
     */
    @SuppressWarnings("unchecked")
    private Held renewedInPlace(Held before, Map<String, Object> renewal) {
        Map<String, Object> held = before.object();
        ((Map<String, Object>) held.get("spec")).put("renewTime", ((Map<String, Object>) renewal.get("spec"))
                .get("renewTime"));
        ((Map<String, Object>) held.get("metadata")).put("resourceVersion", version(renewal));
        return mapper.map(kind, held);
    }

    /** "namespace/name" or "name"; an object without a name is a broken answer. */
    private String key(Map<String, Object> object) {
        if (object.get("metadata") instanceof Map<?, ?> meta && meta.get("name") instanceof String name
                && !name.isEmpty()) {
            return meta.get("namespace") instanceof String ns && !ns.isEmpty() ? ns + "/" + name : name;
        }
        throw new CollectionException(kind.listWhat().replaceFirst("^LIST", "WATCH") + " at " + api.server()
                + ": unusable answer: an object without metadata.name");
    }

    static String version(Map<String, Object> object) {
        return object.get("metadata") instanceof Map<?, ?> meta && meta.get("resourceVersion") instanceof String v
                ? v : null;
    }

    private static Duration longer(Duration backoff) {
        return backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
    }

    private boolean sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
            return !closed;
        } catch (InterruptedException e) {
            return false;
        }
    }
}
