package io.nodegate.watch;

import io.nodegate.source.ReadKind;
import io.nodegate.source.StateAssembler;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The model form of every cached object, kept from one pass to the next so that a pass maps only what changed
 * since the last one. Without it every pass mapped all 5,000 Nodes again although, between two passes 15 s apart,
 * the Nodes had mostly not changed.
 *
 * <p>An object is mapped again unless it is the same object the watch held at the last pass, or one with the same
 * uid and resourceVersion (a LIST after a 410 brings equal copies). The notes an object's mapping made are kept
 * with it, so a pass says the same notes as a fresh mapping of the same objects (the equivalence tests hold the
 * watch to that).
 *
 * <p>Used by one pass at a time (the engine's passes never overlap); synchronized all the same.
 */
final class MappedObjects {

    private record Entry(Map<String, Object> source, Object model, List<String> notes) {
    }

    /** Counts since start, for tests and the benchmark log: objects mapped, objects reused unchanged. */
    record Counts(long mapped, long reused) {
    }

    private final Map<ReadKind<?, ?>, Map<String, Entry>> byKind = new HashMap<>();
    private long mapped;
    private long reused;

    /**
     * The model objects of {@code objects} (what the watch holds now for {@code kind}), in the same order; the
     * notes their mapping made are appended to {@code notes}. Objects no longer held are forgotten. A mapping that
     * throws leaves the cache of this kind as it was (the pass fails; the next one tries again).
     */
    @SuppressWarnings("unchecked")
    synchronized <M> List<M> map(ReadKind<?, M> kind, Collection<Map<String, Object>> objects, List<String> notes) {
        Map<String, Entry> before = byKind.getOrDefault(kind, Map.of());
        Map<String, Entry> after = new HashMap<>(Math.max(16, objects.size() * 4 / 3 + 1));
        List<M> out = new ArrayList<>(objects.size());
        long mappedNow = 0;
        long reusedNow = 0;
        for (Map<String, Object> object : objects) {
            String key = key(object);
            Entry earlier = before.get(key);
            Entry entry;
            if (earlier != null && sameVersion(earlier.source(), object)) {
                entry = earlier;
                reusedNow++;
            } else {
                StateAssembler assembler = StateAssembler.incremental();
                M model = kind.fromJson(assembler, object);
                entry = new Entry(object, model, assembler.mappingNotes());
                mappedNow++;
            }
            after.put(key, entry);
            out.add((M) entry.model());
            notes.addAll(entry.notes());
        }
        byKind.put(kind, after);
        mapped += mappedNow;
        reused += reusedNow;
        return out;
    }

    synchronized Counts counts() {
        return new Counts(mapped, reused);
    }

    private static String key(Map<String, Object> object) {
        if (!(object.get("metadata") instanceof Map<?, ?> meta)) {
            return "";
        }
        return meta.get("namespace") instanceof String ns ? ns + "/" + meta.get("name") : String.valueOf(meta.get("name"));
    }

    private static boolean sameVersion(Map<String, Object> earlier, Map<String, Object> now) {
        if (earlier == now) {
            return true;
        }
        if (!(earlier.get("metadata") instanceof Map<?, ?> a) || !(now.get("metadata") instanceof Map<?, ?> b)) {
            return false;
        }
        return a.get("resourceVersion") instanceof String v && v.equals(b.get("resourceVersion"))
                && Objects.equals(a.get("uid"), b.get("uid"));
    }
}
