package io.nodegate.lifecycle;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
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
import io.nodegate.lifecycle.evidence.Json;
import io.nodegate.model.Collected;
import io.nodegate.model.CsiNodeInfo;
import io.nodegate.model.DaemonSetInfo;
import io.nodegate.model.JobInfo;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.PodInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.source.CollectionException;
import io.nodegate.source.RawSnapshot;
import io.nodegate.source.StateAssembler;

import java.time.Instant;
import java.util.ArrayList;
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

    private final KubernetesClient client;

    public ApiReader(KubernetesClient client) {
        this.client = client;
    }

    public KubernetesClient client() {
        return client;
    }

    public String server() {
        return client.getMasterUrl() == null ? null : client.getMasterUrl().toString();
    }

    public Optional<Node> rawNode(String name) {
        return get("Node " + name, () -> client.nodes().withName(name).get(), name);
    }

    public Optional<NodeInfo> node(String name) {
        return rawNode(name).map(n -> nodes(List.of(n)).get(0));
    }

    public List<NodeInfo> nodes() {
        return nodes(listAll("Nodes", o -> client.nodes().list(o)));
    }

    public Optional<Lease> rawLease(String node) {
        return get("Lease " + NODE_LEASE_NS + "/" + node,
                () -> client.leases().inNamespace(NODE_LEASE_NS).withName(node).get(), node);
    }

    public Optional<LeaseInfo> lease(String node) {
        return rawLease(node).map(l -> assemble(raw(List.of(), List.of(l), List.of(), null, List.of(), null, null))
                .nodeLeases().get(0));
    }

    public Optional<CSINode> rawCsiNode(String node) {
        return get("CSINode " + node, () -> client.storage().v1().csiNodes().withName(node).get(), node);
    }

    public Optional<CsiNodeInfo> csiNode(String node) {
        return rawCsiNode(node).map(c -> assemble(raw(List.of(), List.of(), List.of(), List.of(c), List.of(), null, null))
                .csiNodes().items().get(0));
    }

    /** Metadata only: the Secret's data is dropped before this returns. */
    public Optional<SecretMeta> secretMeta(String name) {
        return get("Secret " + KUBE_SYSTEM + "/" + name,
                () -> client.secrets().inNamespace(KUBE_SYSTEM).withName(name).get(), name)
                .map(ApiReader::toMeta);
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
        List<Secret> all = listAll("Secrets in " + KUBE_SYSTEM,
                o -> client.secrets().inNamespace(KUBE_SYSTEM).list(o));
        return all.stream().map(ApiReader::toMeta).filter(s -> s.nodePasswordOwner().isPresent())
                .sorted(java.util.Comparator.comparing(SecretMeta::name)).toList();
    }

    private static SecretMeta toMeta(Secret s) {
        var m = s.getMetadata();
        if (m == null || m.getName() == null) {
            throw new CollectionException("unparsable Secret answer: no metadata.name");
        }
        Instant created = parseTime(m.getCreationTimestamp(), "Secret " + m.getName());
        return new SecretMeta(m.getNamespace(), m.getName(), m.getUid(), created, s.getType(), m.getLabels());
    }

    /**
     * Pods bound to a node, by the spec.nodeName field selector: the same query the removal cascade and the
     * positive control use. The answer is also filtered here, so a server that ignores the selector cannot make
     * another node's pods count.
     */
    public List<PodInfo> podsOn(String node) {
        return assemble(raw(List.of(), List.of(), List.of(), null, List.of(), null, rawPodsOn(node))).pods().items();
    }

    /** "namespace/name" of the DaemonSets owning a pod on the node: that node's share of each DaemonSet. */
    public List<String> daemonSetsWithPodsOn(String node) {
        TreeSet<String> out = new TreeSet<>();
        for (Pod p : rawPodsOn(node)) {
            var refs = p.getMetadata().getOwnerReferences();
            if (refs != null) {
                refs.stream().filter(r -> "DaemonSet".equals(r.getKind()))
                        .forEach(r -> out.add(p.getMetadata().getNamespace() + "/" + r.getName()));
            }
        }
        return List.copyOf(out);
    }

    private List<Pod> rawPodsOn(String node) {
        List<Pod> pods = listAll("Pods on " + node,
                o -> client.pods().inAnyNamespace().withField("spec.nodeName", node).list(o));
        return pods.stream().filter(p -> p.getSpec() != null && node.equals(p.getSpec().getNodeName())).toList();
    }

    public List<DaemonSetInfo> daemonSets() {
        List<DaemonSet> ds = listAll("DaemonSets", o -> client.apps().daemonSets().inAnyNamespace().list(o));
        return assemble(raw(List.of(), List.of(), List.of(), null, ds, null, null)).daemonSets();
    }

    public Optional<Job> rawJob(String namespace, String name) {
        return get("Job " + namespace + "/" + name,
                () -> client.batch().v1().jobs().inNamespace(namespace).withName(name).get(), name);
    }

    public Collected<JobInfo> jobs(String namespace) {
        try {
            List<Job> jobs = listAll("Jobs in " + namespace,
                    o -> client.batch().v1().jobs().inNamespace(namespace).list(o));
            return assemble(raw(List.of(), List.of(), List.of(), null, List.of(), jobs, null)).cattleJobs();
        } catch (NotFound e) {
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
            List<GenericKubernetesResource> items = listAll("MetalLB ServiceL2Status",
                    o -> client.genericKubernetesResources(SERVICE_L2_STATUS).inAnyNamespace().list(o));
            TreeSet<String> out = new TreeSet<>();
            for (GenericKubernetesResource r : items) {
                Object status = r.getAdditionalProperties().get("status");
                Object node = status instanceof Map<?, ?> st ? st.get("node") : null;
                String svc = r.getMetadata() == null ? "?" : r.getMetadata().getNamespace() + "/" + serviceName(r);
                if (node != null) {
                    out.add(svc + "=" + node);
                }
            }
            return Collected.of(List.copyOf(out));
        } catch (NotFound e) {
            return Collected.absent();
        }
    }

    private static String serviceName(GenericKubernetesResource r) {
        Object status = r.getAdditionalProperties().get("status");
        if (status instanceof Map<?, ?> st && st.get("serviceName") != null) {
            return String.valueOf(st.get("serviceName"));
        }
        return r.getMetadata().getName();
    }

    /**
     * A DELETE carrying these DeleteOptions (preconditions, propagationPolicy), for {@link #send}: sent over the
     * client's HTTP client so the caller sees the exact status code a precondition answers with.
     */
    public HttpRequest deleteRequest(String path, Map<String, Object> deleteOptions) {
        String url = client.getMasterUrl().toString().replaceAll("/+$", "") + path;
        return client.getHttpClient().newHttpRequestBuilder().uri(url)
                .delete("application/json", Json.MAPPER.writeValueAsString(deleteOptions)).build();
    }

    /** Sends within the client's request timeout; the caller says what a failure means for its write. */
    public HttpResponse<String> send(HttpRequest request) throws Exception {
        long timeout = Math.max(1, client.getConfiguration().getRequestTimeout());
        return client.getHttpClient().sendAsync(request, String.class).get(timeout, TimeUnit.MILLISECONDS);
    }

    /** A 2xx answer to a write must be a Kubernetes object (the object or a Status), not some other body. */
    public static void requireObject(String body) {
        var answer = Json.MAPPER.readTree(body);
        if (answer == null || !answer.isObject() || !answer.has("kind")) {
            throw new IllegalArgumentException("no kind");
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    /** Thrown only inside this class, when a list call's resource type or namespace is NotFound. */
    private static final class NotFound extends RuntimeException {
        NotFound() {
            super(null, null, false, false);
        }
    }

    private <T extends HasMetadata> Optional<T> get(String what, Supplier<T> call, String expectedName) {
        T obj;
        try {
            obj = call.get();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return Optional.empty();
            }
            throw failed(what, e);
        } catch (RuntimeException e) {
            throw failed(what, e);
        }
        if (obj == null) {
            return Optional.empty(); // fabric8 returns null only for a 404 answer
        }
        if (obj.getMetadata() == null || !expectedName.equals(obj.getMetadata().getName())
                || obj.getMetadata().getUid() == null || obj.getMetadata().getUid().isBlank()) {
            throw new CollectionException("unparsable answer for " + what + ": missing metadata.name/uid");
        }
        return Optional.of(obj);
    }

    private <T extends HasMetadata, L extends KubernetesResourceList<T>> List<T> listAll(
            String what, Function<ListOptions, L> call) {
        List<T> out = new ArrayList<>();
        String cont = null;
        int pages = 0;
        do {
            ListOptions options = new ListOptionsBuilder().withLimit((long) PAGE).withContinue(cont).build();
            L page;
            try {
                page = call.apply(options);
            } catch (KubernetesClientException e) {
                if (e.getCode() == 404) {
                    throw new NotFound();
                }
                throw failed(what, e);
            } catch (RuntimeException e) {
                throw failed(what, e);
            }
            if (page == null || page.getItems() == null) {
                throw new CollectionException("unparsable answer listing " + what + ": no items");
            }
            for (T item : page.getItems()) {
                if (item == null || item.getMetadata() == null || item.getMetadata().getName() == null) {
                    throw new CollectionException("unparsable answer listing " + what + ": an item without a name");
                }
                out.add(item);
            }
            cont = page.getMetadata() == null ? null : page.getMetadata().getContinue();
            if (++pages > 10_000) {
                throw new CollectionException("listing " + what + " did not end after 10000 pages");
            }
        } while (cont != null && !cont.isEmpty());
        return out;
    }

    /** Lists that must exist in every cluster: NotFound there is itself a broken answer. */
    private static CollectionException failed(String what, RuntimeException e) {
        return new CollectionException(what + ": " + describe(e), e);
    }

    /** One line saying what went wrong: the HTTP status and the server's message, or the root cause. */
    public static String describe(Throwable e) {
        if (e instanceof KubernetesClientException k && k.getCode() > 0) {
            String msg = k.getStatus() != null && k.getStatus().getMessage() != null ? k.getStatus().getMessage() : "";
            return "HTTP " + k.getCode() + (msg.isEmpty() ? "" : " (" + firstLine(msg) + ")");
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String kind = root instanceof java.net.http.HttpTimeoutException ? "timed out"
                : root instanceof java.io.IOException ? "connection failed"
                : root.getClass().getName().contains("jackson") ? "unparsable answer" : "failed";
        return kind + ": " + root.getClass().getSimpleName() + " " + firstLine(String.valueOf(root.getMessage()));
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
        try {
            return java.time.OffsetDateTime.parse(text).toInstant();
        } catch (java.time.format.DateTimeParseException e) {
            throw new CollectionException("unparsable timestamp '" + text + "' on " + where);
        }
    }

    private List<NodeInfo> nodes(List<Node> raw) {
        return assemble(raw(raw, List.of(), List.of(), null, List.of(), null, null)).nodes();
    }

    private static RawSnapshot raw(List<Node> nodes, List<Lease> leases, List<Secret> secrets, List<CSINode> csi,
                                   List<DaemonSet> ds, List<Job> jobs, List<Pod> pods) {
        return new RawSnapshot(Instant.EPOCH, "api", null, null, null, nodes, leases, secrets, csi, List.of(), ds,
                jobs, List.of(), pods, List.of());
    }

    private static io.nodegate.model.ClusterState assemble(RawSnapshot raw) {
        return StateAssembler.assemble(raw);
    }
}
