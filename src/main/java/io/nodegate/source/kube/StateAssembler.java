package io.nodegate.source.kube;

import io.nodegate.CollectionException;
import io.nodegate.model.Tombstone;
import io.nodegate.model.NodeInventory;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.TombstoneShards;

import io.nodegate.model.ApiEndpoints;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.Condition;
import io.nodegate.model.CordonOwner;
import io.nodegate.model.KeptNodeMetadata;
import io.nodegate.model.CsiNodeInfo;
import io.nodegate.model.DaemonSetInfo;
import io.nodegate.model.JobInfo;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.PodInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.model.Taint;
import io.nodegate.source.json.JsonReadException;
import io.nodegate.source.json.Plain;
import io.nodegate.model.NodeSystemInfo;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Turns Kubernetes objects, as plain JSON values ({@link io.nodegate.source.json.KubeJson}), into the immutable
 * model. The only place that knows both shapes; it imports no fabric8 type.
 *
 * <p>Two ways in, one mapping: {@link #assemble(RawSnapshot)} for a snapshot held whole (`collect`), and an
 * incremental instance ({@link #incremental()}) that a source feeds object by object (a live source page by page,
 * a dump file item by item), so an object can be dropped as soon as it is mapped. Both sort the same way and emit the source's
 * notes before the mapping's notes, so a live audit and an audit of its `collect` output agree.
 */
public final class StateAssembler {

    private final List<String> notes = new ArrayList<>();

    private StateAssembler() {
    }

    public static ClusterState assemble(RawSnapshot raw) {
        StateAssembler a = new StateAssembler();
        // table order is mapping order, which is note order: the same order a live source reads in
        Mapped mapped = new Mapped();
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            a.mapInto(mapped, kind, raw.plainItems(kind));
        }
        return a.finish(new Origin(raw.readsStarted(), raw.agesJudgedAt(), raw.source(), raw.context(), raw.server(),
                raw.serverVersion()), mapped, raw.notes());
    }

    private <M> void mapInto(Mapped mapped, ReadKind<?, M> kind, List<Map<String, Object>> raw) {
        if (raw == null) {
            mapped.absent(kind);
            return;
        }
        List<M> out = new ArrayList<>(raw.size());
        for (Map<String, Object> r : raw) {
            if (r != null) {
                out.add(kind.fromJson(this, r));
            }
        }
        mapped.put(kind, out);
    }

    /** An assembler to feed object by object (map each, then {@link #finish}); one per snapshot. */
    public static StateAssembler incremental() {
        return new StateAssembler();
    }

    /** What the mapping noticed so far, in order (the watch keeps each object's notes with its mapped form). */
    public List<String> mappingNotes() {
        return List.copyOf(notes);
    }

    /** Objects mapped by {@code earlier} (e.g. on another thread) were read before this one's: its notes go first. */
    public void notesFirst(StateAssembler earlier) {
        notes.addAll(0, earlier.notes);
    }

    /**
     * Where and when a snapshot was read.
     *
     * @param readsStarted the snapshot's time: when its first read was sent. Anything created later may be missing
     *                     from it, so a baseline or "since" taken from a snapshot must be this, never later
     * @param agesJudgedAt the clock its ages are judged against (heartbeat, NotReady since, cordoned since): no
     *                     earlier than the newest read's answer, so an object renewed while the reads ran never shows
     *                     a negative age ({@link ClusterState#now()})
     */
    public record Origin(Instant readsStarted, Instant agesJudgedAt, String source, String context, String server,
                         String serverVersion) {

        public Origin {
            if (readsStarted != null && agesJudgedAt != null && agesJudgedAt.isBefore(readsStarted)) {
                throw new IllegalArgumentException("ages judged at " + agesJudgedAt + ", before the reads started at "
                        + readsStarted);
            }
        }

        /** A snapshot taken at one instant (a watch's pass over what it holds, a dump with one clock). */
        public static Origin at(Instant at, String source, String context, String server, String serverVersion) {
            return new Origin(at, at, source, context, server, serverVersion);
        }
    }

    /**
     * The model objects of each kind, keyed by row of {@link Kinds}. A kind never put (or put {@link #absent})
     * was not present / not collected, as in {@link RawSnapshot}.
     */
    public static final class Mapped {
        private final Map<ReadKind<?, ?>, List<?>> lists = new LinkedHashMap<>();

        public <M> Mapped put(ReadKind<?, M> kind, List<M> items) {
            lists.put(kind, items);
            return this;
        }

        public Mapped absent(ReadKind<?, ?> kind) {
            lists.remove(kind);
            return this;
        }

        /** The kind's model objects, or null when absent. */
        @SuppressWarnings("unchecked")
        public <M> List<M> get(ReadKind<?, M> kind) {
            return (List<M>) lists.get(kind);
        }
    }

    /** Objects mapped by {@code later} were read after this one's: its notes go after (a dump, kind by kind). */
    public void notesAfter(StateAssembler later) {
        notes.addAll(later.notes);
    }

    /**
     * Builds the state from objects mapped with this instance, in the order they were read. Absent optional kinds
     * become {@link Collected#absent()}. The source's notes come first, then what the mapping noticed.
     */
    public ClusterState finish(Origin origin, Mapped mapped, List<String> sourceNotes) {
        List<String> allNotes = new ArrayList<>(sourceNotes == null ? List.of() : sourceNotes);
        allNotes.addAll(notes);
        List<SecretMeta> secrets = sorted(mapped.get(Kinds.KUBE_SYSTEM_SECRETS), SecretMeta::name).stream()
                .filter(s -> s.nodePasswordOwner().isPresent()).toList();
        List<CsiNodeInfo> csiNodes = mapped.get(Kinds.CSINODES);
        List<JobInfo> cattleJobs = mapped.get(Kinds.CATTLE_JOBS);
        List<PodInfo> pods = mapped.get(Kinds.PODS);
        List<LedgerConfigMap> ledger = mapped.get(Kinds.TOMBSTONES);
        List<List<Tombstone>> tombstones = ledger == null ? null
                : ledger.stream().map(LedgerConfigMap::tombstones).toList();
        NodeInventory inventory = ledger == null ? null : ledger.stream().map(LedgerConfigMap::inventory)
                .filter(Objects::nonNull).findFirst().orElse(null);
        return ClusterState.builder(origin.agesJudgedAt(), origin.source()).readsStarted(origin.readsStarted())
                .context(origin.context()).server(origin.server())
                .serverVersion(origin.serverVersion())
                .nodes(sorted(mapped.get(Kinds.NODES), NodeInfo::name))
                .nodeLeases(sorted(mapped.get(Kinds.NODE_LEASES), LeaseInfo::name))
                .nodePasswordSecrets(secrets)
                .csiNodes(csiNodes == null ? Collected.absent() : Collected.of(sorted(csiNodes, CsiNodeInfo::name)))
                .apiEndpoints(apiEndpoints(mapped.get(Kinds.API_ENDPOINT_SLICES)))
                .daemonSets(sorted(mapped.get(Kinds.DAEMONSETS), d -> d.namespace() + "/" + d.name()))
                .cattleJobs(cattleJobs == null ? Collected.absent() : Collected.of(sorted(cattleJobs, JobInfo::name)))
                .controlPlaneLeases(sorted(mapped.get(Kinds.KUBE_SYSTEM_LEASES), LeaseInfo::name))
                .pods(pods == null ? Collected.absent()
                        : Collected.of(sorted(pods, p -> p.namespace() + "/" + p.name())))
                .notes(List.copyOf(new LinkedHashSet<>(allNotes)))
                .tombstones(tombstones == null ? Collected.absent() : Collected.of(TombstoneShards.merge(tombstones)))
                .inventory(inventory)
                .build();
    }

    private static <T> List<T> sorted(List<T> items, java.util.function.Function<T, String> key) {
        if (items == null) {
            return List.of();
        }
        return items.stream().filter(Objects::nonNull).sorted(Comparator.comparing(key)).toList();
    }

    /**
     * What one ConfigMap of nodegate's namespace holds for the model: the tombstones of a ledger shard, or the
     * declared inventory ({@link NodeInventory}); neither for any other ConfigMap.
     *
     * @param inventory null unless this ConfigMap is the inventory
     */
    public record LedgerConfigMap(List<Tombstone> tombstones, NodeInventory inventory) {
        public LedgerConfigMap {
            tombstones = tombstones == null ? List.of() : List.copyOf(tombstones);
        }
    }

    /** The tombstones or the inventory a ConfigMap of nodegate's namespace holds ({@link LedgerConfigMap}). */
    public LedgerConfigMap ledgerConfigMap(Map<String, Object> cm) {
        String name = Plain.string(meta(cm), "name");
        if (NodeInventory.isInventory(name)) {
            return new LedgerConfigMap(List.of(), inventory(cm));
        }
        return new LedgerConfigMap(tombstones(cm), null);
    }

    /** The inventory a ConfigMap holds; an unreadable entry is noted (its host counts as undeclared), not thrown. */
    private NodeInventory inventory(Map<String, Object> cm) {
        Map<String, Object> m = meta(cm);
        NodeInventory inventory;
        try {
            inventory = NodeInventory.parse(Plain.stringMap(cm, "data"));
        } catch (RuntimeException e) {
            throw new CollectionException("ConfigMap " + Plain.string(m, "namespace") + "/" + Plain.string(m, "name")
                    + ": data is not a map of strings: " + e.getMessage(), e);
        }
        inventory.problems().forEach(p -> notes.add("ConfigMap " + Plain.string(m, "namespace") + "/"
                + NodeInventory.CONFIGMAP + ": " + p));
        return inventory;
    }

    /**
     * The tombstones a ConfigMap holds: those of a ledger shard, none for any other ConfigMap. A damaged entry is
     * skipped and noted, never thrown (in the field one bad entry made every watch pass fail).
     */
    public List<Tombstone> tombstones(Map<String, Object> cm) {
        Map<String, Object> m = meta(cm);
        String name = Plain.string(m, "name");
        if (!TombstoneShards.isShard(name)) {
            return List.of();
        }
        TombstoneBook book;
        try {
            book = TombstoneBook.parse(Plain.stringMap(cm, "data"));
        } catch (RuntimeException e) {
            throw new CollectionException("ConfigMap " + Plain.string(m, "namespace") + "/" + name
                    + ": data is not a map of strings: " + e.getMessage(), e);
        }
        Map<String, String> labels = Plain.stringMap(m, "labels");
        notes.addAll(TombstoneShards.notes(Plain.string(m, "namespace"), name, book,
                labels != null && TombstoneShards.LABEL_VALUE.equals(labels.get(TombstoneShards.LABEL))));
        return book.tombstones();
    }

    public NodeInfo node(Map<String, Object> n) {
        Map<String, Object> m = meta(n);
        String name = Plain.string(m, "name");
        Map<String, Object> st = Plain.map(n, "status");
        String where = "Node " + name;
        if (st == null) {
            notes.add(where + " has no status: the kubelet never reported, or the object was written by hand");
        }
        List<Taint> taints = new ArrayList<>();
        boolean unschedulable = false;
        String podCidr = null;
        Map<String, Object> spec = Plain.map(n, "spec");
        if (spec != null) {
            unschedulable = Boolean.TRUE.equals(Plain.bool(spec, "unschedulable"));
            podCidr = Plain.string(spec, "podCIDR");
            for (Map<String, Object> t : elements(spec, "taints")) {
                taints.add(new Taint(Plain.string(t, "key"), Plain.string(t, "value"), Plain.string(t, "effect"),
                        time(Plain.string(t, "timeAdded"), where)));
            }
        }
        List<NodeInfo.NodeAddress> addresses = new ArrayList<>();
        List<Condition> conditions = new ArrayList<>();
        NodeSystemInfo info = null;
        Map<String, String> capacity = new LinkedHashMap<>();
        if (st != null) {
            for (Map<String, Object> a : elements(st, "addresses")) {
                addresses.add(new NodeInfo.NodeAddress(Plain.string(a, "type"), Plain.string(a, "address")));
            }
            for (Map<String, Object> c : elements(st, "conditions")) {
                conditions.add(new Condition(Plain.string(c, "type"), Plain.string(c, "status"),
                        Plain.string(c, "reason"), Plain.string(c, "message"),
                        time(Plain.string(c, "lastHeartbeatTime"), where),
                        time(Plain.string(c, "lastTransitionTime"), where)));
            }
            Map<String, Object> ni = Plain.map(st, "nodeInfo");
            if (ni != null) {
                info = new NodeSystemInfo(Plain.string(ni, "bootID"), Plain.string(ni, "systemUUID"),
                        Plain.string(ni, "machineID"), Plain.string(ni, "kernelVersion"), Plain.string(ni, "osImage"),
                        Plain.string(ni, "kubeletVersion"), Plain.string(ni, "containerRuntimeVersion"));
            } else {
                notes.add(where + " has no status.nodeInfo: identity (bootID, systemUUID) unknown");
            }
            // a quantity ("16Gi", "4", "100m") is kept as the text the server wrote
            Map<String, String> cap = Plain.stringMap(st, "capacity");
            if (cap != null) {
                capacity.putAll(cap);
            }
        }
        return new NodeInfo(name, Plain.string(m, "uid"), Plain.string(m, "resourceVersion"),
                time(Plain.string(m, "creationTimestamp"), where), labels(m), Plain.stringMap(m, "annotations"),
                taints, unschedulable, podCidr, addresses, conditions, info, capacity,
                unschedulable ? cordonOwner(m, where) : null);
    }

    /**
     * Who set spec.unschedulable: the managedFields entry whose fieldsV1 holds f:spec → f:unschedulable. An Update
     * moves a changed field to its writer, so there is normally one; server-side appliers that applied the same value
     * share it, and then the latest entry is the one that set it last. Null when no entry owns it (managedFields not
     * read, as in a kubectl dump).
     */
    private CordonOwner cordonOwner(Map<String, Object> meta, String where) {
        CordonOwner owner = null;
        for (Map<String, Object> e : elements(meta, "managedFields")) {
            Map<String, Object> spec = Plain.map(Plain.map(e, "fieldsV1"), KeptNodeMetadata.MANAGED_SPEC);
            if (spec == null || !spec.containsKey(KeptNodeMetadata.MANAGED_UNSCHEDULABLE)) {
                continue;
            }
            CordonOwner candidate = new CordonOwner(Plain.string(e, "manager"), Plain.string(e, "operation"),
                    time(Plain.string(e, "time"), where + " managedFields"));
            if (owner == null || (candidate.time() != null
                    && (owner.time() == null || !candidate.time().isBefore(owner.time())))) {
                owner = candidate;
            }
        }
        return owner;
    }

    public LeaseInfo lease(Map<String, Object> l) {
        Map<String, Object> m = meta(l);
        String where = "Lease " + Plain.string(m, "namespace") + "/" + Plain.string(m, "name");
        Map<String, Object> spec = Plain.map(l, "spec");
        Instant renew = null;
        String holder = null;
        Integer duration = null;
        if (spec != null) {
            holder = Plain.string(spec, "holderIdentity");
            duration = Plain.integer(spec, "leaseDurationSeconds");
            String renewText = Plain.string(spec, "renewTime");
            if (renewText != null) {
                // a broken renewTime is a broken object (fabric8's typed model refused it too), not "no heartbeat"
                renew = parseOrNull(renewText);
                if (renew == null) {
                    throw new JsonReadException("spec.renewTime: '" + renewText + "' is not an RFC 3339 time", false);
                }
            }
        }
        if (renew == null) {
            notes.add(where + " has no renewTime: its heartbeat age is unknown");
        }
        Map<String, String> labels = Plain.stringMap(m, "labels");
        String apiserverHost = labels != null && "kube-apiserver".equals(labels.get(LeaseInfo.APISERVER_IDENTITY_LABEL))
                ? labels.get("kubernetes.io/hostname") : null;
        return new LeaseInfo(Plain.string(m, "namespace"), Plain.string(m, "name"), Plain.string(m, "uid"),
                time(Plain.string(m, "creationTimestamp"), where), holder, renew, duration, apiserverHost);
    }

    public SecretMeta secret(Map<String, Object> s) {
        Map<String, Object> m = meta(s);
        return new SecretMeta(Plain.string(m, "namespace"), Plain.string(m, "name"), Plain.string(m, "uid"),
                parseOrNull(Plain.string(m, "creationTimestamp")), Plain.string(s, "type"), labels(m));
    }

    public CsiNodeInfo csiNode(Map<String, Object> c) {
        Map<String, Object> m = meta(c);
        List<String> drivers = new ArrayList<>();
        for (Map<String, Object> d : elements(Plain.map(c, "spec"), "drivers")) {
            drivers.add(Plain.string(d, "name"));
        }
        String name = Plain.string(m, "name");
        return new CsiNodeInfo(name, Plain.string(m, "uid"), time(Plain.string(m, "creationTimestamp"),
                "CSINode " + name), drivers);
    }

    public DaemonSetInfo daemonSet(Map<String, Object> d) {
        Map<String, Object> m = meta(d);
        Map<String, Object> st = Plain.map(d, "status");
        return new DaemonSetInfo(Plain.string(m, "namespace"), Plain.string(m, "name"),
                count(st, "desiredNumberScheduled"), count(st, "currentNumberScheduled"), count(st, "numberReady"));
    }

    public JobInfo job(Map<String, Object> j) {
        Map<String, Object> m = meta(j);
        boolean failed = false;
        String reason = null;
        for (Map<String, Object> c : elements(Plain.map(j, "status"), "conditions")) {
            if ("Failed".equals(Plain.string(c, "type")) && "True".equals(Plain.string(c, "status"))) {
                failed = true;
                reason = Plain.string(c, "reason");
            }
        }
        String name = Plain.string(m, "name");
        return new JobInfo(Plain.string(m, "namespace"), name, Plain.string(m, "uid"),
                time(Plain.string(m, "creationTimestamp"), "Job " + name), failed, reason);
    }

    public PodInfo pod(Map<String, Object> p) {
        Map<String, Object> m = meta(p);
        String owner = null;
        for (Map<String, Object> ref : elements(m, "ownerReferences")) {
            owner = Plain.string(ref, "kind");
            break;
        }
        String lastTermination = null;
        Map<String, Object> status = Plain.map(p, "status");
        for (Map<String, Object> cs : elements(status, "containerStatuses")) {
            Map<String, Object> terminated = Plain.map(Plain.map(cs, "lastState"), "terminated");
            String message = Plain.string(terminated, "message");
            if (message != null) {
                lastTermination = message;
            }
        }
        Map<String, Object> spec = Plain.map(p, "spec");
        return new PodInfo(Plain.string(m, "namespace"), Plain.string(m, "name"), Plain.string(m, "uid"),
                spec == null ? null : Plain.string(spec, "nodeName"), status == null ? null : Plain.string(status, "phase"),
                owner, lastTermination);
    }

    /**
     * What one default/kubernetes EndpointSlice says: its ready addresses (an endpoint without conditions.ready is
     * ready, as EndpointSlice defines), and whether it has ports and the first one's number.
     */
    public record ApiEndpointSlice(List<String> readyAddresses, boolean hasPorts, Integer firstPort) {
        public ApiEndpointSlice {
            readyAddresses = List.copyOf(readyAddresses);
        }
    }

    public ApiEndpointSlice endpointSlice(Map<String, Object> s) {
        List<String> addresses = new ArrayList<>();
        for (Map<String, Object> e : elements(s, "endpoints")) {
            Map<String, Object> conditions = Plain.map(e, "conditions");
            boolean ready = conditions == null || !Boolean.FALSE.equals(Plain.bool(conditions, "ready"));
            List<Object> list = Plain.list(e, "addresses");
            if (ready && list != null) {
                for (Object a : list) {
                    addresses.add(Plain.text(a, "endpoints[].addresses[]"));
                }
            }
        }
        List<Map<String, Object>> ports = elements(s, "ports");
        return new ApiEndpointSlice(addresses, !ports.isEmpty(),
                ports.isEmpty() ? null : Plain.integer(ports.get(0), "port"));
    }

    private static ApiEndpoints apiEndpoints(List<ApiEndpointSlice> slices) {
        if (slices == null || slices.isEmpty()) {
            return ApiEndpoints.NONE;
        }
        Set<String> addresses = new java.util.TreeSet<>();
        Integer port = null;
        for (ApiEndpointSlice s : slices) {
            addresses.addAll(s.readyAddresses());
            if (s.hasPorts() && port == null) {
                port = s.firstPort();
            }
        }
        return new ApiEndpoints(List.copyOf(addresses), port);
    }

    private static Map<String, Object> meta(Map<String, Object> o) {
        Map<String, Object> m = Plain.map(o, "metadata");
        return m == null ? Map.of() : m;
    }

    /** Labels as the typed model had them: absent is empty. */
    private static Map<String, String> labels(Map<String, Object> meta) {
        Map<String, String> labels = Plain.stringMap(meta, "labels");
        return labels == null ? new LinkedHashMap<>() : labels;
    }

    /** The objects of an array field (absent: none); null elements are left out. */
    private static List<Map<String, Object>> elements(Map<String, Object> parent, String field) {
        List<Object> list = Plain.list(parent, field);
        if (list == null || list.isEmpty()) {
            return List.of();
        }
        List<Map<String, Object>> out = new ArrayList<>(list.size());
        for (Object o : list) {
            Map<String, Object> e = Plain.element(o, field);
            if (e != null) {
                out.add(e);
            }
        }
        return out;
    }

    private static int count(Map<String, Object> status, String field) {
        Integer v = Plain.integer(status, field);
        return v == null ? 0 : v;
    }

    private Instant time(String text, String where) {
        if (text == null || text.isBlank()) {
            return null;
        }
        Instant parsed = parseOrNull(text);
        if (parsed == null) {
            notes.add(where + ": unparsable timestamp '" + text + "' ignored");
        }
        return parsed;
    }

    /** The one parser for API times (RFC 3339); null for blank or unparsable text. */
    public static Instant parseOrNull(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        Instant utc = utcWholeSeconds(text);
        if (utc != null) {
            return utc;
        }
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * The two forms the API server writes times in, read without the general parser, which took ~14% of a
     * 5,000-node live audit's CPU time: metadata and condition times (RFC 3339, UTC, whole seconds:
     * {@code 2026-10-19T06:10:00Z}) and MicroTime, a Lease's renewTime and acquireTime
     * ({@code 2026-10-19T06:10:00.123456Z}, 1 to 9 fraction digits). Null for anything else (including impossible
     * dates), which then takes the general path.
     */
    private static Instant utcWholeSeconds(String t) {
        int length = t.length();
        if (length < 20 || t.charAt(4) != '-' || t.charAt(7) != '-' || t.charAt(10) != 'T'
                || t.charAt(13) != ':' || t.charAt(16) != ':' || t.charAt(length - 1) != 'Z') {
            return null;
        }
        int nanos = 0;
        if (length > 20) {
            int fractionDigits = length - 21;
            if (t.charAt(19) != '.' || fractionDigits < 1 || fractionDigits > 9) {
                return null;
            }
            nanos = digits(t, 20, fractionDigits);
            if (nanos < 0) {
                return null;
            }
            for (int i = fractionDigits; i < 9; i++) {
                nanos *= 10;
            }
        }
        int year = digits(t, 0, 4);
        int month = digits(t, 5, 2);
        int day = digits(t, 8, 2);
        int hour = digits(t, 11, 2);
        int minute = digits(t, 14, 2);
        int second = digits(t, 17, 2);
        if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) {
            return null;
        }
        try {
            return LocalDateTime.of(year, month, day, hour, minute, second, nanos).toInstant(ZoneOffset.UTC);
        } catch (DateTimeException e) {
            return null;
        }
    }

    /** The decimal value of {@code length} ASCII digits at {@code from}, or -1 if any is not a digit. */
    private static int digits(String t, int from, int length) {
        int value = 0;
        for (int i = from; i < from + length; i++) {
            char c = t.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
