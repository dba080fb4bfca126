package io.nodegate.source.rancher;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.nodegate.model.ClusterState;
import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.source.kube.Kinds;
import io.nodegate.source.kube.RawSnapshot;
import io.nodegate.source.kube.StateAssembler;
import io.nodegate.source.kube.ApiCalls;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads every downstream cluster's hosts from one Rancher management ("local") cluster: one LIST of
 * {@code management.cattle.io/v3} Nodes across all namespaces, and one of Clusters for their display names.
 *
 * <p>Field names, from rancher/rancher {@code pkg/apis/management.cattle.io/v3/machine_types.go} (type Node) and
 * {@code cluster_types.go} (type Cluster):
 * <ul>
 *   <li>a management Node lives in the namespace named after its downstream cluster's ID ({@code ObjClusterName()}
 *       returns the namespace), e.g. {@code c-m-4x7rz};</li>
 *   <li>{@code status.nodeName} is the downstream Node's name;</li>
 *   <li>{@code status.internalNodeStatus} is a copy of the downstream {@code v1.NodeStatus} (conditions, addresses,
 *       {@code nodeInfo.systemUUID}, {@code nodeInfo.machineID}, {@code nodeInfo.bootID}), kept current by the
 *       nodesyncer controller ({@code pkg/controllers/managementuser/nodesyncer/});</li>
 *   <li>{@code status.nodeLabels} / {@code status.nodeAnnotations} mirror the Node's labels and annotations,
 *       {@code spec.internalNodeSpec} its spec (unschedulable, taints);</li>
 *   <li>a Cluster is cluster-scoped, {@code metadata.name} is the ID and {@code spec.displayName} the name people
 *       know it by.</li>
 * </ul>
 * Rancher mirrors no Leases, so appearances read this way have no Lease renewTime; and the mirror's
 * creationTimestamp stands for the downstream Node's (the nodesyncer creates it as soon as it sees the Node).
 */
public final class RancherSource {

    public static final ResourceDefinitionContext NODES = new ResourceDefinitionContext.Builder()
            .withGroup("management.cattle.io").withVersion("v3").withKind("Node").withPlural("nodes")
            .withNamespaced(true).build();
    public static final ResourceDefinitionContext CLUSTERS = new ResourceDefinitionContext.Builder()
            .withGroup("management.cattle.io").withVersion("v3").withKind("Cluster").withPlural("clusters")
            .withNamespaced(false).build();
    private static final long PAGE = 500;

    /** One downstream cluster as the management cluster mirrors it. */
    public record DownstreamCluster(String id, String displayName, ClusterState state) {
    }

    private RancherSource() {
    }

    /**
     * @param context the management cluster's kubeconfig context, for messages
     * @param now     the clock of this read
     */
    public static List<DownstreamCluster> read(KubernetesClient client, String context, Instant now) {
        return read(ApiCalls.of(client), context, now);
    }

    /** Over the lean read layer (no fabric8 client is built). */
    public static List<DownstreamCluster> read(ApiCalls api, String context, Instant now) {
        Map<String, String> displayNames = new TreeMap<>();
        for (GenericKubernetesResource c : list(api, CLUSTERS, "Clusters", context)) {
            Object spec = c.getAdditionalProperties().get("spec");
            Object display = spec instanceof Map<?, ?> m ? m.get("displayName") : null;
            displayNames.put(c.getMetadata().getName(), display == null ? c.getMetadata().getName() : display.toString());
        }
        Map<String, List<Node>> byCluster = new TreeMap<>();
        List<String> notes = new ArrayList<>();
        for (GenericKubernetesResource r : list(api, NODES, "Nodes", context)) {
            Node node = downstreamNode(r, notes);
            if (node != null) {
                byCluster.computeIfAbsent(r.getMetadata().getNamespace(), k -> new ArrayList<>()).add(node);
            }
        }
        List<DownstreamCluster> out = new ArrayList<>();
        Set<String> ids = new java.util.TreeSet<>(displayNames.keySet());
        ids.addAll(byCluster.keySet());
        for (String id : ids) {
            List<Node> nodes = byCluster.getOrDefault(id, List.of());
            String display = displayNames.getOrDefault(id, id);
            // Nodes only: Rancher mirrors no Leases, Secrets or tombstones of its downstream clusters
            RawSnapshot raw = new RawSnapshot(now, "rancher " + context + " (management.cattle.io/v3 Nodes in " + id
                    + ")", id, api.server() + "/", null,
                    Map.of(Kinds.NODES, nodes), notes.stream().filter(n -> n.startsWith(id + "/")).toList());
            out.add(new DownstreamCluster(id, display, StateAssembler.assemble(raw)));
        }
        return out;
    }

    /** The downstream Node a management Node mirrors; null (with a note) when it names no Node yet. */
    @SuppressWarnings("unchecked")
    static Node downstreamNode(GenericKubernetesResource r, List<String> notes) {
        var json = ApiCalls.serialization(false);
        String where = r.getMetadata().getNamespace() + "/" + r.getMetadata().getName();
        Object statusObj = r.getAdditionalProperties().get("status");
        Map<String, Object> status = statusObj instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
        Object nodeName = status.get("nodeName");
        if (nodeName == null || nodeName.toString().isBlank()) {
            notes.add(where + ": management Node without status.nodeName (not registered downstream yet); left out");
            return null;
        }
        NodeStatus internal;
        NodeSpec spec;
        try {
            internal = status.get("internalNodeStatus") == null ? new NodeStatus()
                    : json.convertValue(status.get("internalNodeStatus"), NodeStatus.class);
            Object specObj = r.getAdditionalProperties().get("spec");
            Object internalSpec = specObj instanceof Map<?, ?> sm ? sm.get("internalNodeSpec") : null;
            spec = internalSpec == null ? new NodeSpec()
                    : json.convertValue(internalSpec, NodeSpec.class);
        } catch (RuntimeException e) {
            throw new CollectionException("management Node " + where + ": status.internalNodeStatus is not a "
                    + "NodeStatus: " + e.getMessage(), e);
        }
        ObjectMeta meta = new ObjectMeta();
        meta.setName(nodeName.toString());
        meta.setUid(r.getMetadata().getUid());
        meta.setResourceVersion(r.getMetadata().getResourceVersion());
        meta.setCreationTimestamp(r.getMetadata().getCreationTimestamp());
        meta.setLabels(stringMap(status.get("nodeLabels")));
        meta.setAnnotations(stringMap(status.get("nodeAnnotations")));
        Node node = new Node();
        node.setMetadata(meta);
        node.setSpec(spec);
        node.setStatus(internal);
        return node;
    }

    private static Map<String, String> stringMap(Object o) {
        if (!(o instanceof Map<?, ?> m)) {
            return null;
        }
        Map<String, String> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), v == null ? null : String.valueOf(v)));
        return out;
    }

    private static List<GenericKubernetesResource> list(ApiCalls api, ResourceDefinitionContext type,
                                                        String what, String context) {
        String path = "/apis/" + type.getGroup() + "/" + type.getVersion() + "/" + type.getPlural();
        try {
            return api.listAll("--rancher " + context + ": listing management.cattle.io/v3 " + what, path,
                    GenericKubernetesResource.class, type.getKind(), null, null, java.util.function.Function.identity());
        } catch (ApiCalls.NotFound e) {
            throw new InputException("--rancher " + context + ": management.cattle.io/v3 " + what
                    + " are not served there (404): that context is not a Rancher management (local) cluster");
        }
    }
}
