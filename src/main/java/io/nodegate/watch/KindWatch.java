package io.nodegate.watch;

import io.nodegate.CollectionException;
import io.nodegate.source.ReadKind;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.live.ApiCalls;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
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
 * <p>Why not fabric8's SharedIndexInformer, which does the same: it parses every event into fabric8's typed model.
 * At 5,000 nodes the kubelets renew their Leases 500 times a second, and that parsing alone cost 12 % of a core
 * (bench/RESULTS.md). Here each event is read by {@link KubeJson} straight into the plain values the model maps
 * from, skipping managedFields, and a Secret's values, as it is parsed.
 */
final class KindWatch {

    /** What the cache hears from one kind's watch. Called on the watch's own thread, one call at a time. */
    interface Listener {
        void added(ReadKind<?, ?> kind, Map<String, Object> object);

        void updated(ReadKind<?, ?> kind, Map<String, Object> before, Map<String, Object> after);

        void deleted(ReadKind<?, ?> kind, Map<String, Object> object);
    }

    static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private final ApiCalls api;
    private final ReadKind<?, ?> kind;
    private final Listener listener;
    private final Consumer<String> log;
    private final Map<String, Map<String, Object>> store = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean closed;
    private volatile boolean synced;
    private volatile boolean watching;
    private volatile String lastError;
    private volatile Runnable abortWatch;
    /** The version the next watch starts from; null: LIST first. */
    private String resourceVersion;

    /** client-go's reflector: each watch lasts between 5 and 10 min (minWatchTimeout times 1 to 2). */
    static final int MIN_WATCH_SECONDS = 300;

    private final int minWatchSeconds;

    KindWatch(ApiCalls api, ReadKind<?, ?> kind, Listener listener, Consumer<String> log) {
        this(api, kind, listener, log, MIN_WATCH_SECONDS);
    }

    /** @param minWatchSeconds each watch asks to be ended after this to twice this many seconds */
    KindWatch(ApiCalls api, ReadKind<?, ?> kind, Listener listener, Consumer<String> log, int minWatchSeconds) {
        this.minWatchSeconds = minWatchSeconds;
        this.api = api;
        this.kind = kind;
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

    /** The objects held now (a live view: read it during a pass, do not keep it). */
    Collection<Map<String, Object>> objects() {
        return store.values();
    }

    int size() {
        return store.size();
    }

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
            } catch (CollectionException e) {
                if (closed) {
                    return;
                }
                watching = false;
                String said = e.getMessage();
                if (!Objects.equals(said, lastError)) {
                    log.accept("informer " + kind.id() + ": " + said + "; retrying in " + backoff.toSeconds() + " s");
                }
                lastError = said;
                if (!sleep(backoff)) {
                    return;
                }
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                // a bug or an answer nobody expected: the kind stays unusable and is tried again, never "0 found"
                watching = false;
                lastError = e.toString();
                log.accept("informer " + kind.id() + ": " + e + "; retrying in " + backoff.toSeconds() + " s");
                if (!sleep(backoff)) {
                    return;
                }
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
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
        for (var it = store.entrySet().iterator(); it.hasNext(); ) {
            var held = it.next();
            if (!now.containsKey(held.getKey())) {
                it.remove();
                listener.deleted(kind, held.getValue());
            }
        }
        for (var e : now.entrySet()) {
            Map<String, Object> before = store.put(e.getKey(), e.getValue());
            if (before == null) {
                listener.added(kind, e.getValue());
            } else if (!Objects.equals(version(before), version(e.getValue()))) {
                listener.updated(kind, before, e.getValue());
            }
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
        Map<String, Object> object = event.object();
        String version = version(object);
        switch (event.type()) {
            case "ADDED", "MODIFIED" -> {
                Map<String, Object> before = store.put(key(object), object);
                if (before == null) {
                    listener.added(kind, object);
                } else {
                    listener.updated(kind, before, object);
                }
            }
            case "DELETED" -> {
                Map<String, Object> before = store.remove(key(object));
                listener.deleted(kind, before != null ? before : object);
            }
            default -> {
                // BOOKMARK: only the version moves
            }
        }
        if (version != null && !version.isEmpty()) {
            resourceVersion = version;
        }
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

    private boolean sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
            return !closed;
        } catch (InterruptedException e) {
            return false;
        }
    }
}
