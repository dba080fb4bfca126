package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.storage.CSINode;

import java.util.Map;

/**
 * A fabric8 type's place in the API: its kind, its apiVersion and its plural (the last segment of its collection's
 * path, {@code /api/v1/nodes}).
 *
 * <p>fabric8 answers these from the type's annotations ({@link HasMetadata#getKind}, {@link HasMetadata#getApiVersion},
 * {@link HasMetadata#getPlural}). Reading one annotation of a fabric8 model class makes the JVM parse all of them and
 * generate a proxy class for each annotation type it meets (Jackson's and fabric8's, five on a Node): about 12 ms of
 * CPU that every command paid before its first request (profiled with async-profiler, bench/RESULTS.md "Second pass: the small audit within 3x of kubectl").
 * So the kinds in {@link Kinds} are written out here and held equal to fabric8's answers by {@code ApiResourceTest};
 * any other type is asked of fabric8, so a type missing from this table costs time, never a wrong path (a wrong
 * path would be a 404, which nodegate reads as absence).
 */
public record ApiResource(String kind, String apiVersion, String plural) {

    private static final Map<Class<? extends HasMetadata>, ApiResource> KNOWN = Map.of(
            Node.class, new ApiResource("Node", "v1", "nodes"),
            Lease.class, new ApiResource("Lease", "coordination.k8s.io/v1", "leases"),
            Secret.class, new ApiResource("Secret", "v1", "secrets"),
            CSINode.class, new ApiResource("CSINode", "storage.k8s.io/v1", "csinodes"),
            EndpointSlice.class, new ApiResource("EndpointSlice", "discovery.k8s.io/v1", "endpointslices"),
            DaemonSet.class, new ApiResource("DaemonSet", "apps/v1", "daemonsets"),
            Job.class, new ApiResource("Job", "batch/v1", "jobs"),
            Pod.class, new ApiResource("Pod", "v1", "pods"),
            ConfigMap.class, new ApiResource("ConfigMap", "v1", "configmaps"));

    private static final ClassValue<ApiResource> ASKED = new ClassValue<>() {
        @Override
        @SuppressWarnings("unchecked")
        protected ApiResource computeValue(Class<?> type) {
            ApiResource known = KNOWN.get(type);
            return known != null ? known : fromAnnotations((Class<? extends HasMetadata>) type);
        }
    };

    public static ApiResource of(Class<? extends HasMetadata> type) {
        return ASKED.get(type);
    }

    /** What fabric8 says of {@code type}, from its annotations. */
    static ApiResource fromAnnotations(Class<? extends HasMetadata> type) {
        return new ApiResource(HasMetadata.getKind(type), HasMetadata.getApiVersion(type), HasMetadata.getPlural(type));
    }

    /** The types written out above (for the test that holds them to fabric8's annotations). */
    static Map<Class<? extends HasMetadata>, ApiResource> known() {
        return KNOWN;
    }

    /**
     * The API path of the collection: {@code /api/v1/nodes}, {@code /apis/coordination.k8s.io/v1/namespaces/NS/leases};
     * {@code namespace} null for a cluster-scoped type or all namespaces.
     */
    public String collectionPath(String namespace) {
        String base = apiVersion.contains("/") ? "/apis/" + apiVersion : "/api/" + apiVersion;
        return base + (namespace == null ? "" : "/namespaces/" + namespace) + "/" + plural;
    }
}
