package io.nodegate.watch.informer;

import io.nodegate.source.kube.ApiCalls;
import io.nodegate.source.json.KubeJson;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Compares a kind's copy with the API server's, the consistent way: a LIST without a resourceVersion is read at
 * quorum. This is the client side of what kube-apiserver does to serve a consistent read from its watch cache
 * (KEP-2340 "Consistent Reads from Cache"; {@code GetCurrentResourceVersionFromStorage} in apiserver
 * {@code storage/util.go} reads the current version with a LIST of limit 1, then the cache waits until its watch
 * has delivered up to that version).
 *
 * <p>How "the server is ahead of the watch by changes the watch never delivered" is decided
 * ({@link ResourceVersions}): a read's collection version is etcd's revision, which moves with every object of
 * every kind, so it is never compared with the copy's objects. It proves freshness only one way: a watch that has
 * delivered an event or bookmark at or past it holds everything the read saw. Staleness is proved by an object: the
 * read has an object the copy holds at an older version or not at all, or the copy holds an object (at a version not
 * after the read) that the read no longer has. Either can be an event in flight, so the copy gets
 * {@link Freshness#proofWait} to show it before it is called stale.
 */
public final class FreshnessProof {

    /** What a proof ended with. */
    public record Result(boolean fresh, String why, boolean error) {
        static Result fresh(String why) {
            return new Result(true, why, false);
        }

        static Result stale(String why) {
            return new Result(false, why, false);
        }

        static Result failed(String why) {
            return new Result(false, why, true);
        }
    }

    private final ApiCalls api;
    private final Freshness limits;

    FreshnessProof(ApiCalls api, Freshness limits) {
        this.api = api;
        this.limits = limits;
    }

    /**
     * The periodic check: one consistent {@code limit=1} LIST. Its item, held older or not at all, or an empty answer
     * while the copy holds objects, is a change the copy must show within {@link Freshness#proofWait}
     * ({@link KindWatch#expectCatchUp}); else the copy is stale and listed again. A failed read changes nothing (the
     * stream's own liveness still counts) and is returned for the log.
     */
    String check(KindWatch watch) {
        if (watch.version() == null || !watch.synced()) {
            return null;
        }
        ApiCalls.Listed<Map<String, Object>> first;
        try {
            first = api.listFirst(watch.kind());
        } catch (RuntimeException e) {
            return e.getMessage();
        }
        long now = System.nanoTime();
        if (first.items().isEmpty()) {
            for (String key : watch.heldKeys()) {
                String held = watch.heldVersion(key);
                if (!ResourceVersions.atLeast(held, first.resourceVersion())) {
                    watch.expectCatchUp(new KindWatch.CatchUp(key, null, first.resourceVersion(), now));
                    break;
                }
            }
            return null;
        }
        Map<String, Object> item = first.items().get(0);
        String key = KindWatch.keyOf(item);
        String version = KindWatch.version(item);
        if (key != null && version != null) {
            watch.expectCatchUp(new KindWatch.CatchUp(key, version, first.resourceVersion(), now));
        }
        return null;
    }

    /**
     * Proves the copy holds everything the server holds now, or says why not. First the cheap way: a consistent
     * {@code limit=1} LIST, and the watch delivering up to its version within {@link Freshness#proofWait} (a Lease
     * watch in a cluster whose kubelets renew does so within a second). Then, for a quiet stream, the whole
     * collection read at quorum and compared object by object ({@code keys}: only these objects, or null for all).
     */
    Result prove(KindWatch watch, java.util.Set<String> keys) {
        String what = watch.kind().listWhat().replaceFirst("^LIST ", "");
        String problem = watch.freshnessProblem(System.nanoTime());
        if (problem != null) {
            return Result.stale(what + ": " + problem);
        }
        String readVersion;
        try {
            readVersion = api.listFirst(watch.kind()).resourceVersion();
        } catch (RuntimeException e) {
            return Result.failed(what + ": cannot read the current version at quorum: " + e.getMessage());
        }
        if (await(() -> watch.reached(readVersion))) {
            return Result.fresh(what + ": the watch delivered up to version " + readVersion
                    + " of a consistent read");
        }
        if (keys != null && keys.size() <= FEW) {
            return proveEach(watch, keys, readVersion, what);
        }
        ApiCalls.Listed<String[]> all;
        try {
            all = api.listVersioned(watch.kind(), KubeJson.MODEL, o -> new String[] {KindWatch.keyOf(o),
                    KindWatch.version(o)});
        } catch (RuntimeException e) {
            return Result.failed(what + ": cannot read at quorum: " + e.getMessage());
        }
        String listVersion = all.resourceVersion();
        Map<String, String> server = new HashMap<>();
        for (String[] kv : all.items()) {
            if (keys == null || keys.contains(kv[0])) {
                server.put(kv[0], kv[1]);
            }
        }
        List<KindWatch.CatchUp> wanted = new ArrayList<>();
        long now = System.nanoTime();
        server.forEach((key, version) -> wanted.add(new KindWatch.CatchUp(key, version, listVersion, now)));
        for (String key : watch.heldKeys()) {
            if ((keys == null || keys.contains(key)) && !server.containsKey(key)
                    && !ResourceVersions.atLeast(watch.heldVersion(key), listVersion)) {
                wanted.add(new KindWatch.CatchUp(key, null, listVersion, now));
            }
        }
        if (await(() -> wanted.stream().allMatch(w -> w.satisfied(watch)))) {
            return Result.fresh(what + ": every object of a consistent read at version " + listVersion
                    + " is held at that version or later");
        }
        KindWatch.CatchUp behind = wanted.stream().filter(w -> !w.satisfied(watch)).findFirst().orElseThrow();
        long count = wanted.stream().filter(w -> !w.satisfied(watch)).count();
        return Result.stale(what + ": " + behind.describe(watch) + (count > 1 ? " (and " + (count - 1)
                + " more)" : ""));
    }

    /** Up to this many named objects are read one GET each; more, in one LIST of the whole collection. */
    static final int FEW = 50;

    /** The named objects read one by one (a GET without resourceVersion is read at quorum too). */
    private Result proveEach(KindWatch watch, java.util.Set<String> keys, String readVersion, String what) {
        List<KindWatch.CatchUp> wanted = new ArrayList<>();
        long now = System.nanoTime();
        for (String key : keys) {
            int slash = key.indexOf('/');
            String namespace = slash < 0 ? null : key.substring(0, slash);
            String name = key.substring(slash + 1);
            java.util.Optional<Map<String, Object>> got;
            try {
                got = api.getPlain("GET " + watch.kind().kind() + " " + key, ApiCalls.collectionPath(
                        watch.kind().type(), namespace) + "/" + name, watch.kind().kind(), name, KubeJson.MODEL);
            } catch (RuntimeException e) {
                return Result.failed(what + ": cannot read " + key + " at quorum: " + e.getMessage());
            }
            wanted.add(new KindWatch.CatchUp(key, got.map(KindWatch::version).orElse(null), readVersion, now));
        }
        if (await(() -> wanted.stream().allMatch(w -> w.satisfied(watch)))) {
            return Result.fresh(what + ": " + keys.size() + " object(s) read at quorum are held at that version or "
                    + "later");
        }
        KindWatch.CatchUp behind = wanted.stream().filter(w -> !w.satisfied(watch)).findFirst().orElseThrow();
        return Result.stale(what + ": " + behind.describe(watch));
    }

    private boolean await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + limits.proofWait().toNanos();
        while (true) {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(Math.max(1, Math.min(50, limits.proofWait().toMillis() / 20)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }
}
