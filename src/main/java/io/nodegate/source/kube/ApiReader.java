package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.nodegate.model.Collected;
import io.nodegate.model.CsiNodeInfo;
import io.nodegate.model.DaemonSetInfo;
import io.nodegate.model.JobInfo;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.PodInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.CollectionException;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.json.Plain;
import io.nodegate.model.ApiEndpoints;
import io.nodegate.model.ClusterState;
import io.nodegate.source.json.JsonReadException;
import io.nodegate.source.json.MetadataOnly;

import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Every API read the lifecycle commands make, with one rule: only a NotFound answer is absence
 * ({@link Optional#empty()}); any other failure, timeout or unparsable answer throws
 * {@link CollectionException}. Secrets are turned into {@link SecretMeta} here and their data never leaves.
 */
public final class ApiReader {

    public static final String KUBE_SYSTEM = "kube-system";
    public static final String NODE_LEASE_NS = "kube-node-lease";
    private static final int PAGE = 500;
    private static final ResourceDefinitionContext SERVICE_L2_STATUS = new ResourceDefinitionContext.Builder()
            .withGroup("metallb.io").withVersion("v1beta1").withKind("ServiceL2Status")
            .withPlural("servicel2statuses").withNamespaced(true).build();

    /** Request bodies and node answers in the same JSON shape as the evidence files (indented, keys sorted). */
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .build();

    private final KubeConnection connection;
    private final ApiCalls api;

    /** Reads over the connection's lean HTTP layer; its fabric8 client is built only if a write asks for it. */
    public ApiReader(KubeConnection connection) {
        this.connection = connection;
        this.api = new ApiCalls(connection);
    }

    /**
     * Over a read layer already built for this connection (a {@link LiveSource}'s): one connection, one
     * {@link ApiCalls}, so both read with the same pagination and record in the same place.
     */
    public ApiReader(ApiCalls api) {
        this.connection = api.connection();
        this.api = api;
    }

    /** Around a client built elsewhere (tests): reads still go through the lean layer, to its server. */
    public ApiReader(KubernetesClient client) {
        this(KubeConnection.wrapping(client));
    }

    /** The fabric8 client for writes, built on first use. */
    public KubernetesClient client() {
        return connection.client();
    }

    public KubeConnection connection() {
        return connection;
    }

    /** The API server URL with one trailing slash, as fabric8 wrote it into baselines before. */
    public String server() {
        return connection.server() + "/";
    }

    /** The shared read layer (pagination, NotFound rule, error wording) this reader goes through. */
    public ApiCalls api() {
        return api;
    }

    public Optional<Node> rawNode(String name) {
        return get("Node " + name, "/api/v1/nodes/" + name, Node.class, name);
    }

    /** The Node's answer as the server sent it (bytes) and parsed: what `remove` saves before its DELETE. */
    public Optional<ApiCalls.RawObject> nodeAsSent(String name) {
        return api.getRaw("GET Node " + name, "/api/v1/nodes/" + name, "Node", name);
    }

    public Optional<NodeInfo> node(String name) {
        return plain("Node " + name, "/api/v1/nodes/" + name, "Node", name)
                .map(n -> assemble(Map.of(Kinds.NODES, List.of(n))).nodes().get(0));
    }

    public List<NodeInfo> nodes() {
        return assemble(Map.of(Kinds.NODES, list(Kinds.NODES))).nodes();
    }

    public Optional<Lease> rawLease(String node) {
        return get("Lease " + NODE_LEASE_NS + "/" + node,
                "/apis/coordination.k8s.io/v1/namespaces/" + NODE_LEASE_NS + "/leases/" + node, Lease.class, node);
    }

    public Optional<LeaseInfo> lease(String node) {
        return plain("Lease " + NODE_LEASE_NS + "/" + node,
                "/apis/coordination.k8s.io/v1/namespaces/" + NODE_LEASE_NS + "/leases/" + node, "Lease", node)
                .map(l -> assemble(Map.of(Kinds.NODE_LEASES, List.of(l))).nodeLeases().get(0));
    }

    /** Every node Lease in kube-node-lease (the gate's batch check compares the target's stop with the others'). */
    public List<LeaseInfo> nodeLeases() {
        return assemble(Map.of(Kinds.NODE_LEASES, list(Kinds.NODE_LEASES))).nodeLeases();
    }

    public Optional<CSINode> rawCsiNode(String node) {
        return get("CSINode " + node, "/apis/storage.k8s.io/v1/csinodes/" + node, CSINode.class, node);
    }

    public Optional<CsiNodeInfo> csiNode(String node) {
        return plain("CSINode " + node, "/apis/storage.k8s.io/v1/csinodes/" + node, "CSINode", node)
                .map(c -> assemble(Map.of(Kinds.CSINODES, List.of(c))).csiNodes().items().get(0));
    }

    /** Metadata only: the Secret's values are skipped while its answer is parsed, never read into memory. */
    public Optional<SecretMeta> secretMeta(String name) {
        return plain("Secret " + KUBE_SYSTEM + "/" + name, "/api/v1/namespaces/" + KUBE_SYSTEM + "/secrets/" + name,
                "Secret", name).map(ApiReader::toMeta);
    }

    /** A ConfigMap's data (e.g. kube-system/kube-root-ca.crt, the cluster CA every namespace gets). */
    public Optional<Map<String, String>> configMapData(String namespace, String name) {
        // EVIDENCE keeps every ConfigMap's data (MODEL keeps only the tombstones ConfigMap's)
        return api.getPlain("GET ConfigMap " + namespace + "/" + name, "/api/v1/namespaces/" + namespace
                        + "/configmaps/" + name, "ConfigMap", name, KubeJson.EVIDENCE)
                .map(cm -> {
                    try {
                        Map<String, String> data = Plain.stringMap(cm, "data");
                        return data == null ? Map.<String, String>of() : Map.copyOf(data);
                    } catch (RuntimeException e) {
                        throw new CollectionException("GET ConfigMap " + namespace + "/" + name + " at "
                                + connection.server() + ": unusable answer: " + e.getMessage());
                    }
                });
    }

    /** A node's node-password Secret, looked up under both distributions' names. */
    public Optional<SecretMeta> nodePasswordSecret(String node) {
        for (String dist : List.of("rke2", "k3s")) {
            Optional<SecretMeta> s = secretMeta(SecretMeta.nodePasswordName(node, dist));
            if (s.isPresent()) {
                return s;
            }
        }
        return Optional.empty();
    }

    public List<SecretMeta> nodePasswordSecrets() {
        return api.listPlain(Kinds.KUBE_SYSTEM_SECRETS.listWhat(), ApiCalls.collectionPath(Secret.class, KUBE_SYSTEM),
                        "Secret", Kinds.KUBE_SYSTEM_SECRETS.labelSelector(), null, KubeJson.MODEL, ApiReader::toMeta)
                .stream()
                .filter(s -> s.nodePasswordOwner().isPresent())
                .sorted(java.util.Comparator.comparing(SecretMeta::name)).toList();
    }

    private static SecretMeta toMeta(Map<String, Object> s) {
        Map<String, Object> m = s.get("metadata") instanceof Map<?, ?> ? Plain.map(s, "metadata") : null;
        if (m == null || !(m.get("name") instanceof String name)) {
            throw new CollectionException("unparsable Secret answer: no metadata.name");
        }
        // an unparsable time is a broken answer here
        parseTime(m.get("creationTimestamp") == null ? null : String.valueOf(m.get("creationTimestamp")),
                "Secret " + name);
        return Kinds.KUBE_SYSTEM_SECRETS.fromJson(StateAssembler.incremental(), s);
    }

    /**
     * Pods bound to a node, by the spec.nodeName field selector: the same query the removal cascade and the
     * positive control use. The answer is also filtered here, so a server that ignores the selector cannot make
     * another node's pods count.
     */
    public List<PodInfo> podsOn(String node) {
        return assemble(Map.of(Kinds.PODS, rawPodsOn(node))).pods().items();
    }

    /** "namespace/name" of the DaemonSets owning a pod on the node: that node's share of each DaemonSet. */
    public List<String> daemonSetsWithPodsOn(String node) {
        TreeSet<String> out = new TreeSet<>();
        for (Map<String, Object> p : rawPodsOn(node)) {
            Map<String, Object> meta = p.get("metadata") instanceof Map<?, ?> ? Plain.map(p, "metadata") : Map.of();
            List<Object> refs = Plain.list(meta, "ownerReferences");
            if (refs != null) {
                for (Object r : refs) {
                    Map<String, Object> ref = Plain.element(r, "metadata.ownerReferences[]");
                    if (ref != null && "DaemonSet".equals(ref.get("kind"))) {
                        out.add(Plain.string(meta, "namespace") + "/" + Plain.string(ref, "name"));
                    }
                }
            }
        }
        return List.copyOf(out);
    }

    private List<Map<String, Object>> rawPodsOn(String node) {
        String what = "LIST pods in all namespaces (spec.nodeName=" + node + ")";
        List<Map<String, Object>> pods = api.listPlain(what, ApiCalls.collectionPath(Pod.class, null), "Pod", null,
                "spec.nodeName=" + node, KubeJson.MODEL, Function.identity());
        try {
            return pods.stream().filter(p -> {
                Map<String, Object> spec = Plain.map(p, "spec");
                return spec != null && node.equals(Plain.string(spec, "nodeName"));
            }).toList();
        } catch (RuntimeException e) {
            throw new CollectionException(what + " at " + connection.server() + ": unusable answer: " + e.getMessage());
        }
    }

    /**
     * The kube-apiserver addresses the default/kubernetes EndpointSlice advertises: the apiservers the cluster has,
     * and what the k3s/RKE2 agents' load balancers follow (the gate's redundancy view of a server node).
     */
    public ApiEndpoints apiEndpoints() {
        return assemble(Map.of(Kinds.API_ENDPOINT_SLICES, list(Kinds.API_ENDPOINT_SLICES))).apiEndpoints();
    }

    public List<DaemonSetInfo> daemonSets() {
        return assemble(Map.of(Kinds.DAEMONSETS, list(Kinds.DAEMONSETS))).daemonSets();
    }

    /** One row of the table, as plain JSON values with what the model never reads skipped. */
    private List<Map<String, Object>> list(ReadKind<?, ?> kind) {
        return api.listPlain(kind.listWhat(), ApiCalls.collectionPath(kind.type(), kind.namespace()), kind.kind(),
                kind.labelSelector(), null, KubeJson.MODEL, Function.identity());
    }

    /** A named object as plain JSON values (model mode): empty only on a 404. */
    private Optional<Map<String, Object>> plain(String what, String path, String kind, String name) {
        return api.getPlain("GET " + what, path, kind, name, KubeJson.MODEL);
    }

    public Optional<Job> rawJob(String namespace, String name) {
        return get("Job " + namespace + "/" + name,
                "/apis/batch/v1/namespaces/" + namespace + "/jobs/" + name, Job.class, name);
    }

    /**
     * Jobs in a namespace that exists only on some clusters (cattle-system, under Rancher). The namespace is read
     * first, by name: a cluster without Rancher answers NotFound there (absent), and the emitted RBAC for such a
     * cluster (policy --no-rancher) grants that GET but no Role in the missing namespace, so listing its Jobs
     * would be a 403. A real apiserver answers a LIST in a missing namespace with an empty list, never 404.
     */
    public Collected<JobInfo> jobs(String namespace) {
        if (plain("Namespace " + namespace, "/api/v1/namespaces/" + namespace, "Namespace", namespace).isEmpty()) {
            return Collected.absent();
        }
        try {
            List<Map<String, Object>> jobs = api.listPlain("LIST jobs in " + namespace,
                    ApiCalls.collectionPath(Job.class, namespace), "Job", null, null, KubeJson.MODEL,
                    Function.identity());
            return assemble(Map.of(Kinds.CATTLE_JOBS, jobs)).cattleJobs();
        } catch (ApiCalls.NotFound e) {
            return Collected.absent();
        }
    }

    /**
     * Nodes announcing MetalLB L2 addresses, as "namespace/service=node", from ServiceL2Status
     * (metallb.io/v1beta1, MetalLB 0.14+). Absent when the API is not served (NotFound: MetalLB not installed or
     * too old). BGP-mode speakers announce from every node; they are covered by the DaemonSet comparison.
     */
    public Collected<String> metallbAnnouncers() {
        try {
            List<Map<String, Object>> items = api.listPlain("LIST servicel2statuses.metallb.io in all namespaces",
                    "/apis/metallb.io/v1beta1/servicel2statuses", "ServiceL2Status", null, null, KubeJson.MODEL,
                    Function.identity());
            TreeSet<String> out = new TreeSet<>();
            for (Map<String, Object> r : items) {
                Object status = r.get("status");
                Object node = status instanceof Map<?, ?> st ? st.get("node") : null;
                Object meta = r.get("metadata");
                String svc = meta instanceof Map<?, ?> m ? m.get("namespace") + "/" + serviceName(r) : "?";
                if (node != null) {
                    out.add(svc + "=" + node);
                }
            }
            return Collected.of(List.copyOf(out));
        } catch (ApiCalls.NotFound e) {
            return Collected.absent();
        }
    }

    private static String serviceName(Map<String, Object> r) {
        Object status = r.get("status");
        if (status instanceof Map<?, ?> st && st.get("serviceName") != null) {
            return String.valueOf(st.get("serviceName"));
        }
        return String.valueOf(((Map<?, ?>) r.get("metadata")).get("name"));
    }

    /**
     * A DELETE carrying these DeleteOptions (preconditions, propagationPolicy), for {@link #send}: sent over the
     * client's HTTP client so the caller sees the exact status code a precondition answers with.
     */
    public HttpRequest.Builder deleteRequest(String path, Map<String, Object> deleteOptions) {
        KubernetesClient client = client();
        String url = connection.server() + path;
        return client.getHttpClient().newHttpRequestBuilder().uri(url)
                .setHeader("Accept", acceptFor(path))
                .delete("application/json", JSON.writeValueAsString(deleteOptions));
    }

    /** A Secret's answer is asked for as metadata only: its values never cross the wire, even when it is deleted. */
    private static String acceptFor(String path) {
        return path.contains("/secrets/") ? MetadataOnly.ACCEPT_OBJECT_METADATA
                : "application/json";
    }

    /** A JSON merge patch of one object, for {@link #send}: the caller checks the answer itself. */
    public HttpRequest.Builder mergePatchRequest(String path, Map<String, Object> patch) {
        KubernetesClient client = client();
        String url = connection.server() + path;
        return client.getHttpClient().newHttpRequestBuilder().uri(url)
                .patch("application/merge-patch+json", JSON.writeValueAsString(patch));
    }

    /**
     * Reads one object again after a write whose answer was not a clean confirmation (a timeout, a 5xx, an empty
     * or foreign 200): what is really there decides what the write did. Empty only on a 404; the object's JSON
     * (kind, metadata.name and metadata.uid present) otherwise. Any other answer throws
     * {@link CollectionException}: then the outcome of the write is unknown, and the caller must say so.
     */
    public Optional<tools.jackson.databind.JsonNode> reread(String what, String path) {
        String url = connection.server() + path;
        return api.connection().http().get("re-reading " + what + " at " + url, path, acceptFor(path), answer -> {
            if (answer.status() == 404) {
                return Optional.<tools.jackson.databind.JsonNode>empty();
            }
            if (answer.status() != 200) {
                throw new CollectionException("re-reading " + what + " at " + url + " answered HTTP " + answer.status());
            }
            byte[] body = answer.body().readAllBytes();
            try {
                var node = JSON.readTree(body);
                if (node == null || !node.isObject() || !node.path("metadata").path("uid").isString()
                        || !node.path("metadata").path("name").isString()) {
                    throw new IllegalArgumentException("no metadata.name/uid");
                }
                return Optional.of(node);
            } catch (RuntimeException e) {
                throw new CollectionException("re-reading " + what + " at " + url + ": unparsable answer");
            }
        });
    }

    /**
     * The API server's clock: the Date header of its answer to GET /version (RFC 1123, whole seconds). The
     * baseline time is compared with creation times the API server stamps, so it must come from the same clock: a
     * workstation clock running ahead would hide every Node created in between.
     */
    public Instant serverTime() {
        String url = connection.server() + "/version";
        String date = api.dateHeader("GET " + url, "/version");
        if (date == null || date.isBlank()) {
            throw new CollectionException("GET " + url + " answered without a Date header: the time must come from "
                    + "the API server's clock (is a proxy in between?)");
        }
        try {
            return java.time.ZonedDateTime.parse(date.trim(), java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toInstant();
        } catch (java.time.format.DateTimeParseException e) {
            throw new CollectionException("GET " + url + ": unparsable Date header '" + date + "'");
        }
    }

    /** Sends within the client's request timeout; the caller says what a failure means for its write. */
    public HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return ApiCalls.send(client(), request);
    }

    // ---------------------------------------------------------------------------------------------------------

    private <T extends HasMetadata> Optional<T> get(String what, String path, Class<T> type, String expectedName) {
        return api.getObject("GET " + what, path, type, expectedName);
    }

    /** One line saying what went wrong, naming the API server (the shared read layer's wording). */
    public String describe(Throwable e) {
        return api.describe(e);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        String line = nl < 0 ? s : s.substring(0, nl);
        return line.length() > 300 ? line.substring(0, 300) + "…" : line;
    }

    private static Instant parseTime(String text, String where) {
        if (text == null || text.isBlank()) {
            return null;
        }
        Instant parsed = StateAssembler.parseOrNull(text);
        if (parsed == null) {
            throw new CollectionException("unparsable timestamp '" + text + "' on " + where);
        }
        return parsed;
    }

    /** The model of a few objects read here: the one mapping every source uses. */
    private ClusterState assemble(Map<ReadKind<?, ?>, ? extends List<?>> objects) {
        Map<ReadKind<?, ?>, List<?>> all = new java.util.LinkedHashMap<>();
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            if (kind.presence() == ReadKind.Presence.REQUIRED) {
                all.put(kind, List.of());
            }
        }
        all.putAll(objects);
        try {
            return StateAssembler.assemble(new RawSnapshot(Instant.EPOCH, "api", null, null, null, all, List.of()));
        } catch (JsonReadException e) {
            // a field of the wrong shape in what the server sent: a broken answer, never a crash
            throw new CollectionException("unusable answer from API server " + connection.server() + ": "
                    + e.getMessage(), e);
        }
    }
}
