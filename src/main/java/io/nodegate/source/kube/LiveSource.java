package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInfo;
import io.nodegate.CollectionException;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * Reads a cluster through the API server with LIST calls only, paginated ({@value #PAGE_SIZE} per page plus
 * the continue token), a fixed number of calls per resource kind whatever the number of nodes. What it reads is
 * the table {@link Kinds}; how it reads is {@link ApiCalls}.
 *
 * <p>Every failed call (connection refused, timeout, 403, 429, 5xx, unparsable answer) raises
 * {@link CollectionException} naming the call; only a NotFound proves that an optional API or namespace is
 * absent. Secret data never leaves the page it arrived in: each Secret is reduced to metadata at once.
 */
public final class LiveSource implements AutoCloseable {

    public static final long PAGE_SIZE = ApiCalls.PAGE_SIZE;
    public static final String NODE_LEASE_NAMESPACE = Kinds.NODE_LEASE_NAMESPACE;
    public static final String KUBE_SYSTEM = Kinds.KUBE_SYSTEM;
    public static final String CATTLE_SYSTEM = Kinds.CATTLE_SYSTEM;
    public static final String KUBERNETES_SERVICE_LABEL = Kinds.KUBERNETES_SERVICE_LABEL;

    private final KubeConnection connection;
    private final ApiCalls api;
    private final Clock clock;

    public LiveSource(KubeConnection connection) {
        this(connection, Clock.systemUTC(), PAGE_SIZE);
    }

    /** For tests: a small page size proves paging with few objects. */
    LiveSource(KubeConnection connection, Clock clock, long pageSize) {
        this.connection = connection;
        this.api = new ApiCalls(connection, pageSize);
        this.clock = clock;
    }

    /**
     * Opens a connection as kubectl would (see {@link KubeConnection#open}) that parses whole objects: for
     * {@link #read} (what `collect` writes) and for callers that use the client themselves.
     */
    public static LiveSource open(java.nio.file.Path kubeconfig, String context, java.time.Duration requestTimeout) {
        return new LiveSource(KubeConnection.open(kubeconfig, context, requestTimeout));
    }

    /** Like {@link #open(java.nio.file.Path, String, java.time.Duration)}, recording every call in {@code lastAsked}. */
    public static LiveSource open(java.nio.file.Path kubeconfig, String context, java.time.Duration requestTimeout,
                                  LastServerAsked lastAsked) {
        return new LiveSource(KubeConnection.open(kubeconfig, context, requestTimeout, lastAsked));
    }

    /**
     * Opens a connection for {@link #load} only: its client skips, while parsing, the fields the model never
     * reads (see {@link ModelOnlyParsing}), which is most of a Node's JSON.
     */
    public static LiveSource openForModel(java.nio.file.Path kubeconfig, String context, java.time.Duration requestTimeout) {
        return new LiveSource(KubeConnection.openForModel(kubeconfig, context, requestTimeout));
    }

    /** Like {@link #openForModel(java.nio.file.Path, String, java.time.Duration)}, recording every call in {@code lastAsked}. */
    public static LiveSource openForModel(java.nio.file.Path kubeconfig, String context,
                                          java.time.Duration requestTimeout, LastServerAsked lastAsked) {
        return new LiveSource(KubeConnection.openForModel(kubeconfig, context, requestTimeout, lastAsked));
    }

    /** The fabric8 client, built on first use: for writes and watches only (reads never need it). */
    public KubernetesClient client() {
        return connection.client();
    }

    public KubeConnection connection() {
        return connection;
    }

    /** The read layer this source uses (same pagination, same error wording), for callers with their own reads. */
    public ApiCalls api() {
        return api;
    }

    /**
     * Reads the cluster and assembles the model, mapping each page as it arrives so that only a page of fabric8
     * objects per kind is held at a time. Same calls and same mapping as {@link #read} (Nodes are listed
     * alongside the other kinds), so the result equals {@code StateAssembler.assemble(read(withPods))}, notes
     * included. Any failed call fails the whole load. Pods are listed (all namespaces) only when asked.
     */
    public ClusterState load(boolean withPods) {
        Instant started = clock.instant();
        List<String> notes = new ArrayList<>();
        String version = serverVersion();
        // Nodes are most of the bytes to parse: list them on a second thread while this one lists the rest, so
        // two cores parse at once. Same calls; the failure reported is the one a sequential read would report.
        StateAssembler nodeModel = StateAssembler.incremental();
        ExecutorService nodeReader = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "nodegate-list-nodes");
            t.setDaemon(true);
            return t;
        });
        try {
            Future<List<NodeInfo>> nodes = nodeReader.submit(
                    () -> api.listPlain(Kinds.NODES, n -> Kinds.NODES.fromJson(nodeModel, n)));
            StateAssembler model = StateAssembler.incremental();
            StateAssembler.Mapped mapped = new StateAssembler.Mapped();
            try {
                for (ReadKind<?, ?> kind : kindsToRead(withPods)) {
                    if (kind != Kinds.NODES) {
                        readIntoModel(kind, model, mapped, notes);
                    }
                }
            } catch (RuntimeException later) {
                joinNodes(nodes); // nodes come first in read order: their failure, if any, is the one to report
                throw later;
            }
            mapped.put(Kinds.NODES, joinNodes(nodes));
            model.notesFirst(nodeModel);
            return model.finish(new StateAssembler.Origin(started, readsEnded(), source(), connection.context(),
                    connection.server(), version), mapped, List.copyOf(notes));
        } finally {
            nodeReader.shutdownNow();
        }
    }

    /**
     * The clock a snapshot's ages are judged against: the moment its last read was answered. The objects were read
     * over an interval, and a kubelet that renews its Lease while the reads run (every 10 s) gives a renewTime
     * after the interval's start: judged at the start it is in the future, a negative age (seen on a real
     * apiserver: a Lease age of -823ms). Judged at the end, every age is at least its true age at the moment its
     * object was read, and at most that plus the reads' own duration. The snapshot's own time stays the start
     * ({@code started}): a Node created during the reads may be missing, so nothing later may stand for "what the
     * cluster held".
     */
    private Instant readsEnded() {
        return clock.instant();
    }

    private <M> void readIntoModel(ReadKind<?, M> kind, StateAssembler model, StateAssembler.Mapped mapped,
                                   List<String> notes) {
        List<M> items = read(kind, notes, o -> kind.fromJson(model, o));
        if (items == null) {
            mapped.absent(kind);
        } else {
            mapped.put(kind, items);
        }
    }

    private static List<ReadKind<?, ?>> kindsToRead(boolean withPods) {
        return Kinds.ALL.stream().filter(k -> withPods || k.presence() != ReadKind.Presence.ON_REQUEST).toList();
    }

    private static <T> T joinNodes(Future<T> nodes) {
        try {
            return nodes.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new CollectionException("LIST nodes: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CollectionException("LIST nodes: interrupted", e);
        }
    }

    /** Reads the cluster as the server sent it (plain JSON values, Secret values never read): what `collect` writes. */
    public RawSnapshot read(boolean withPods) {
        if (connection.modelOnly()) {
            throw new IllegalStateException("read() returns whole objects; this connection skips fields while "
                    + "parsing (openForModel): use open()");
        }
        Instant started = clock.instant();
        List<String> notes = new ArrayList<>();
        String version = serverVersion();
        Map<ReadKind<?, ?>, List<Map<String, Object>>> objects = new LinkedHashMap<>();
        for (ReadKind<?, ?> kind : kindsToRead(withPods)) {
            List<Map<String, Object>> items = read(kind, notes, Function.identity());
            if (items != null) {
                objects.put(kind, items);
            }
        }
        return new RawSnapshot(started, readsEnded(), source(), connection.context(), connection.server(), version,
                objects, List.copyOf(notes));
    }

    /**
     * One row of the table as plain JSON values, each through {@code map}; null (with the kind's note) when the kind
     * is proven absent: its API answered 404 (OPTIONAL_API) or its namespace does not exist (OPTIONAL_NAMESPACE).
     */
    public <R> List<R> read(ReadKind<?, ?> kind, List<String> notes, Function<Map<String, Object>, R> map) {
        switch (kind.presence()) {
            case OPTIONAL_API -> {
                try {
                    return api.listPlain(kind, map);
                } catch (ApiCalls.NotFound e) {
                    notes.add(kind.absentNote());
                    return null;
                }
            }
            case OPTIONAL_NAMESPACE -> {
                if (!namespaceExists(kind.namespace())) {
                    notes.add(kind.absentNote());
                    return null;
                }
                return api.listPlain(kind, map);
            }
            default -> {
                return api.listPlain(kind, map);
            }
        }
    }

    /** GET namespace: false only on NotFound. */
    public boolean namespaceExists(String namespace) {
        return api.namespaceExists(namespace);
    }

    private String source() {
        return "live: " + connection.describe();
    }

    /** Every pod in every namespace, paginated, as plain JSON values. */
    public List<Map<String, Object>> allPods() {
        return api.listPlain(Kinds.PODS, Function.identity());
    }

    /** Pods bound to one node (field selector spec.nodeName), paginated. An empty list is a proven answer. */
    public List<Pod> podsOnNode(String nodeName) {
        String selector = "spec.nodeName=" + nodeName;
        return api.listAll("LIST pods in all namespaces (" + selector + ")",
                ApiCalls.collectionPath(Pod.class, null), Pod.class, null, selector, Function.identity());
    }

    /** apiserver gitVersion from /version. */
    public String serverVersion() {
        return api.serverVersion();
    }

    /** A Secret with its metadata and type only; data, stringData and last-applied-configuration dropped. */
    public static Secret metadataOnly(Secret secret) {
        return SecretTrim.metadataOnly(secret);
    }

    static String reason(int code) {
        return ApiCalls.reason(code);
    }

    @Override
    public void close() {
        connection.close();
    }
}
