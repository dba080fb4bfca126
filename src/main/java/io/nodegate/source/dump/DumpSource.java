package io.nodegate.source.dump;

import io.nodegate.CollectionException;
import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.InputException;
import io.nodegate.source.kube.Kinds;
import io.nodegate.source.kube.ReadKind;
import io.nodegate.source.SourceNotes;
import io.nodegate.source.kube.StateAssembler;
import io.nodegate.source.json.JsonReadException;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.json.Plain;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import io.nodegate.model.OpenHandovers;

import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.nio.file.Files;
import java.util.Collections;
import java.util.TreeSet;

/**
 * Reads cluster state from kubectl dumps (JSON or YAML, single objects or Lists, mixed kinds, multi-document
 * YAML), `nodegate collect` directories, and etcdctl JSON output.
 *
 * <p>Files are streamed ({@link DumpFiles#stream}): each object is mapped into the model as it is parsed and then
 * dropped, so memory follows the model, not the size of the file. A kubectl List of 20,000 Nodes never exists as
 * a whole tree or as fabric8 objects.
 *
 * <p>Routing follows what the live source reads: Leases in kube-node-lease are node heartbeats and Leases in
 * kube-system are leader elections; Secrets only from kube-system, reduced to metadata as they are read;
 * EndpointSlices only default/kubernetes; Jobs only in cattle-system. Other objects of these kinds, and
 * unknown kinds, are ignored with a note. The first copy of an object (kind, namespace, name) wins; a later copy
 * with another resourceVersion is noted.
 *
 * <p>The clock: {@code --now}, else the time collected.json says ages are judged at ({@code agesJudgedAt}, the
 * end of collect's reads; {@code collectedAt}, their start, when it has none), else refused: ages computed against
 * today's clock would make every old dump look dead. The snapshot's own time is {@code collectedAt}.
 *
 * <p>Optional APIs: with collected.json its {@code absent} list says what the cluster proved absent, and
 * everything else was read (possibly empty). Without it, a kind with no objects in the input is "not in the
 * input": null in the snapshot and a note.
 */
public final class DumpSource {

    public static final String COLLECTION_KIND = "NodegateCollection";
    public static final String ABSENT_CSINODES = Kinds.CSINODES.id();
    public static final String ABSENT_CATTLE_JOBS = Kinds.CATTLE_JOBS.id();

    private static final String NAMESPACE = "Namespace";
    /** The rows of the kinds table by Kubernetes kind, in table order. */
    private static final Map<String, List<ReadKind<?, ?>>> ROWS = rowsByKind();
    /** For etcdctl's shapes, which {@link EtcdDumps} reads as trees. */
    private static final ObjectMapper TREES = JsonMapper.builder().build();

    private static Map<String, List<ReadKind<?, ?>>> rowsByKind() {
        Map<String, List<ReadKind<?, ?>>> out = new LinkedHashMap<>();
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            out.computeIfAbsent(kind.kind(), k -> new ArrayList<>()).add(kind);
        }
        out.replaceAll((k, v) -> List.copyOf(v));
        return Collections.unmodifiableMap(out);
    }

    /**
     * What an offline read produced: the model (etcd reports apart) and the etcd reports. Only model objects are
     * kept: no Kubernetes object read from the files survives the read (Secret values never even became values).
     */
    public record Dump(ClusterState kubernetes, List<EtcdEndpointReport> etcd) {
        public ClusterState state() {
            return kubernetes.withEtcd(etcd);
        }
    }

    /** A collected.json found in the input. */
    record Collection(Instant collectedAt, Instant agesJudgedAt, String context, String server, String serverVersion, Set<String> absent,
                      boolean pods, String where, Path directory) {
    }

    /** What was seen of each object read (kind/namespace/name), for the first-copy-wins rule. */
    private record Seen(String resourceVersion, String where) {
    }

    private final Map<String, Seen> seen = new HashMap<>();
    /** Per row of the table: the mapping (its notes in read order) and the model objects, in read order. */
    private final Map<ReadKind<?, ?>, StateAssembler> assemblers = new LinkedHashMap<>();
    private final Map<ReadKind<?, ?>, List<Object>> models = new LinkedHashMap<>();
    /** Per kind of the table: objects no row selects (a Lease in default), for the "ignored" notes. */
    private final Map<String, Integer> outsideRows = new LinkedHashMap<>();
    private final Set<String> namespacesSeen = new TreeSet<>();
    private final Map<String, Integer> ignoredKinds = new TreeMap<>();
    private final List<String> notes = new ArrayList<>();
    private final EtcdDumps etcd = new EtcdDumps();
    private Collection collection;

    private DumpSource() {
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            assemblers.put(kind, StateAssembler.incremental());
            models.put(kind, new ArrayList<>());
        }
    }

    /** Loads -f paths into a ClusterState (etcd reports included). */
    public static ClusterState load(List<Path> paths, String nowText) {
        return read(paths, nowText).state();
    }

    /**
     * Reads -f paths.
     *
     * @param nowText --now as ISO-8601, or null to use collected.json's time
     * @throws InputException for a missing path, malformed file (with position), bad --now, or no clock
     */
    public static Dump read(List<Path> paths, String nowText) {
        return read(paths, nowText, null, KubeJson.MODEL);
    }

    /**
     * As {@link #read(List, String)} through another reader: {@link KubeJson#MODEL_UNTRIMMED} keeps every Node label
     * and annotation, to show that trimming them changes no output. Every command reads with {@link KubeJson#MODEL}.
     */
    public static Dump read(List<Path> paths, String nowText, KubeJson json) {
        return read(paths, nowText, null, json);
    }

    /**
     * Standard input, saved to a file before it is parsed: the file's path, and when it was read. A dump piped in
     * from kubectl was taken as nodegate read it, so that moment is the dump's clock when nothing else gives one.
     */
    public record StandardInput(Path copy, Instant readAt) {
    }

    /**
     * Reads -f paths, one of which may be standard input's copy.
     *
     * @param stdin the copy of standard input among the paths, or null when -f - was not given
     * @param json  the reader ({@link KubeJson#MODEL} for every command)
     */
    public static Dump read(List<Path> paths, String nowText, StandardInput stdin, KubeJson json) {
        if (paths == null || paths.isEmpty()) {
            throw new InputException("no -f path given");
        }
        Instant explicitNow = nowText == null ? null : parseNow(nowText);
        DumpSource source = new DumpSource();
        for (Path file : DumpFiles.expand(paths)) {
            source.read(file, json);
        }
        return source.build(paths, explicitNow, stdin);
    }

    static Instant parseNow(String text) {
        try {
            return OffsetDateTime.parse(text.trim()).toInstant();
        } catch (DateTimeParseException e) {
            throw new InputException("--now '" + text + "' is not an ISO-8601 time with offset, e.g. "
                    + "2026-10-19T06:10:00Z or 2026-10-19T15:10:00+09:00");
        }
    }

    /** Where a root value came from: "file" or "file (document N)" for the Nth YAML document. */
    private static String where(Path file, int document) {
        return document == 0 ? file.toString() : file + " (document " + (document + 1) + ")";
    }

    /** Streams one file: list items are accepted as they are parsed, other root values whole. */
    private void read(Path file, KubeJson json) {
        boolean[] anyValue = {false};
        // items of a root object whose kind was not known yet when they came (kubectl writes "kind" after
        // "items") and that carry no kind of their own: they wait for the list's kind (a raw LIST answer saved
        // with sorted keys). kubectl's own items always carry their kind and are never held.
        List<Map<String, Object>> waiting = new ArrayList<>();
        DumpFiles.stream(file, json, new KubeJson.DocumentHandler() {
            @Override
            public void item(int document, Object item, String listKind) {
                anyValue[0] = true;
                String where = where(file, document);
                if (!(item instanceof Map<?, ?>)) {
                    notes.add(where + ": a list item is not an object; ignored");
                    return;
                }
                Map<String, Object> object = asObject(item);
                if (listKind == null && !(object.get("kind") instanceof String)) {
                    waiting.add(object);
                    return;
                }
                acceptObject(object, listKind, null, where);
            }

            @Override
            public void listEnd(int document, KubeJson.ListEnvelope envelope) {
                anyValue[0] = true;
                String where = where(file, document);
                String kind = envelope.kind();
                if (kind == null || !kind.endsWith("List")) {
                    throw new InputException(where + ": an object " + (kind == null ? "without kind" : "of kind " + kind)
                            + " holds an items array; nodegate reads items only from a List (kind List or "
                            + "<Kind>List, as kubectl and the API write them)");
                }
                String itemKind = "List".equals(kind) ? null : kind.substring(0, kind.length() - "List".length());
                if (HANDOVER_KIND.equals(itemKind)) {
                    handoversListed = true; // collect's list of them: read, even when empty
                }
                for (Map<String, Object> object : waiting) {
                    acceptObject(object, itemKind, envelope.apiVersion(), where);
                }
                waiting.clear();
            }

            @Override
            public void value(int document, Object value) {
                if (value == null) {
                    return; // an empty YAML document, or a JSON null
                }
                anyValue[0] = true;
                acceptValue(value, where(file, document), file);
            }
        });
        if (!anyValue[0]) {
            throw new InputException(file + ": holds no Kubernetes object (only null or empty documents)");
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asObject(Object o) {
        return (Map<String, Object>) o;
    }

    /** A root value that is not a streamed list: an object, an etcdctl answer, a collection, or an array of objects. */
    private void acceptValue(Object value, String where, Path file) {
        if (value instanceof List<?> array) {
            JsonNode tree = TREES.valueToTree(array);
            if (EtcdDumps.isEndpointStatus(tree)) {
                etcd.addEndpointStatus(tree, where);
                return;
            }
            for (Object item : array) {
                if (item instanceof Map<?, ?>) {
                    acceptObject(asObject(item), null, null, where);
                } else {
                    notes.add(where + ": a list item is not an object; ignored");
                }
            }
            return;
        }
        if (!(value instanceof Map<?, ?>)) {
            throw new InputException(where + ": a " + (value instanceof String ? "string" : value instanceof Boolean
                    ? "boolean" : "number") + " value, not a Kubernetes object or list");
        }
        Map<String, Object> object = asObject(value);
        if (object.containsKey("header") && object.get("members") instanceof List<?>) {
            JsonNode tree = TREES.valueToTree(object);
            if (EtcdDumps.isMemberList(tree)) {
                etcd.addMemberList(tree, where);
                return;
            }
        }
        if (COLLECTION_KIND.equals(object.get("kind"))) {
            acceptCollection(TREES.valueToTree(object), where, file);
            return;
        }
        acceptObject(object, null, null, where);
    }

    private void acceptObject(Map<String, Object> object, String defaultKind, String defaultApiVersion, String where) {
        String kind = object.get("kind") instanceof String k ? k : defaultKind;
        if (kind == null) {
            ignoredKinds.merge("(no kind)", 1, Integer::sum);
            return;
        }
        if (HANDOVER_KIND.equals(kind)) {
            acceptHandover(object, where);
            return;
        }
        List<ReadKind<?, ?>> rows = ROWS.get(kind);
        if (rows == null && !NAMESPACE.equals(kind)) {
            ignoredKinds.merge(kind, 1, Integer::sum);
            return;
        }
        object.putIfAbsent("kind", kind);
        if (object.get("apiVersion") == null && defaultApiVersion != null) {
            object.put("apiVersion", defaultApiVersion);
        }
        String name;
        String namespace;
        String resourceVersion;
        try {
            Map<String, Object> meta = Plain.map(object, "metadata");
            name = Plain.string(meta, "name");
            namespace = Plain.string(meta, "namespace");
            resourceVersion = Plain.string(meta, "resourceVersion");
        } catch (JsonReadException e) {
            throw new InputException(where + ": " + kind + " cannot be read: metadata." + e.getMessage(), e);
        }
        if (name == null) {
            notes.add(where + ": a " + kind + " without metadata.name; ignored");
            return;
        }
        String key = kind + "/" + Objects.toString(namespace, "") + "/" + name;
        Seen earlier = seen.get(key);
        if (earlier != null) {
            if (!Objects.equals(earlier.resourceVersion(), resourceVersion)) {
                notes.add(key + " appears in " + earlier.where() + " and " + where
                        + " with different resourceVersions; using the one from " + earlier.where());
            }
            return;
        }
        seen.put(key, new Seen(resourceVersion, where));
        if (rows == null) {
            namespacesSeen.add(name);
            return;
        }
        for (ReadKind<?, ?> row : rows) {
            if (selects(row, kind, object, where, name)) {
                try {
                    models.get(row).add(row.fromJson(assemblers.get(row), object));
                } catch (JsonReadException e) {
                    throw new InputException(where + ": " + kind + " '" + name + "' cannot be read: " + e.getMessage(), e);
                }
                return;
            }
        }
        outsideRows.merge(kind, 1, Integer::sum);
    }

    private static final String HANDOVER_KIND = "NodeHandover";
    /** Open NodeHandovers by the Nodes they name, from the input's NodeHandover objects. */
    private final Map<String, List<String>> openHandovers = new TreeMap<>();
    /** Whether the input holds NodeHandovers as read: a NodeHandover, or collect's NodeHandoverList (maybe empty). */
    private boolean handoversListed;

    /**
     * A NodeHandover (nodegate's own resource; `collect` saves them, kubectl can too): only whether it is open
     * (no {@code spec.closed}) and which Nodes it names ({@code spec.nodes}) are read, for NG171.
     */
    private void acceptHandover(Map<String, Object> object, String where) {
        handoversListed = true;
        try {
            Map<String, Object> meta = Plain.map(object, "metadata");
            String name = meta == null ? null : Plain.string(meta, "name");
            Map<String, Object> spec = Plain.map(object, "spec");
            if (name == null || spec == null) {
                notes.add(where + ": a NodeHandover without metadata.name or spec; ignored");
                return;
            }
            if (spec.get("closed") != null) {
                return;
            }
            if (spec.get("nodes") instanceof List<?> nodes) {
                for (Object node : nodes) {
                    if (node instanceof String n) {
                        List<String> names = openHandovers.computeIfAbsent(n, k -> new ArrayList<>());
                        if (!names.contains(name)) {
                            names.add(name);
                        }
                    }
                }
            }
        } catch (JsonReadException e) {
            throw new InputException(where + ": NodeHandover cannot be read: " + e.getMessage(), e);
        }
    }

    private static boolean selects(ReadKind<?, ?> row, String kind, Map<String, Object> object, String where, String name) {
        try {
            return row.selects(kind, object);
        } catch (JsonReadException e) {
            throw new InputException(where + ": " + kind + " '" + name + "' cannot be read: metadata." + e.getMessage(), e);
        }
    }

    private void acceptCollection(JsonNode tree, String where, Path file) {
        String at = text(tree, "collectedAt");
        if (at == null) {
            throw new InputException(where + ": " + COLLECTION_KIND + " without collectedAt");
        }
        Instant collectedAt;
        try {
            collectedAt = OffsetDateTime.parse(at).toInstant();
        } catch (DateTimeParseException e) {
            throw new InputException(where + ": collectedAt '" + at + "' is not an ISO-8601 time", e);
        }
        Instant agesJudgedAt = collectedAt;
        String judged = text(tree, "agesJudgedAt");
        if (judged != null) {
            try {
                agesJudgedAt = OffsetDateTime.parse(judged).toInstant();
            } catch (DateTimeParseException e) {
                throw new InputException(where + ": agesJudgedAt '" + judged + "' is not an ISO-8601 time", e);
            }
            if (agesJudgedAt.isBefore(collectedAt)) {
                throw new InputException(where + ": agesJudgedAt " + judged + " is before collectedAt " + at
                        + ": the reads cannot end before they start");
            }
        }
        Set<String> absent = new TreeSet<>();
        if (tree.get("absent") != null && tree.get("absent").isArray()) {
            tree.get("absent").forEach(a -> absent.add(a.asString()));
        }
        Collection c = new Collection(collectedAt, agesJudgedAt, text(tree, "context"), text(tree, "server"),
                text(tree, "serverVersion"), absent, tree.path("pods").asBoolean(false), where,
                file.toAbsolutePath().getParent());
        if (collection != null && !collection.collectedAt().equals(c.collectedAt())) {
            throw new InputException("the input holds two collections (" + collection.where() + " at "
                    + collection.collectedAt() + ", " + where + " at " + c.collectedAt()
                    + "); read one collection at a time. To compare API servers use `nodegate views -f A -f B`; for "
                    + "`nodegate etcd`, give each side's etcdctl JSON files and one side's nodes.json");
        }
        collection = c;
    }

    /**
     * 'nodegate collect' writes one file per kind it read; collected.json lists what the cluster proved absent.
     * A file that should be there and is not (deleted, never copied) would otherwise read as "0 objects": no
     * node-password Secrets becomes an orphan finding per Node, no Leases a cluster of silent nodes.
     */
    private static void requireCollectionFiles(Collection c) {
        List<String> missing = new ArrayList<>();
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            boolean expected = switch (kind.presence()) {
                case REQUIRED -> true;
                // an optional kind's file may be missing from a collection made before nodegate read that kind
                case OPTIONAL_API, OPTIONAL_NAMESPACE -> false;
                case ON_REQUEST -> c.pods();
            };
            if (expected && kind.dumpFile() != null && !Files.isRegularFile(c.directory().resolve(kind.dumpFile()))) {
                missing.add(kind.dumpFile());
            }
        }
        if (!missing.isEmpty()) {
            throw new InputException(c.where() + " describes a collection, but its directory " + c.directory()
                    + " is missing " + String.join(", ", missing) + " (collected.json does not list them as absent):"
                    + " an incomplete copy? Copy the whole directory, or collect again");
        }
    }

    private Dump build(List<Path> paths, Instant explicitNow, StandardInput stdin) {
        Instant now = explicitNow != null ? explicitNow : collection == null ? null : collection.agesJudgedAt();
        Instant readsStarted = explicitNow != null || collection == null ? null : collection.collectedAt();
        // standard input alone is a dump taken now ('kubectl get nodes -o json | nodegate audit -f -'); beside files,
        // whose age nodegate cannot know, it gives no clock of its own
        boolean stdinAlone = stdin != null && paths.size() == 1;
        if (now == null && stdinAlone) {
            now = stdin.readAt();
        }
        if (now == null) {
            throw new InputException("no clock for the dump: ages (heartbeat, NotReady since) would be computed "
                    + "against the wrong clock; pass --now TIME (the time the dump was taken, e.g. "
                    + "--now 2026-10-19T06:10:00Z), or read a directory written by 'nodegate collect'"
                    + (stdin != null ? " (standard input read beside other files gives no clock: the files may be "
                    + "older)" : ""));
        }
        if (collection != null) {
            requireCollectionFiles(collection);
        }
        Map<ReadKind<?, ?>, List<Object>> read = new LinkedHashMap<>(models);
        ROWS.forEach((kind, rows) -> ignored(outsideRows.getOrDefault(kind, 0), kind + "(s) other than "
                + String.join(" and ", rows.stream().map(ReadKind::scopeText).toList())));
        ignoredKinds.forEach((kind, count) -> notes.add("ignored " + count + " object(s) of kind " + kind
                + " (nodegate does not read them)"));

        for (ReadKind<?, ?> kind : Kinds.ALL) {
            List<Object> found = read.get(kind);
            switch (kind.presence()) {
                case OPTIONAL_API, OPTIONAL_NAMESPACE -> {
                    if (collection != null) {
                        if (collection.absent().contains(kind.id())) {
                            notes.add(kind.absentNote());
                            read.remove(kind);
                        }
                    } else if (found.isEmpty() && !(kind.presence() == ReadKind.Presence.OPTIONAL_NAMESPACE
                            && namespacesSeen.contains(kind.namespace()))) {
                        notes.add(SourceNotes.notInInput(kind.notInInputWhat()));
                        read.remove(kind);
                    }
                }
                case ON_REQUEST -> {
                    if (found.isEmpty() && (collection == null || !collection.pods())) {
                        read.remove(kind);
                    }
                }
                default -> {
                }
            }
        }
        if (collection == null) {
            if (read.get(Kinds.NODES).isEmpty()) {
                notes.add(SourceNotes.notInInput("Node objects"));
            }
            if (read.get(Kinds.KUBE_SYSTEM_SECRETS).isEmpty() && !read.get(Kinds.NODES).isEmpty()) {
                // as CSINodes and Jobs get a note: NG140/NG141 have nothing to compare, and say so
                notes.add(SourceNotes.notInInput("node-password Secrets (kube-system)") + " (NG140, NG141)");
            }
            if (read.get(Kinds.NODE_LEASES).isEmpty() && !read.get(Kinds.NODES).isEmpty()) {
                notes.add("no Leases in kube-node-lease in the input: node heartbeat ages are unknown, not stopped");
            }
        }
        List<EtcdEndpointReport> etcdReports = etcd.reports();
        notes.addAll(etcd.notes());

        String source = "offline: " + String.join(", ", paths.stream().map(p -> stdin != null && p.equals(stdin.copy())
                ? "- (standard input" + (stdinAlone && explicitNow == null && collection == null
                ? ", read at " + stdin.readAt() : "") + ")" : p.toString()).toList())
                + (collection == null ? "" : " (collected " + collection.collectedAt()
                + (collection.context() == null ? "" : " from context " + collection.context()) + ")");
        // the mapping's notes in table order, as a whole-snapshot assembly says them; kinds left out say none
        StateAssembler model = StateAssembler.incremental();
        StateAssembler.Mapped mapped = new StateAssembler.Mapped();
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            if (read.containsKey(kind)) {
                model.notesAfter(assemblers.get(kind));
                put(mapped, kind, read.get(kind));
            }
        }
        ClusterState state = model.finish(new StateAssembler.Origin(readsStarted == null ? now : readsStarted, now,
                source,
                collection == null ? null : collection.context(),
                collection == null ? null : collection.server(),
                collection == null ? null : collection.serverVersion()), mapped, List.copyOf(notes));
        if (handoversListed) {
            state = state.withHandovers(OpenHandovers.of(openHandovers));
        }
        return new Dump(state, etcdReports);
    }

    @SuppressWarnings("unchecked")
    private static <M> void put(StateAssembler.Mapped mapped, ReadKind<?, M> kind, List<Object> items) {
        mapped.put(kind, (List<M>) (List<?>) items);
    }

    private void ignored(int count, String what) {
        if (count > 0) {
            notes.add("ignored " + count + " " + what + " (nodegate does not read them)");
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }
}
