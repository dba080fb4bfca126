package io.nodegate.source.live;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.VersionInfo;
import io.nodegate.model.ClusterState;
import io.nodegate.model.CsiNodeInfo;
import io.nodegate.model.DaemonSetInfo;
import io.nodegate.model.JobInfo;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.PodInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.source.CollectionException;
import io.nodegate.source.RawSnapshot;
import io.nodegate.source.SourceNotes;
import io.nodegate.source.StateAssembler;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Reads a cluster through the API server with LIST calls only, paginated ({@value #PAGE_SIZE} per page plus
 * the continue token), a fixed number of calls per resource kind whatever the number of nodes.
 *
 * <p>Every failed call (connection refused, timeout, 403, 429, 5xx, unparsable answer) raises
 * {@link CollectionException} naming the call; only a NotFound proves that an optional API or namespace is
 * absent. Secret data never leaves the page it arrived in: each Secret is reduced to metadata at once.
 */
public final class LiveSource implements AutoCloseable {

    public static final long PAGE_SIZE = 500;
    public static final String NODE_LEASE_NAMESPACE = "kube-node-lease";
    public static final String KUBE_SYSTEM = "kube-system";
    public static final String CATTLE_SYSTEM = "cattle-system";
    public static final String KUBERNETES_SERVICE_LABEL = "kubernetes.io/service-name";
    private static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

    private final KubeConnection connection;
    private final KubernetesClient client;
    private final Clock clock;
    private final long pageSize;

    public LiveSource(KubeConnection connection) {
        this(connection, Clock.systemUTC(), PAGE_SIZE);
    }

    /** For tests: a small page size proves paging with few objects. */
    LiveSource(KubeConnection connection, Clock clock, long pageSize) {
        this.connection = connection;
        this.client = connection.client();
        this.clock = clock;
        this.pageSize = pageSize;
    }

    /**
     * Opens a connection as kubectl would (see {@link KubeConnection#open}) that parses whole objects: for
     * {@link #read} (what `collect` writes) and for callers that use the client themselves.
     */
    public static LiveSource open(java.nio.file.Path kubeconfig, String context, int requestTimeoutSeconds) {
        return new LiveSource(KubeConnection.open(kubeconfig, context, requestTimeoutSeconds));
    }

    /**
     * Opens a connection for {@link #load} only: its client skips, while parsing, the fields the model never
     * reads (see {@link ModelOnlyParsing}), which is most of a Node's JSON.
     */
    public static LiveSource openForModel(java.nio.file.Path kubeconfig, String context, int requestTimeoutSeconds) {
        return new LiveSource(KubeConnection.openForModel(kubeconfig, context, requestTimeoutSeconds));
    }

    public KubernetesClient client() {
        return client;
    }

    public KubeConnection connection() {
        return connection;
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
            Future<List<NodeInfo>> nodes = nodeReader.submit(() -> nodes(nodeModel::node));
            StateAssembler model = StateAssembler.incremental();
            List<LeaseInfo> nodeLeases;
            List<SecretMeta> secrets;
            List<CsiNodeInfo> csiNodes;
            List<EndpointSlice> slices;
            List<DaemonSetInfo> daemonSets;
            List<JobInfo> jobs;
            List<LeaseInfo> kubeSystemLeases;
            List<PodInfo> pods;
            try {
                nodeLeases = nodeLeases(model::lease);
                secrets = kubeSystemSecrets(s -> model.secret(metadataOnly(s)));
                csiNodes = csiNodes(notes, model::csiNode);
                slices = kubernetesEndpointSlices();
                daemonSets = daemonSets(model::daemonSet);
                jobs = cattleJobs(notes, model::job);
                kubeSystemLeases = kubeSystemLeases(model::lease);
                pods = withPods ? allPods(model::pod) : null;
            } catch (RuntimeException later) {
                joinNodes(nodes); // nodes come first in read order: their failure, if any, is the one to report
                throw later;
            }
            List<NodeInfo> nodeInfos = joinNodes(nodes);
            model.notesFirst(nodeModel);
            return model.finish(started, source(), connection.context(), connection.server(), version, nodeInfos,
                    nodeLeases, secrets, csiNodes, slices, daemonSets, jobs, kubeSystemLeases, pods,
                    List.copyOf(notes));
        } finally {
            nodeReader.shutdownNow();
        }
    }

    private static List<NodeInfo> joinNodes(Future<List<NodeInfo>> nodes) {
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

    /** Reads the cluster into fabric8 objects, exactly what `collect` writes. */
    public RawSnapshot read(boolean withPods) {
        if (connection.modelOnly()) {
            throw new IllegalStateException("read() returns whole objects; this connection skips fields while "
                    + "parsing (openForModel): use open()");
        }
        Instant started = clock.instant();
        List<String> notes = new ArrayList<>();
        String version = serverVersion();
        List<Node> nodes = nodes(Function.identity());
        List<Lease> nodeLeases = nodeLeases(Function.identity());
        List<Secret> secrets = kubeSystemSecrets(LiveSource::metadataOnly);
        List<CSINode> csiNodes = csiNodes(notes, Function.identity());
        List<EndpointSlice> slices = kubernetesEndpointSlices();
        List<DaemonSet> daemonSets = daemonSets(Function.identity());
        List<Job> jobs = cattleJobs(notes, Function.identity());
        List<Lease> kubeSystemLeases = kubeSystemLeases(Function.identity());
        List<Pod> pods = withPods ? allPods() : null;
        return new RawSnapshot(started, source(), connection.context(), connection.server(),
                version, nodes, nodeLeases, secrets, csiNodes, slices, daemonSets, jobs, kubeSystemLeases, pods,
                List.copyOf(notes));
    }

    private String source() {
        return "live: " + connection.describe();
    }

    private <R> List<R> nodes(Function<Node, R> map) {
        return listAll("LIST nodes", o -> client.nodes().list(o), map);
    }

    private <R> List<R> nodeLeases(Function<Lease, R> map) {
        return listAll("LIST leases in " + NODE_LEASE_NAMESPACE,
                o -> client.leases().inNamespace(NODE_LEASE_NAMESPACE).list(o), map);
    }

    private <R> List<R> kubeSystemSecrets(Function<Secret, R> map) {
        return listAll("LIST secrets in " + KUBE_SYSTEM, o -> client.secrets().inNamespace(KUBE_SYSTEM).list(o), map);
    }

    private List<EndpointSlice> kubernetesEndpointSlices() {
        return listAll("LIST endpointslices in default (" + KUBERNETES_SERVICE_LABEL + "=kubernetes)",
                o -> client.discovery().v1().endpointSlices().inNamespace("default").list(
                        withLabel(o, KUBERNETES_SERVICE_LABEL + "=kubernetes")), Function.identity());
    }

    private <R> List<R> daemonSets(Function<DaemonSet, R> map) {
        return listAll("LIST daemonsets in all namespaces", o -> client.apps().daemonSets().inAnyNamespace().list(o),
                map);
    }

    private <R> List<R> kubeSystemLeases(Function<Lease, R> map) {
        return listAll("LIST leases in " + KUBE_SYSTEM, o -> client.leases().inNamespace(KUBE_SYSTEM).list(o), map);
    }

    /** Every pod in every namespace, paginated. */
    public List<Pod> allPods() {
        return allPods(Function.identity());
    }

    private <R> List<R> allPods(Function<Pod, R> map) {
        return listAll("LIST pods in all namespaces", o -> client.pods().inAnyNamespace().list(o), map);
    }

    /** Pods bound to one node (field selector spec.nodeName), paginated. An empty list is a proven answer. */
    public List<Pod> podsOnNode(String nodeName) {
        String selector = "spec.nodeName=" + nodeName;
        return listAll("LIST pods in all namespaces (" + selector + ")",
                o -> client.pods().inAnyNamespace().list(new ListOptionsBuilder(o).withFieldSelector(selector)
                        .build()),
                Function.identity());
    }

    /** apiserver gitVersion from /version. */
    public String serverVersion() {
        VersionInfo info = call("GET /version", client::getKubernetesVersion);
        if (info == null || info.getGitVersion() == null || info.getGitVersion().isBlank()) {
            throw new CollectionException("GET /version at " + connection.server() + ": answer has no gitVersion");
        }
        return info.getGitVersion();
    }

    private <R> List<R> csiNodes(List<String> notes, Function<CSINode, R> map) {
        String what = "LIST csinodes (storage.k8s.io/v1)";
        try {
            return listAll(what, o -> client.storage().v1().csiNodes().list(o), map);
        } catch (CollectionException e) {
            if (e.getCause() instanceof KubernetesClientException k && k.getCode() == 404) {
                notes.add(SourceNotes.CSINODES_NOT_SERVED);
                return null;
            }
            throw e;
        }
    }

    private <R> List<R> cattleJobs(List<String> notes, Function<Job, R> map) {
        Namespace ns = call("GET namespace " + CATTLE_SYSTEM,
                () -> client.namespaces().withName(CATTLE_SYSTEM).get());
        if (ns == null) {
            notes.add(SourceNotes.CATTLE_SYSTEM_ABSENT);
            return null;
        }
        return listAll("LIST jobs in " + CATTLE_SYSTEM,
                o -> client.batch().v1().jobs().inNamespace(CATTLE_SYSTEM).list(o), map);
    }

    /** A Secret with its metadata and type only; data, stringData and last-applied-configuration dropped. */
    public static Secret metadataOnly(Secret secret) {
        Secret out = new Secret();
        out.setApiVersion(secret.getApiVersion() == null ? "v1" : secret.getApiVersion());
        out.setKind(secret.getKind() == null ? "Secret" : secret.getKind());
        out.setType(secret.getType());
        out.setImmutable(secret.getImmutable());
        ObjectMeta meta = secret.getMetadata();
        if (meta != null && meta.getAnnotations() != null && meta.getAnnotations().containsKey(LAST_APPLIED)) {
            Map<String, String> annotations = new HashMap<>(meta.getAnnotations());
            annotations.remove(LAST_APPLIED);
            meta.setAnnotations(annotations);
        }
        out.setMetadata(meta);
        return out;
    }

    private static ListOptions withLabel(ListOptions o, String selector) {
        return new ListOptionsBuilder(o).withLabelSelector(selector).build();
    }

    /** Every page of one LIST; each item goes through {@code map} as its page arrives, then the page is dropped. */
    private <T extends HasMetadata, L extends KubernetesResourceList<T>, R> List<R> listAll(
            String what, Function<ListOptions, L> page, Function<? super T, R> map) {
        List<R> all = new ArrayList<>();
        Set<String> seenTokens = new HashSet<>();
        String token = null;
        do {
            ListOptions options = new ListOptionsBuilder().withLimit(pageSize).withContinue(token).build();
            L list = call(what, () -> page.apply(options));
            if (list == null || list.getItems() == null) {
                throw new CollectionException(what + " at " + connection.server() + ": answer has no items");
            }
            for (T item : list.getItems()) {
                all.add(map.apply(item));
            }
            token = list.getMetadata() == null ? null : list.getMetadata().getContinue();
            if (token != null && token.isEmpty()) {
                token = null;
            }
            if (token != null && !seenTokens.add(token)) {
                throw new CollectionException(what + " at " + connection.server()
                        + ": the server repeated a continue token; the list would never end");
            }
        } while (token != null);
        return all;
    }

    private <T> T call(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (KubernetesClientException e) {
            throw new CollectionException(what + ": " + describe(e), e);
        } catch (RuntimeException e) {
            throw new CollectionException(what + " at " + connection.server() + ": unusable answer: " + e, e);
        }
    }

    private String describe(KubernetesClientException e) {
        int code = e.getCode();
        if (code > 0) {
            Status status = e.getStatus();
            String message = status != null && status.getMessage() != null ? status.getMessage() : e.getMessage();
            String hint = switch (code) {
                case 401 -> " (credentials rejected: check the kubeconfig user)";
                case 403 -> " (RBAC: the user may not do this)";
                case 429 -> " (API server is throttling; try again later)";
                default -> "";
            };
            return code + " " + reason(code) + " from " + connection.server() + hint + ": " + message;
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
            if (root instanceof ConnectException || root instanceof HttpConnectTimeoutException
                    || root instanceof UnknownHostException || root instanceof NoRouteToHostException) {
                return "cannot reach API server " + connection.server() + ": " + root;
            }
            if (root instanceof HttpTimeoutException || root instanceof InterruptedIOException) {
                return "no answer from API server " + connection.server() + " within "
                        + connection.requestTimeoutSeconds() + " s (--request-timeout): " + root;
            }
            if (root instanceof tools.jackson.core.JacksonException parse) {
                String detail = parse.getOriginalMessage() == null ? "" : parse.getOriginalMessage().lines()
                        .findFirst().orElse("");
                return "unparsable answer from API server " + connection.server() + " (a proxy or login page?): "
                        + detail;
            }
        }
        return "failed talking to API server " + connection.server() + ": " + rootMessage(e);
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + root + ")";
    }

    static String reason(int code) {
        return switch (code) {
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 410 -> "Gone";
            case 422 -> "Unprocessable Entity";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            default -> "HTTP " + code;
        };
    }

    @Override
    public void close() {
        connection.close();
    }
}
