package io.nodegate.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The tombstones ledger is up to {@value #MAX_SHARDS} ConfigMaps ("shards") in the tombstones namespace:
 * {@value TombstoneBook#CONFIGMAP} (the one ConfigMap of earlier versions), then {@code nodegate-tombstones-1} …
 * {@code nodegate-tombstones-15}, each labelled {@value #LABEL}={@value #LABEL_VALUE}.
 *
 * <p>Why shards, and why these: one ConfigMap held about 2,200 tombstones before the API server refused it
 * (a ConfigMap's data may not exceed 1 MiB, {@code ValidateConfigMap} in kubernetes
 * {@code pkg/apis/core/validation/validation.go}), and `remove` found that out after deleting the Node. The
 * quarantine's binding selects the shards by label ({@code paramRef.selector}); kube-apiserver then evaluates the
 * policy once per selected ConfigMap, each with its own CEL cost budget, and denies when any evaluation denies
 * ({@code CollectParams} in apiserver {@code pkg/admission/plugin/policy/generic/policy_dispatcher.go}; the loop over
 * params in {@code pkg/admission/plugin/policy/validating/dispatcher.go}). So a shard's indexes are complete for its
 * own tombstones, and the shards together deny exactly what one big ConfigMap would. Fixed names, not one
 * ConfigMap per host, because the operators' Role can then name every shard it may update (RBAC cannot match a
 * name prefix), and because a Node CREATE is evaluated against 16 params at most, not thousands.
 *
 * <p>Capacity: {@value #BUDGET} bytes of keys and values per shard (below the 1 MiB limit, which counts values only,
 * leaving room for a hand edit), about 1,900 tombstones of ~520 bytes each (entry plus both index keys), so about
 * 30,000 in all. A tombstone goes to the first shard it fits in; when none has room and all
 * {@value #MAX_SHARDS} exist, `remove` refuses before deleting anything.
 */
public final class TombstoneShards {

    public static final int MAX_SHARDS = 16;
    /** Bytes of keys plus values a shard may hold. */
    public static final long BUDGET = 1_000_000;
    public static final String LABEL = "nodegate.io/ledger";
    public static final String LABEL_VALUE = "tombstones";

    private TombstoneShards() {
    }

    /** Every shard name, in the order tombstones fill them. */
    public static List<String> names() {
        List<String> names = new ArrayList<>(MAX_SHARDS);
        for (int i = 0; i < MAX_SHARDS; i++) {
            names.add(name(i));
        }
        return names;
    }

    public static String name(int index) {
        return index == 0 ? TombstoneBook.CONFIGMAP : TombstoneBook.CONFIGMAP + "-" + index;
    }

    /** Whether a ConfigMap of this name is a shard of the ledger. */
    public static boolean isShard(String configMapName) {
        return configMapName != null && names().contains(configMapName);
    }

    private static int index(String shardName) {
        return names().indexOf(shardName);
    }

    /**
     * One shard as read: its name, its book, the resourceVersion it was read at (a write carries it, so a change by
     * anyone in between is refused with 409), and its labels.
     */
    public record Shard(String name, TombstoneBook book, String resourceVersion, Map<String, String> labels) {
        public Shard {
            labels = labels == null ? Map.of() : Map.copyOf(labels);
        }

        /** Whether the quarantine's binding selects it ({@value TombstoneShards#LABEL}={@value TombstoneShards#LABEL_VALUE}). */
        public boolean labelled() {
            return LABEL_VALUE.equals(labels.get(LABEL));
        }
    }

    /**
     * Where a tombstone goes and what that shard becomes.
     *
     * @param shard    the shard written
     * @param existing the shard as read, or null when the shard is to be created
     * @param book     the shard's book after the write
     */
    public record Placement(String shard, Shard existing, TombstoneBook book) {
        public boolean creates() {
            return existing == null;
        }

        /** The shard's data after the write. */
        public Map<String, String> data() {
            return book.data();
        }
    }

    /**
     * Where the tombstone goes: the shard that already holds an entry of its name (replaced there), else the first
     * shard with room, else the first shard not yet created.
     *
     * @return empty when it fits nowhere (the message of {@link #full} says why)
     */
    public static Optional<Placement> place(List<Shard> shards, Tombstone t) {
        List<Shard> ordered = new ArrayList<>(shards);
        ordered.sort(Comparator.comparingInt(s -> index(s.name())));
        for (Shard s : ordered) {
            if (s.book().holds(t.name())) {
                TombstoneBook next = s.book().with(t);
                return next.bytes() <= BUDGET ? Optional.of(new Placement(s.name(), s, next)) : Optional.empty();
            }
        }
        long atMost = TombstoneBook.growthBound(t);
        for (Shard s : ordered) {
            // rendered only near the budget: a shard with room by far fits by its size bound, a full one is skipped
            // by its own size (rendered once per shard) plus what the entry alone adds
            if (s.book().sizeBound() + atMost <= BUDGET) {
                return Optional.of(new Placement(s.name(), s, s.book().with(t)));
            }
            if (s.book().bytes() + s.book().leastGrowth(t) > BUDGET) {
                continue;
            }
            TombstoneBook next = s.book().with(t);
            if (next.bytes() <= BUDGET) {
                return Optional.of(new Placement(s.name(), s, next));
            }
        }
        for (String name : names()) {
            if (ordered.stream().noneMatch(s -> s.name().equals(name))) {
                return Optional.of(new Placement(name, null, TombstoneBook.empty().with(t)));
            }
        }
        return Optional.empty();
    }

    /** Why {@link #place} found no room, in numbers. */
    public static String full(List<Shard> shards, Tombstone t) {
        int held = shards.stream().mapToInt(s -> s.book().size()).sum();
        for (Shard s : shards) {
            if (s.book().holds(t.name())) {
                return "shard " + s.name() + " already holds an entry for " + t.name() + " and has no room to replace"
                        + " it (" + s.book().bytes() + " of " + BUDGET + " bytes)";
            }
        }
        return "all " + MAX_SHARDS + " shards are full (" + held + " entries; " + BUDGET
                + " bytes each, kept below the API server's limit of 1 MiB on a ConfigMap's data): release tombstones of hosts that will never return with 'nodegate readmit NODE --yes'";
    }

    /**
     * What a reader says about one shard besides its tombstones: each damaged entry (skipped, never fatal), and a
     * shard the quarantine cannot see because it lacks the label (a ledger written before shards existed).
     */
    public static List<String> notes(String namespace, String shard, TombstoneBook book, boolean labelled) {
        List<String> notes = new ArrayList<>();
        String where = "ConfigMap " + namespace + "/" + shard;
        for (TombstoneBook.Damaged d : book.damaged()) {
            notes.add("unreadable tombstone skipped: " + d.problem() + " (" + where + "). NG302 does not check that"
                    + " host until the entry is fixed (kubectl -n " + namespace + " edit configmap " + shard
                    + "); the quarantine keeps its index keys");
        }
        if (!labelled && !book.isEmpty()) {
            notes.add(where + " has no label " + LABEL + "=" + LABEL_VALUE + ": the quarantine policy selects shards by"
                    + " it and does not see its " + book.size() + " tombstone(s). The next 'nodegate remove' or"
                    + " 'readmit' labels it, or: kubectl -n " + namespace + " label configmap " + shard + " " + LABEL
                    + "=" + LABEL_VALUE);
        }
        return notes;
    }

    /**
     * The tombstones of all shards, one per name: a name in two shards (only a hand edit does that) keeps its
     * newest removal.
     */
    public static List<Tombstone> merge(List<List<Tombstone>> perShard) {
        Map<String, Tombstone> byName = new java.util.TreeMap<>();
        for (List<Tombstone> shard : perShard) {
            for (Tombstone t : shard) {
                byName.merge(t.name(), t, (a, b) -> b.removedAt() != null
                        && (a.removedAt() == null || b.removedAt().isAfter(a.removedAt())) ? b : a);
            }
        }
        return List.copyOf(byName.values());
    }

    /**
     * The ledger as `audit` and `fleet` use it.
     *
     * @param tombstones absent when no shard exists (no host was removed by nodegate there)
     * @param notes      damaged entries, unlabelled shards
     */
    public record Read(Collected<Tombstone> tombstones, List<String> notes) {
        public Read {
            notes = List.copyOf(notes);
        }
    }

    /** The shards of one namespace, read: their tombstones merged, their notes in shard order. */
    public static Read read(String namespace, List<Shard> shards) {
        if (shards.isEmpty()) {
            return new Read(Collected.absent(), List.of());
        }
        List<String> notes = new ArrayList<>();
        List<List<Tombstone>> perShard = new ArrayList<>();
        List<Shard> ordered = new ArrayList<>(shards);
        ordered.sort(Comparator.comparingInt(s -> index(s.name())));
        for (Shard s : ordered) {
            notes.addAll(notes(namespace, s.name(), s.book(), s.labelled()));
            perShard.add(s.book().tombstones());
        }
        return new Read(Collected.of(merge(perShard)), notes);
    }
}
