package io.nodegate.testing;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real RKE2 node of shared/field/k8s/edgexr-nori-rke2/nodes.json (edgexr/edge-cloud-platform
 * pkg/k8smgmt/cluster_test.go; a kubectl dump, so without managedFields), cordoned, with the managedFields a LIST
 * returns: entries in the shape kube-apiserver writes them ({@code staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/
 * types.go} ManagedFieldsEntry: manager, operation, apiVersion, time, fieldsType FieldsV1, fieldsV1, subresource).
 *
 * <p>Manager names as the writers end up recorded:
 * <ul>
 *   <li>{@code kubectl}: kubectl cordon, uncordon and drain send no fieldManager ({@code k8s.io/kubectl/pkg/drain/
 *       cordon.go}, PatchOrReplaceWithContext with empty PatchOptions), so kube-apiserver takes the User-Agent's part
 *       before '/' ({@code k8s.io/apiserver/pkg/endpoints/handlers/create.go}, managerOrUserAgent and
 *       prefixFromUserAgent), which client-go builds from the binary's file name ({@code k8s.io/client-go/rest/
 *       config.go}, DefaultKubernetesUserAgent). system-upgrade-controller cordons and drains from a Job's init
 *       container that runs kubectl ({@code rancher/system-upgrade-controller pkg/upgrade/job/job.go}), so its
 *       cordons are recorded as kubectl too; it uncordons with an Update that removes the field.</li>
 *   <li>{@code rancher}: Rancher's nodesyncer sets spec.unschedulable from the management Node's
 *       desiredNodeUnschedulable with an Update ({@code rancher/rancher pkg/controllers/managementuser/nodesyncer/
 *       cordonfieldssyncer.go}), through a client whose User-Agent is client-go's default plus " cluster NAME"
 *       ({@code pkg/clustermanager/manager.go}), from the rancher binary.</li>
 *   <li>{@code kube-controller-manager}: the node lifecycle controller adds the node.kubernetes.io/unschedulable
 *       taint to a cordoned Node ({@code pkg/controller/nodelifecycle/node_lifecycle_controller.go}); it owns
 *       {@code f:spec.f:taints}, never {@code f:unschedulable}: a near miss for "who cordoned it".</li>
 *   <li>{@code kubelet} (status subresource) and {@code rke2} (the agent's node-args annotations).</li>
 * </ul>
 */
public final class CordonedNodeJson {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    public static final Path NORI = Path.of("..", "shared", "field", "k8s", "edgexr-nori-rke2", "nodes.json");

    private CordonedNodeJson() {
    }

    /** The real node's List, its one Node cordoned at {@code cordonedAt} by {@code manager} (null: not cordoned). */
    public static byte[] nori(String manager, String operation, String cordonedAt) throws IOException {
        ObjectNode list = (ObjectNode) JSON.readTree(Files.readAllBytes(NORI));
        ObjectNode node = (ObjectNode) list.get("items").get(0);
        ObjectNode meta = (ObjectNode) node.get("metadata");
        ArrayNode managed = meta.putArray("managedFields");
        managed.add(entry("rke2", "Update", "2025-03-19T22:05:11Z", null,
                "{\"f:metadata\":{\"f:annotations\":{\"f:rke2.io/node-args\":{},\"f:rke2.io/hostname\":{}}}}"));
        managed.add(entry("kube-controller-manager", "Update", "2025-03-20T09:41:02Z", null,
                "{\"f:metadata\":{\"f:annotations\":{\"f:node.alpha.kubernetes.io/ttl\":{}}},\"f:spec\":{"
                        + "\"f:podCIDR\":{},\"f:podCIDRs\":{\".\":{},\"v:\\\"10.42.0.0/24\\\"\":{}},\"f:taints\":{}}}"));
        managed.add(entry("kubelet", "Update", "2025-03-20T10:02:47Z", "status",
                "{\"f:status\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\"f:lastHeartbeatTime\":{}}}}}"));
        ObjectNode spec = (ObjectNode) node.get("spec");
        if (manager != null) {
            managed.add(entry(manager, operation, cordonedAt, null, "{\"f:spec\":{\"f:unschedulable\":{}}}"));
            spec.put("unschedulable", true);
            ArrayNode taints = spec.has("taints") ? (ArrayNode) spec.get("taints") : spec.putArray("taints");
            taints.addObject().put("effect", "NoSchedule").put("key", "node.kubernetes.io/unschedulable")
                    .put("timeAdded", cordonedAt);
        }
        return JSON.writeValueAsBytes(list);
    }

    /** The same, with a reason annotation added. */
    public static byte[] withReason(byte[] listBytes, String reason) throws IOException {
        ObjectNode list = (ObjectNode) JSON.readTree(listBytes);
        ObjectNode meta = (ObjectNode) list.get("items").get(0).get("metadata");
        ((ObjectNode) meta.get("annotations")).put("nodegate.io/cordon-reason", reason);
        return JSON.writeValueAsBytes(list);
    }

    private static ObjectNode entry(String manager, String operation, String time, String subresource, String fields) {
        ObjectNode e = JSON.createObjectNode();
        e.put("apiVersion", "v1");
        e.put("fieldsType", "FieldsV1");
        JsonNode parsed = JSON.readTree(fields);
        e.set("fieldsV1", parsed);
        e.put("manager", manager);
        e.put("operation", operation);
        if (subresource != null) {
            e.put("subresource", subresource);
        }
        e.put("time", time);
        return e;
    }
}
