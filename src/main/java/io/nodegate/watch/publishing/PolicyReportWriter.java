package io.nodegate.watch.publishing;

import io.nodegate.watch.leadership.LeaderGuard;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.CollectionException;
import io.nodegate.audit.AuditReport;
import io.nodegate.deploy.WatchAccess;
import io.nodegate.detect.Finding;
import io.nodegate.render.output.PolicyReports;
import io.nodegate.source.kube.ApiCalls;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * `watch --policy-reports`: keeps the ClusterPolicyReport {@value #NAME} (and its parts NAME-2, ..., see
 * {@link PolicyReports}) equal to the findings of the last good pass. Fed by the pass; the caller hands it only
 * passes that ran on usable data, and only on the leader, so an informer error never empties a report and two
 * replicas never write at once.
 *
 * <p>Writes are updates with the resourceVersion last read as precondition (a 409 means someone else wrote: the
 * writer lists again on the next pass rather than overwrite), creates for new parts and deletes of parts no longer
 * needed, each part rewritten only when what it says changed: a finding appearing, going or changing severity, a
 * check turning clean. Messages carry ages that move every pass; a part whose findings are the same is refreshed
 * with its current messages at most every {@link #REFRESH} (5,000 nodes' results rewritten every 15 s would be
 * megabytes a minute of etcd writes for nothing). Any API failure is logged and retried on the next pass; nothing is
 * deleted on a path that met an error.
 */
public final class PolicyReportWriter {

    public static final String NAME = "nodegate-watch";
    public static final Duration REFRESH = Duration.ofMinutes(10);
    /** The label that names the cluster on every report when the watch was given --cluster-name. */
    public static final String CLUSTER_LABEL = "cluster";

    static final Map<String, String> LABELS = Map.of("app.kubernetes.io/name", "nodegate",
            "app.kubernetes.io/component", "watch", "app.kubernetes.io/managed-by", "nodegate");

    /** The API the writer needs, so its rules are tested without a server as well as with one. */
    interface Store {
        /** The reports this writer owns (by its labels): name to resourceVersion. */
        Map<String, String> list();

        /** Creates the report; returns its resourceVersion. */
        String create(ObjectNode report);

        /** Replaces the report if it still has {@code resourceVersion}; returns the new one. */
        String update(ObjectNode report, String resourceVersion);

        void delete(String name, String resourceVersion);
    }

    private final Store store;
    private final Clock clock;
    private final Consumer<String> log;
    private final Map<String, Instant> foundAt = new HashMap<>();
    private final Map<String, Instant> cleanSince = new HashMap<>();
    /** What this writer knows is on the server: name to resourceVersion; null until listed. */
    private Map<String, String> onServer;
    private final Map<String, String> writtenIdentity = new HashMap<>();
    private final Map<String, Instant> writtenAt = new HashMap<>();

    /** The name of the cluster the watch runs in, a {@code cluster} label on every report; null: none. */
    private volatile String cluster;

    /** Labels every report written from now on with {@code cluster: NAME} (see WatchMetrics#cluster). */
    public void cluster(String name) {
        this.cluster = name;
    }

    PolicyReportWriter(Store store, Clock clock, Consumer<String> log) {
        this.store = store;
        this.clock = clock;
        this.log = log;
    }

    /** A writer over the API server, through the watch's fabric8 client. */
    public static PolicyReportWriter overApi(KubernetesClient client, Clock clock, Consumer<String> log) {
        return overApi(client, clock, LeaderGuard.NONE, log);
    }

    /**
     * As {@link #overApi(KubernetesClient, Clock, Consumer)}, each create, update and delete preceded by
     * {@code guard}: a replica that lost the leader Lease stops writing reports at once (the write fails as any
     * failed write: logged, the reports listed again on the next pass).
     */
    public static PolicyReportWriter overApi(KubernetesClient client, Clock clock, LeaderGuard guard,
                                             Consumer<String> log) {
        Store api = new ApiStore(client);
        return new PolicyReportWriter(new Store() {
            @Override
            public Map<String, String> list() {
                return api.list();
            }

            @Override
            public String create(ObjectNode report) {
                guard.require();
                return api.create(report);
            }

            @Override
            public String update(ObjectNode report, String resourceVersion) {
                guard.require();
                return api.update(report, resourceVersion);
            }

            @Override
            public void delete(String name, String resourceVersion) {
                guard.require();
                api.delete(name, resourceVersion);
            }
        }, clock, log);
    }

    /**
     * Brings the reports in line with one good pass.
     *
     * @param checks the checks the pass ran, code to name
     */
    public synchronized void write(AuditReport report, Map<String, String> checks) {
        Instant now = clock.instant();
        Set<String> keys = new HashSet<>();
        for (Finding f : report.findings()) {
            keys.add(f.key());
            foundAt.putIfAbsent(f.key(), now);
        }
        foundAt.keySet().retainAll(keys);
        Set<String> clean = new HashSet<>(checks.keySet());
        report.findings().forEach(f -> clean.remove(f.code()));
        for (String code : clean) {
            cleanSince.putIfAbsent(code, now);
        }
        cleanSince.keySet().retainAll(clean);

        Map<String, String> labels = LABELS;
        if (cluster != null) {
            labels = new java.util.TreeMap<>(LABELS);
            labels.put(CLUSTER_LABEL, cluster);
        }
        List<ObjectNode> parts = PolicyReports.reports(NAME, labels, report.findings(), checks,
                f -> foundAt.get(f.key()), cleanSince::get);
        try {
            if (onServer == null) {
                onServer = new HashMap<>(store.list());
            }
            Set<String> wanted = new HashSet<>();
            for (ObjectNode part : parts) {
                String name = part.get("metadata").get("name").asString();
                wanted.add(name);
                String identity = identity(part);
                String rv = onServer.get(name);
                if (rv == null) {
                    onServer.put(name, store.create(part));
                } else if (!identity.equals(writtenIdentity.get(name))
                        || !now.isBefore(writtenAt.getOrDefault(name, Instant.MIN).plus(REFRESH))) {
                    onServer.put(name, store.update(part, rv));
                } else {
                    continue;
                }
                writtenIdentity.put(name, identity);
                writtenAt.put(name, now);
            }
            for (String name : Set.copyOf(onServer.keySet())) {
                if (!wanted.contains(name)) {
                    store.delete(name, onServer.get(name));
                    onServer.remove(name);
                    writtenIdentity.remove(name);
                    writtenAt.remove(name);
                }
            }
        } catch (RuntimeException e) {
            // list again next time: a conflict, a part deleted by someone, or the API away; nothing else is assumed
            onServer = null;
            writtenIdentity.clear();
            log.accept("policy reports not updated: " + e.getMessage() + "; retrying on the next pass");
        }
    }

    /** Leadership moved: whatever this replica knew about the server may be old. */
    public synchronized void forget() {
        onServer = null;
        writtenIdentity.clear();
        writtenAt.clear();
    }

    /** A part without its results' messages and properties: what decides whether it must be written now. */
    static String identity(ObjectNode part) {
        ObjectNode copy = part.deepCopy();
        for (JsonNode r : copy.get("results")) {
            ((ObjectNode) r).remove("message");
            ((ObjectNode) r).remove("properties");
        }
        return copy.toString();
    }

    /** The store over the API server: fabric8's generic resources for wgpolicyk8s.io/v1alpha2, through ApiCalls. */
    static final class ApiStore implements Store {
        private static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
                .withGroup(WatchAccess.POLICY_REPORT_GROUP).withVersion("v1alpha2").withKind(PolicyReports.KIND)
                .withPlural(WatchAccess.POLICY_REPORT_RESOURCE).withNamespaced(false).build();
        private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
        private static final JsonMapper JSON = JsonMapper.builder().build();

        private final KubernetesClient client;
        private final ApiCalls api;

        ApiStore(KubernetesClient client) {
            this.client = client;
            this.api = ApiCalls.of(client);
        }

        @Override
        public Map<String, String> list() {
            String selector = String.join(",", new TreeMap<>(LABELS).entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue()).toList());
            Map<String, String> out = new LinkedHashMap<>();
            // the one LIST reader (ApiCalls): a lying page is an error here too, never "nothing on the server"
            for (GenericKubernetesResource r : api.listAll("LIST clusterpolicyreports -l " + selector,
                    "/apis/" + CONTEXT.getGroup() + "/" + CONTEXT.getVersion() + "/" + CONTEXT.getPlural(),
                    GenericKubernetesResource.class, CONTEXT.getKind(), selector, null, r -> r)) {
                out.put(r.getMetadata().getName(), r.getMetadata().getResourceVersion());
            }
            return out;
        }

        @Override
        public String create(ObjectNode report) {
            GenericKubernetesResource r = resource(report, null);
            return api.call("POST clusterpolicyreports " + r.getMetadata().getName(),
                    () -> client.genericKubernetesResources(CONTEXT).resource(r).create())
                    .getMetadata().getResourceVersion();
        }

        @Override
        public String update(ObjectNode report, String resourceVersion) {
            GenericKubernetesResource r = resource(report, requireVersion(resourceVersion));
            // a PUT carrying the resourceVersion read: the API server answers 409 if the object moved since
            return api.call("PUT clusterpolicyreports " + r.getMetadata().getName(),
                    () -> client.genericKubernetesResources(CONTEXT).resource(r).update())
                    .getMetadata().getResourceVersion();
        }

        @Override
        public void delete(String name, String resourceVersion) {
            GenericKubernetesResource r = new GenericKubernetesResource();
            r.setApiVersion(PolicyReports.API_VERSION);
            r.setKind(PolicyReports.KIND);
            r.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(name)
                    .withResourceVersion(requireVersion(resourceVersion)).build());
            // lockResourceVersion: the DELETE carries it as a precondition, so a part someone rewrote is kept
            api.call("DELETE clusterpolicyreports " + name,
                    () -> client.genericKubernetesResources(CONTEXT).resource(r)
                            .lockResourceVersion(resourceVersion).delete());
        }

        private static String requireVersion(String resourceVersion) {
            if (resourceVersion == null || resourceVersion.isBlank()) {
                throw new CollectionException("a ClusterPolicyReport without a resourceVersion: cannot write it "
                        + "with a precondition");
            }
            return resourceVersion;
        }

        private static GenericKubernetesResource resource(ObjectNode report, String resourceVersion) {
            GenericKubernetesResource r = SERIALIZATION.unmarshal(JSON.writeValueAsString(report),
                    GenericKubernetesResource.class);
            r.getMetadata().setResourceVersion(resourceVersion);
            return r;
        }
    }
}
