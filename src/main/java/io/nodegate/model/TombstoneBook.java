package io.nodegate.model;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The data of one shard of the tombstones ledger ({@link TombstoneShards}): one entry per removed host, plus the
 * indexes the admission policy reads, because CEL cannot parse the JSON entries.
 * <pre>
 *   node.&lt;name&gt;                       {"name":…,"uid":…,"systemUUID":…,"machineID":…,"removedAt":…,
 *                                       "gateRecordSha256":…,"removedBy":…,"handedTo":…,
 *                                       "liveNodesSameSystemUUID":[…],"liveNodesSameMachineID":[…]}
 *   systemuuid.&lt;id&gt;                 the names of the tombstones with that systemUUID, space-separated
 *   machineid.&lt;id&gt;                  the names of the tombstones with that machineID
 *   exempt.systemuuid.&lt;id&gt;          the Nodes that existed when every tombstone with that systemUUID was written:
 *                                       the quarantine never refuses their CREATE for that identity
 *   exempt.machineid.&lt;id&gt;           the same for the machineID
 * </pre>
 * An identity that identifies nothing ({@link HostIdentity}) gets no index key, so it can never match.
 *
 * <p>An entry that cannot be read (not JSON, a removedAt like {@code 2026-13-01}, a name that disagrees with its key)
 * is <b>damaged</b>: it is named in {@link #problems()} and left out of {@link #tombstones()}, so one bad entry never
 * stops audit or the watch (in the field every watch pass failed on one). It is kept verbatim when the shard is written
 * again, and so are the index and exemption keys that referred to it: a rewrite by `remove` or `readmit` never lifts
 * its quarantine silently. Immutable: {@link #with} and {@link #without} return a new book.
 */
public final class TombstoneBook {

    /** The ledger's first shard; it had this name when the ledger was one ConfigMap. */
    public static final String CONFIGMAP = "nodegate-tombstones";
    public static final String DEFAULT_NAMESPACE = "nodegate-system";
    public static final String NODE_PREFIX = "node.";
    public static final String SYSTEM_UUID_PREFIX = "systemuuid.";
    public static final String MACHINE_ID_PREFIX = "machineid.";
    /** Prefixed to an index key: the Nodes exempt from that index ({@code exempt.systemuuid.<id>}). */
    public static final String EXEMPT_PREFIX = "exempt.";

    /** What a ConfigMap data key may hold (k8s.io/apimachinery IsConfigMapKey). */
    private static final Pattern KEY = Pattern.compile("[-._a-zA-Z0-9]+");
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    /** An entry that could not be read: its key, its value as stored, and what is wrong with it. */
    public record Damaged(String key, String value, String problem) {
        /** The Node name the key stands for. */
        public String name() {
            return key.substring(NODE_PREFIX.length());
        }
    }

    private final TreeMap<String, Tombstone> byName;
    private final TreeMap<String, Damaged> damaged;
    /** Index and exemption keys as stored, for the damaged entries' sake: key → the value read. */
    private final TreeMap<String, String> storedIndex;
    /** {@link #data()} and {@link #bytes()}, computed once: the book is immutable. */
    private Map<String, String> rendered;
    private long bytes = -1;
    /** At least {@link #bytes()}, known without rendering; -1 when only rendering tells. */
    private final long bound;

    private TombstoneBook(Map<String, Tombstone> byName, Map<String, Damaged> damaged, Map<String, String> storedIndex,
                          long bound) {
        this.byName = new TreeMap<>(byName);
        this.damaged = new TreeMap<>(damaged);
        this.storedIndex = new TreeMap<>(storedIndex);
        this.bound = bound;
    }

    private TombstoneBook(Map<String, Tombstone> byName, Map<String, Damaged> damaged, Map<String, String> storedIndex) {
        this(byName, damaged, storedIndex, -1);
    }

    public static TombstoneBook empty() {
        return new TombstoneBook(Map.of(), Map.of(), Map.of(), 0);
    }

    /**
     * Reads a shard's data. Index keys are rebuilt from the entries, never trusted; a damaged entry is kept aside
     * (see the class comment), never thrown.
     */
    public static TombstoneBook parse(Map<String, String> data) {
        Map<String, Tombstone> entries = new TreeMap<>();
        Map<String, Damaged> damaged = new TreeMap<>();
        Map<String, String> index = new TreeMap<>();
        if (data != null) {
            for (Map.Entry<String, String> e : data.entrySet()) {
                String key = e.getKey();
                if (key.startsWith(NODE_PREFIX)) {
                    try {
                        Tombstone t = entry(key, e.getValue());
                        entries.put(t.name(), t);
                    } catch (IllegalArgumentException bad) {
                        damaged.put(key, new Damaged(key, e.getValue(), bad.getMessage()));
                    }
                } else if (isIndexKey(key)) {
                    index.put(key, e.getValue() == null ? "" : e.getValue());
                }
            }
        }
        return new TombstoneBook(entries, damaged, index);
    }

    private static boolean isIndexKey(String key) {
        String k = key.startsWith(EXEMPT_PREFIX) ? key.substring(EXEMPT_PREFIX.length()) : key;
        return k.startsWith(SYSTEM_UUID_PREFIX) || k.startsWith(MACHINE_ID_PREFIX);
    }

    private static Tombstone entry(String key, String value) {
        JsonNode tree;
        try {
            tree = JSON.readTree(value == null ? "" : value);
        } catch (Exception e) {
            throw new IllegalArgumentException("tombstone " + key + " is not JSON");
        }
        if (tree == null || !tree.isObject()) {
            throw new IllegalArgumentException("tombstone " + key + " is not a JSON object");
        }
        String name = text(tree, key, "name");
        if (name == null || !key.equals(NODE_PREFIX + name)) {
            throw new IllegalArgumentException("tombstone " + key + " names node '" + name + "', expected '"
                    + key.substring(NODE_PREFIX.length()) + "'");
        }
        Instant removedAt = null;
        String at = text(tree, key, "removedAt");
        if (at != null) {
            try {
                removedAt = Instant.parse(at);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("tombstone " + key + ": removedAt '" + at
                        + "' is not an ISO-8601 UTC time");
            }
        }
        return new Tombstone(name, text(tree, key, "uid"), text(tree, key, "systemUUID"), text(tree, key, "machineID"),
                removedAt, text(tree, key, "gateRecordSha256"), text(tree, key, "removedBy"),
                text(tree, key, "handedTo"), names(tree, key, "liveNodesSameSystemUUID"),
                names(tree, key, "liveNodesSameMachineID"));
    }

    private static String text(JsonNode tree, String key, String field) {
        JsonNode v = tree.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isString()) {
            throw new IllegalArgumentException("tombstone " + key + ": " + field + " is not a string");
        }
        return v.asString();
    }

    private static List<String> names(JsonNode tree, String key, String field) {
        JsonNode v = tree.get(field);
        if (v == null || v.isNull()) {
            return List.of();
        }
        if (!v.isArray()) {
            throw new IllegalArgumentException("tombstone " + key + ": " + field + " is not a list of Node names");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode n : v) {
            if (!n.isString() || !KEY.matcher(n.asString()).matches()) {
                throw new IllegalArgumentException("tombstone " + key + ": " + field + " holds '" + n
                        + "', not a Node name");
            }
            out.add(n.asString());
        }
        return out;
    }

    /** The readable tombstones, by name. */
    public List<Tombstone> tombstones() {
        return List.copyOf(byName.values());
    }

    /** The entries that could not be read, by key. */
    public List<Damaged> damaged() {
        return List.copyOf(damaged.values());
    }

    /** What is wrong with each damaged entry, one line each. */
    public List<String> problems() {
        return damaged.values().stream().map(Damaged::problem).toList();
    }

    public java.util.Optional<Tombstone> get(String name) {
        return java.util.Optional.ofNullable(byName.get(name));
    }

    /** Whether an entry of this name is here, readable or damaged. */
    public boolean holds(String name) {
        return byName.containsKey(name) || damaged.containsKey(NODE_PREFIX + name);
    }

    /** No entry at all, readable or damaged. */
    public boolean isEmpty() {
        return byName.isEmpty() && damaged.isEmpty();
    }

    /** How many entries, readable or damaged. */
    public int size() {
        return byName.size() + damaged.size();
    }

    /** A book with this tombstone added (replacing one of the same name, readable or damaged). */
    public TombstoneBook with(Tombstone t) {
        if (!KEY.matcher(t.name()).matches()) {
            throw new IllegalArgumentException("node name '" + t.name() + "' cannot be a ConfigMap key");
        }
        TreeMap<String, Tombstone> next = new TreeMap<>(byName);
        next.put(t.name(), t);
        TreeMap<String, Damaged> stillDamaged = new TreeMap<>(damaged);
        stillDamaged.remove(NODE_PREFIX + t.name());
        // a replaced entry may have been smaller than what it leaves behind: only a plain addition keeps the bound
        boolean adds = !holds(t.name());
        return new TombstoneBook(next, stillDamaged, storedIndex, adds ? sizeBound() + growthBound(t) : -1);
    }

    /** A book without the entry of this name, readable or damaged (and without its index entries). */
    public TombstoneBook without(String name) {
        TreeMap<String, Tombstone> next = new TreeMap<>(byName);
        next.remove(name);
        TreeMap<String, Damaged> stillDamaged = new TreeMap<>(damaged);
        stillDamaged.remove(NODE_PREFIX + name);
        // removing an entry can widen an exemption (the intersection loses a member): no bound without rendering
        return new TombstoneBook(next, stillDamaged, storedIndex, -1);
    }

    /**
     * The shard's data: entries (damaged ones verbatim), both indexes and their exemptions, sorted keys. A damaged
     * entry cannot say which identities it had, so the index keys that named it when the shard was read keep naming
     * it, and an exemption of an identity it holds is only kept as far as the stored one allowed.
     */
    public Map<String, String> data() {
        if (rendered == null) {
            rendered = java.util.Collections.unmodifiableMap(render());
        }
        return rendered;
    }

    private TreeMap<String, String> render() {
        TreeMap<String, String> data = new TreeMap<>();
        TreeMap<String, TreeSet<String>> index = new TreeMap<>();
        TreeMap<String, Set<String>> exempt = new TreeMap<>();
        for (Tombstone t : byName.values()) {
            data.put(NODE_PREFIX + t.name(), json(t));
            addIndex(index, exempt, SYSTEM_UUID_PREFIX, t.systemUuid(), t.name(), t.liveSameSystemUuid());
            addIndex(index, exempt, MACHINE_ID_PREFIX, t.machineId(), t.name(), t.liveSameMachineId());
        }
        for (Damaged d : damaged.values()) {
            data.put(d.key(), d.value());
            for (Map.Entry<String, String> stored : storedIndex.entrySet()) {
                String key = stored.getKey();
                if (key.startsWith(EXEMPT_PREFIX) || !names(stored.getValue()).contains(d.name())) {
                    continue;
                }
                index.computeIfAbsent(key, k -> new TreeSet<>()).add(d.name());
                String exemptKey = EXEMPT_PREFIX + key;
                Set<String> kept = new TreeSet<>(names(storedIndex.getOrDefault(exemptKey, "")));
                exempt.merge(key, kept, TombstoneBook::intersection);
            }
        }
        index.forEach((k, names) -> data.put(k, String.join(" ", names)));
        exempt.forEach((k, names) -> {
            if (!names.isEmpty()) {
                data.put(EXEMPT_PREFIX + k, String.join(" ", new TreeSet<>(names)));
            }
        });
        return data;
    }

    /** Bytes the shard's data takes, keys and values (UTF-8): what {@link TombstoneShards#BUDGET} limits. */
    public long bytes() {
        if (bytes < 0) {
            bytes = bytes(data());
        }
        return bytes;
    }

    /** At least {@link #bytes()}: exact once rendered, else the bound carried from the book it was made from. */
    public long sizeBound() {
        return bytes >= 0 ? bytes : bound >= 0 ? bound : bytes();
    }

    /**
     * At most how many bytes adding {@code t} to any book adds: its entry, and for each of its identities a new
     * index key naming it and, when it has live Nodes for it, a new exemption key listing them (an existing key only
     * grows by the name, and an existing exemption only shrinks). Lets a writer skip rendering a book that has room by far.
     */
    public static long growthBound(Tombstone t) {
        long bound = utf8(NODE_PREFIX + t.name()) + utf8(json(t));
        bound += identityGrowth(SYSTEM_UUID_PREFIX, t.systemUuid(), t.name(), t.liveSameSystemUuid());
        bound += identityGrowth(MACHINE_ID_PREFIX, t.machineId(), t.name(), t.liveSameMachineId());
        return bound;
    }

    /**
     * At least how many bytes adding {@code t} (not held yet) to this book adds: its entry, and its name in each
     * index key (a new key with it), less any exemption of those keys (an intersection can shrink to nothing).
     * Renders the book (once).
     */
    public long leastGrowth(Tombstone t) {
        long least = utf8(NODE_PREFIX + t.name()) + utf8(json(t));
        for (String key : new String[]{t.systemUuid() == null ? null : SYSTEM_UUID_PREFIX + t.systemUuid(),
                t.machineId() == null ? null : MACHINE_ID_PREFIX + t.machineId()}) {
            if (key != null) {
                least += data().containsKey(key) ? utf8(t.name()) + 1 : utf8(key) + utf8(t.name());
                String exempt = data().get(EXEMPT_PREFIX + key);
                least -= exempt == null ? 0 : utf8(EXEMPT_PREFIX + key) + utf8(exempt);
            }
        }
        return least;
    }

    private static long identityGrowth(String prefix, String id, String name, List<String> live) {
        if (id == null) {
            return 0;
        }
        long index = utf8(prefix + id) + utf8(name) + 1;
        if (live.isEmpty()) {
            return index; // an exemption is an intersection: without live Nodes of its own it adds no key
        }
        return index + utf8(EXEMPT_PREFIX + prefix + id) + live.stream().mapToLong(n -> utf8(n) + 1).sum();
    }

    private static long utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    /** Bytes a ConfigMap's data takes, keys and values (UTF-8). */
    public static long bytes(Map<String, String> data) {
        long total = 0;
        for (Map.Entry<String, String> e : data.entrySet()) {
            total += e.getKey().getBytes(StandardCharsets.UTF_8).length
                    + (e.getValue() == null ? 0 : e.getValue().getBytes(StandardCharsets.UTF_8).length);
        }
        return total;
    }

    private static List<String> names(String value) {
        return value == null || value.isBlank() ? List.of() : Arrays.asList(value.trim().split(" +"));
    }

    private static Set<String> intersection(Set<String> a, Set<String> b) {
        Set<String> out = new HashSet<>(a);
        out.retainAll(b);
        return out;
    }

    private static void addIndex(Map<String, TreeSet<String>> index, Map<String, Set<String>> exempt, String prefix,
                                 String id, String name, List<String> live) {
        if (id == null || !KEY.matcher(id).matches()) {
            return;
        }
        index.computeIfAbsent(prefix + id, k -> new TreeSet<>()).add(name);
        // a Node is exempt from an identity only if it existed when every tombstone with that identity was written
        exempt.merge(prefix + id, new TreeSet<>(live), TombstoneBook::intersection);
    }

    private static String json(Tombstone t) {
        ObjectNode o = JSON.createObjectNode();
        o.put("name", t.name());
        o.put("uid", t.uid());
        o.put("systemUUID", t.systemUuid());
        o.put("machineID", t.machineId());
        o.put("removedAt", t.removedAt() == null ? null : t.removedAt().toString());
        o.put("gateRecordSha256", t.gateRecordSha256());
        o.put("removedBy", t.removedBy());
        if (t.handedTo() != null) {
            o.put("handedTo", t.handedTo());
        }
        if (!t.liveSameSystemUuid().isEmpty()) {
            ArrayNode a = o.putArray("liveNodesSameSystemUUID");
            t.liveSameSystemUuid().forEach(a::add);
        }
        if (!t.liveSameMachineId().isEmpty()) {
            ArrayNode a = o.putArray("liveNodesSameMachineID");
            t.liveSameMachineId().forEach(a::add);
        }
        return o.toString();
    }

    /** Tombstones oldest removal first, for display. */
    public List<Tombstone> byRemovalTime() {
        List<Tombstone> out = new ArrayList<>(byName.values());
        out.sort(Comparator.comparing(Tombstone::removedAt, Comparator.nullsLast(Comparator.naturalOrder())));
        return out;
    }

    @Override
    public String toString() {
        return "TombstoneBook" + Arrays.toString(byName.keySet().toArray())
                + (damaged.isEmpty() ? "" : " damaged " + damaged.keySet());
    }
}
