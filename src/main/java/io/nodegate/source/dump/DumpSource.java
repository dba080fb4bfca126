package io.nodegate.source.dump;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.InputException;
import io.nodegate.source.Kinds;
import io.nodegate.source.RawSnapshot;
import io.nodegate.source.ReadKind;
import io.nodegate.source.SecretTrim;
import io.nodegate.source.SourceNotes;
import io.nodegate.source.StateAssembler;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads cluster state from kubectl dumps (JSON or YAML, single objects or Lists, mixed kinds, multi-document
 * YAML), `nodegate collect` directories, and etcdctl JSON output.
 *
 * <p>Routing follows what the live source reads: Leases in kube-node-lease are node heartbeats and Leases in
 * kube-system are leader elections; Secrets only from kube-system, reduced to metadata as they are read;
 * EndpointSlices only default/kubernetes; Jobs only in cattle-system. Other objects of these kinds, and
 * unknown kinds, are ignored with a note.
 *
 * <p>The clock: {@code --now}, else the collection time in collected.json, else refused: ages computed
 * against today's clock would make every old dump look dead.
 *
 * <p>Optional APIs: with collected.json its {@code absent} list says what the cluster proved absent, and
 * everything else was read (possibly empty). Without it, a kind with no objects in the input is "not in the
 * input": null in the snapshot and a note.
 */
public final class DumpSource {

    public static final String COLLECTION_KIND = "NodegateCollection";
    public static final String ABSENT_CSINODES = Kinds.CSINODES.id();
    public static final String ABSENT_CATTLE_JOBS = Kinds.CATTLE_JOBS.id();

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    /** The types of the kinds table, plus Namespace (whether cattle-system exists). */
    private static final Map<String, Class<? extends HasMetadata>> KINDS = kindsByName();

    private static Map<String, Class<? extends HasMetadata>> kindsByName() {
        Map<String, Class<? extends HasMetadata>> out = new LinkedHashMap<>();
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            out.put(HasMetadata.getKind(kind.type()), kind.type());
        }
        out.put("Namespace", Namespace.class);
        return Map.copyOf(out);
    }

    /** What an offline read produced: the Kubernetes snapshot and the etcd reports. */
    public record Dump(RawSnapshot raw, List<EtcdEndpointReport> etcd) {
        public ClusterState state() {
            return StateAssembler.assemble(raw).withEtcd(etcd);
        }
    }

    /** A collected.json found in the input. */
    record Collection(Instant collectedAt, String context, String server, String serverVersion, Set<String> absent,
                      boolean pods, String where, Path directory) {
    }

    private final Map<String, HasMetadata> objects = new LinkedHashMap<>();
    private final Map<String, String> objectSource = new LinkedHashMap<>();
    private final Map<String, Integer> ignoredKinds = new TreeMap<>();
    private final List<String> notes = new ArrayList<>();
    private final EtcdDumps etcd = new EtcdDumps();
    private Collection collection;

    private DumpSource() {
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
        if (paths == null || paths.isEmpty()) {
            throw new InputException("no -f path given");
        }
        Instant explicitNow = nowText == null ? null : parseNow(nowText);
        DumpSource source = new DumpSource();
        for (Path file : DumpFiles.expand(paths)) {
            for (DumpFiles.Document doc : DumpFiles.parse(file)) {
                source.accept(doc);
            }
        }
        return source.build(paths, explicitNow);
    }

    static Instant parseNow(String text) {
        try {
            return OffsetDateTime.parse(text.trim()).toInstant();
        } catch (DateTimeParseException e) {
            throw new InputException("--now '" + text + "' is not an ISO-8601 time with offset, e.g. "
                    + "2026-10-19T06:10:00Z or 2026-10-19T15:10:00+09:00");
        }
    }

    private void accept(DumpFiles.Document doc) {
        JsonNode tree = doc.tree();
        if (EtcdDumps.isEndpointStatus(tree)) {
            etcd.addEndpointStatus(tree, doc.where());
            return;
        }
        if (EtcdDumps.isMemberList(tree)) {
            etcd.addMemberList(tree, doc.where());
            return;
        }
        if (tree.isArray()) {
            tree.forEach(item -> acceptObject(item, null, null, doc));
            return;
        }
        if (!tree.isObject()) {
            throw new InputException(doc.where() + ": a " + tree.getNodeType().toString().toLowerCase(java.util.Locale.ROOT)
                    + " value, not a Kubernetes object or list");
        }
        String kind = text(tree, "kind");
        if (COLLECTION_KIND.equals(kind)) {
            acceptCollection(tree, doc);
            return;
        }
        if (kind != null && kind.endsWith("List") && tree.get("items") != null && tree.get("items").isArray()) {
            // kubectl prints kind List with typed items; a raw API answer (NodeList) has items without kind
            String itemKind = "List".equals(kind) ? null : kind.substring(0, kind.length() - "List".length());
            String apiVersion = text(tree, "apiVersion");
            tree.get("items").forEach(item -> acceptObject(item, itemKind, apiVersion, doc));
            return;
        }
        acceptObject(tree, null, null, doc);
    }

    private void acceptObject(JsonNode item, String defaultKind, String defaultApiVersion, DumpFiles.Document doc) {
        if (!item.isObject()) {
            notes.add(doc.where() + ": a list item is not an object; ignored");
            return;
        }
        String kind = text(item, "kind") != null ? text(item, "kind") : defaultKind;
        if (kind == null) {
            ignoredKinds.merge("(no kind)", 1, Integer::sum);
            return;
        }
        Class<? extends HasMetadata> type = KINDS.get(kind);
        if (type == null) {
            ignoredKinds.merge(kind, 1, Integer::sum);
            return;
        }
        // the parsed document is this load's own and is dropped after it: amend it in place, no copy per object
        ObjectNode tree = (ObjectNode) item;
        tree.put("kind", kind);
        if (tree.get("apiVersion") == null && defaultApiVersion != null) {
            tree.put("apiVersion", defaultApiVersion);
        }
        if (type == Secret.class) {
            tree.remove("data");
            tree.remove("stringData");
        }
        String name = tree.path("metadata").path("name").asString("");
        HasMetadata object;
        try {
            object = SERIALIZATION.convertValue(tree, type);
        } catch (RuntimeException e) {
            String path = e instanceof tools.jackson.core.JacksonException j && j.getPathReference() != null
                    ? " (at " + j.getPathReference() + ")" : "";
            throw new InputException(doc.where() + ": " + kind + " '" + name + "' cannot be read: "
                    + DumpFiles.detail(e instanceof tools.jackson.core.JacksonException j2 ? j2.getOriginalMessage()
                    : e.getMessage()) + path, e);
        }
        if (object instanceof Secret secret) {
            object = SecretTrim.metadataOnly(secret);
        }
        if (object.getMetadata() == null || object.getMetadata().getName() == null) {
            notes.add(doc.where() + ": a " + kind + " without metadata.name; ignored");
            return;
        }
        String key = kind + "/" + Objects.toString(object.getMetadata().getNamespace(), "") + "/"
                + object.getMetadata().getName();
        HasMetadata earlier = objects.get(key);
        if (earlier != null) {
            if (!Objects.equals(earlier.getMetadata().getResourceVersion(), object.getMetadata().getResourceVersion())) {
                notes.add(key + " appears in " + objectSource.get(key) + " and " + doc.where()
                        + " with different resourceVersions; using the one from " + objectSource.get(key));
            }
            return;
        }
        objects.put(key, object);
        objectSource.put(key, doc.where());
    }

    private void acceptCollection(JsonNode tree, DumpFiles.Document doc) {
        String at = text(tree, "collectedAt");
        if (at == null) {
            throw new InputException(doc.where() + ": " + COLLECTION_KIND + " without collectedAt");
        }
        Instant collectedAt;
        try {
            collectedAt = OffsetDateTime.parse(at).toInstant();
        } catch (DateTimeParseException e) {
            throw new InputException(doc.where() + ": collectedAt '" + at + "' is not an ISO-8601 time", e);
        }
        Set<String> absent = new java.util.TreeSet<>();
        if (tree.get("absent") != null && tree.get("absent").isArray()) {
            tree.get("absent").forEach(a -> absent.add(a.asString()));
        }
        Collection c = new Collection(collectedAt, text(tree, "context"), text(tree, "server"),
                text(tree, "serverVersion"), absent, tree.path("pods").asBoolean(false), doc.where(),
                doc.file().toAbsolutePath().getParent());
        if (collection != null && !collection.collectedAt().equals(c.collectedAt())) {
            throw new InputException("the input holds two collections (" + collection.where() + " at "
                    + collection.collectedAt() + ", " + doc.where() + " at " + c.collectedAt()
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
            if (expected && kind.dumpFile() != null && !java.nio.file.Files.isRegularFile(c.directory().resolve(kind.dumpFile()))) {
                missing.add(kind.dumpFile());
            }
        }
        if (!missing.isEmpty()) {
            throw new InputException(c.where() + " describes a collection, but its directory " + c.directory()
                    + " is missing " + String.join(", ", missing) + " (collected.json does not list them as absent):"
                    + " an incomplete copy? Copy the whole directory, or collect again");
        }
    }

    private <T extends HasMetadata> List<T> all(Class<T> type) {
        List<T> out = new ArrayList<>();
        for (HasMetadata o : objects.values()) {
            if (type.isInstance(o)) {
                out.add(type.cast(o));
            }
        }
        return out;
    }

    private Dump build(List<Path> paths, Instant explicitNow) {
        Instant now = explicitNow != null ? explicitNow : collection == null ? null : collection.collectedAt();
        if (now == null) {
            throw new InputException("no clock for the dump: ages (heartbeat, NotReady since) would be computed "
                    + "against the wrong clock; pass --now TIME (the time the dump was taken, e.g. "
                    + "--now 2026-10-19T06:10:00Z), or read a directory written by 'nodegate collect'");
        }
        if (collection != null) {
            requireCollectionFiles(collection);
        }
        Map<ReadKind<?, ?>, List<? extends HasMetadata>> read = new LinkedHashMap<>();
        Map<Class<?>, List<ReadKind<?, ?>>> rowsByType = new LinkedHashMap<>();
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            List<HasMetadata> selected = objects.values().stream().filter(kind::selects).toList();
            read.put(kind, selected);
            rowsByType.computeIfAbsent(kind.type(), t -> new ArrayList<>()).add(kind);
        }
        rowsByType.forEach((type, rows) -> {
            long outside = objects.values().stream().filter(type::isInstance)
                    .filter(o -> rows.stream().noneMatch(r -> r.selects(o))).count();
            ignored((int) outside, HasMetadata.getKind(type.asSubclass(HasMetadata.class)) + "(s) other than "
                    + String.join(" and ", rows.stream().map(ReadKind::scopeText).toList()));
        });
        Set<String> namespacesSeen = new java.util.TreeSet<>();
        all(Namespace.class).forEach(n -> namespacesSeen.add(n.getMetadata().getName()));
        ignoredKinds.forEach((kind, count) -> notes.add("ignored " + count + " object(s) of kind " + kind
                + " (nodegate does not read them)"));

        for (ReadKind<?, ?> kind : Kinds.ALL) {
            List<? extends HasMetadata> found = read.get(kind);
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

        String source = "offline: " + String.join(", ", paths.stream().map(Path::toString).toList())
                + (collection == null ? "" : " (collected " + collection.collectedAt()
                + (collection.context() == null ? "" : " from context " + collection.context()) + ")");
        RawSnapshot raw = new RawSnapshot(now, source,
                collection == null ? null : collection.context(),
                collection == null ? null : collection.server(),
                collection == null ? null : collection.serverVersion(),
                read, List.copyOf(notes));
        return new Dump(raw, etcdReports);
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
