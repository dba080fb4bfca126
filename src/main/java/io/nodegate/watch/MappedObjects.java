package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.nodegate.model.LeaseInfo;
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
 * since the last one. Without it every pass mapped all 5,000 Nodes and 5,000 Leases again although, between two
 * passes 15 s apart, the Nodes had mostly not changed and the Leases had only renewed.
 *
 * <p>An object is mapped again when it is not the same object (the informer replaced it) with the same uid and
 * resourceVersion. A Lease whose only change is a renewal ({@link LeaseRenewal#onlyRenewed}) keeps its model with
 * the new renewTime, without going through the mapping. The notes an object's mapping made are kept with it, so a
 * pass says the same notes as a fresh mapping of the same objects (the equivalence tests hold the watch to that).
 *
 * <p>Used by one pass at a time (the engine's passes never overlap); synchronized all the same.
 */
final class MappedObjects {

    private record Entry(HasMetadata source, Object model, List<String> notes) {
    }

    /** Counts since start, for tests and the benchmark log: full mappings, reuses, renewals applied. */
    record Counts(long mapped, long reused, long renewed) {
    }

    private final Map<ReadKind<?, ?>, Map<String, Entry>> byKind = new HashMap<>();
    private long mapped;
    private long reused;
    private long renewed;

    /**
     * The model objects of {@code objects} (what the informer holds now for {@code kind}), in the same order; the
     * notes their mapping made are appended to {@code notes}. Objects no longer held are forgotten. A mapping that
     * throws leaves the cache of this kind as it was (the pass fails; the next one tries again).
     */
    @SuppressWarnings("unchecked")
    synchronized <T extends HasMetadata, M> List<M> map(ReadKind<T, M> kind, Collection<T> objects,
                                                        List<String> notes) {
        Map<String, Entry> before = byKind.getOrDefault(kind, Map.of());
        Map<String, Entry> after = new HashMap<>(Math.max(16, objects.size() * 4 / 3 + 1));
        List<M> out = new ArrayList<>(objects.size());
        long mappedNow = 0;
        long reusedNow = 0;
        long renewedNow = 0;
        for (T object : objects) {
            String key = key(object);
            Entry earlier = before.get(key);
            Entry entry;
            if (earlier != null && sameVersion(earlier.source(), object)) {
                entry = earlier;
                reusedNow++;
            } else if (earlier != null && earlier.model() instanceof LeaseInfo lease
                    && LeaseRenewal.onlyRenewed(earlier.source(), object)) {
                entry = new Entry(object, LeaseRenewal.renewed(lease, (Lease) object), earlier.notes());
                renewedNow++;
            } else {
                StateAssembler assembler = StateAssembler.incremental();
                M model = kind.toModel(assembler, object);
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
        renewed += renewedNow;
        return out;
    }

    synchronized Counts counts() {
        return new Counts(mapped, reused, renewed);
    }

    private static String key(HasMetadata object) {
        var meta = object.getMetadata();
        return meta == null ? "" : meta.getNamespace() == null ? meta.getName() : meta.getNamespace() + "/" + meta.getName();
    }

    private static boolean sameVersion(HasMetadata earlier, HasMetadata now) {
        if (earlier == now) {
            return true;
        }
        var a = earlier.getMetadata();
        var b = now.getMetadata();
        return a != null && b != null && a.getResourceVersion() != null
                && a.getResourceVersion().equals(b.getResourceVersion()) && Objects.equals(a.getUid(), b.getUid());
    }
}
