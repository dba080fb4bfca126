package io.nodegate.model;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The data of the ConfigMap {@value #CONFIGMAP} (namespace nodegate-system by default): one tombstone per removed
 * host, plus two indexes the admission policy reads, because CEL cannot parse the JSON entries.
 * <pre>
 *   node.&lt;name&gt;               {"name":…,"uid":…,"systemUUID":…,"machineID":…,"removedAt":…,
 *                               "gateRecordSha256":…,"removedBy":…}
 *   systemuuid.&lt;lower-case uuid&gt; the names of the tombstones with that systemUUID, space-separated
 *   machineid.&lt;lower-case id&gt;   the names of the tombstones with that machineID, space-separated
 * </pre>
 * A UUID that is empty or all zeros gets no index key, so it can never match. Immutable: {@link #with} and
 * {@link #without} return a new book.
 */
public final class TombstoneBook {

    public static final String CONFIGMAP = "nodegate-tombstones";
    public static final String DEFAULT_NAMESPACE = "nodegate-system";
    public static final String NODE_PREFIX = "node.";
    public static final String SYSTEM_UUID_PREFIX = "systemuuid.";
    public static final String MACHINE_ID_PREFIX = "machineid.";

    /** What a ConfigMap data key may hold (k8s.io/apimachinery IsConfigMapKey). */
    private static final Pattern KEY = Pattern.compile("[-._a-zA-Z0-9]+");
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private final TreeMap<String, Tombstone> byName;

    private TombstoneBook(Map<String, Tombstone> byName) {
        this.byName = new TreeMap<>(byName);
    }

    public static TombstoneBook empty() {
        return new TombstoneBook(Map.of());
    }

    /**
     * Reads the ConfigMap's data. Index keys are rebuilt from the entries, never trusted.
     *
     * @throws IllegalArgumentException an entry that is not a tombstone (names the key and what is wrong)
     */
    public static TombstoneBook parse(Map<String, String> data) {
        Map<String, Tombstone> entries = new TreeMap<>();
        if (data != null) {
            for (Map.Entry<String, String> e : data.entrySet()) {
                if (e.getKey().startsWith(NODE_PREFIX)) {
                    Tombstone t = entry(e.getKey(), e.getValue());
                    entries.put(t.name(), t);
                }
            }
        }
        return new TombstoneBook(entries);
    }

    private static Tombstone entry(String key, String value) {
        JsonNode tree;
        try {
            tree = JSON.readTree(value == null ? "" : value);
        } catch (Exception e) {
            throw new IllegalArgumentException("tombstone " + key + " is not JSON: " + e.getMessage());
        }
        if (tree == null || !tree.isObject()) {
            throw new IllegalArgumentException("tombstone " + key + " is not a JSON object");
        }
        String name = text(tree, "name");
        if (name == null || !key.equals(NODE_PREFIX + name)) {
            throw new IllegalArgumentException("tombstone " + key + " names node '" + name + "', expected '"
                    + key.substring(NODE_PREFIX.length()) + "'");
        }
        Instant removedAt = null;
        String at = text(tree, "removedAt");
        if (at != null) {
            try {
                removedAt = Instant.parse(at);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("tombstone " + key + ": removedAt '" + at + "' is not an ISO-8601 time");
            }
        }
        return new Tombstone(name, text(tree, "uid"), text(tree, "systemUUID"), text(tree, "machineID"), removedAt,
                text(tree, "gateRecordSha256"), text(tree, "removedBy"));
    }

    private static String text(JsonNode tree, String field) {
        JsonNode v = tree.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }

    public List<Tombstone> tombstones() {
        return List.copyOf(byName.values());
    }

    public java.util.Optional<Tombstone> get(String name) {
        return java.util.Optional.ofNullable(byName.get(name));
    }

    public boolean isEmpty() {
        return byName.isEmpty();
    }

    /** A book with this tombstone added (replacing one of the same name). */
    public TombstoneBook with(Tombstone t) {
        if (!KEY.matcher(t.name()).matches()) {
            throw new IllegalArgumentException("node name '" + t.name() + "' cannot be a ConfigMap key");
        }
        TreeMap<String, Tombstone> next = new TreeMap<>(byName);
        next.put(t.name(), t);
        return new TombstoneBook(next);
    }

    /** A book without the tombstone of this name (and without its index entries). */
    public TombstoneBook without(String name) {
        TreeMap<String, Tombstone> next = new TreeMap<>(byName);
        next.remove(name);
        return new TombstoneBook(next);
    }

    /** The ConfigMap data: entries and both indexes, sorted keys. */
    public Map<String, String> data() {
        TreeMap<String, String> data = new TreeMap<>();
        TreeMap<String, TreeSet<String>> index = new TreeMap<>();
        for (Tombstone t : byName.values()) {
            data.put(NODE_PREFIX + t.name(), json(t));
            addIndex(index, SYSTEM_UUID_PREFIX, t.systemUuid(), t.name());
            addIndex(index, MACHINE_ID_PREFIX, t.machineId(), t.name());
        }
        index.forEach((k, names) -> data.put(k, String.join(" ", names)));
        return data;
    }

    private static void addIndex(Map<String, TreeSet<String>> index, String prefix, String id, String name) {
        if (id != null && KEY.matcher(id).matches()) {
            index.computeIfAbsent(prefix + id, k -> new TreeSet<>()).add(name);
        }
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
        return "TombstoneBook" + Arrays.toString(byName.keySet().toArray());
    }
}
