package io.nodegate.source.rancher;

import io.nodegate.CollectionException;
import io.nodegate.model.MachineInfo;
import io.nodegate.source.json.JsonReadException;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.json.Plain;
import io.nodegate.source.kube.ApiCalls;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the Cluster API Machines that Rancher's management ("local") cluster keeps for the nodes of its
 * provisioning-v2 (RKE2/k3s) clusters, and the provisioning Cluster they belong to.
 *
 * <p>Where they live, from rancher/rancher: a custom (registered) node becomes a Machine named {@code custom-<12 hex>}
 * in the provisioning Cluster's namespace, {@code fleet-default} unless the cluster is in another Fleet workspace
 * ({@code pkg/capr/configserver/custom.go} machineRequestSecretName; {@code pkg/controllers/capr/unmanaged/controller.go}
 * createMachineObjects, which also creates the CustomMachine and RKEBootstrap of the same name and sets the labels
 * {@code cluster.x-k8s.io/cluster-name} and {@code rke.cattle.io/cluster-name} to the cluster's name, and
 * {@code rke.cattle.io/etcd-role}, {@code control-plane-role}, {@code worker-role} from the registration command).
 * The CAPI Cluster has the provisioning Cluster's name ({@code provisioning.cattle.io/v1} Cluster, namespaced).
 *
 * <p>Machines are read as {@code cluster.x-k8s.io/v1beta1}: the version every Cluster API Rancher ships serves
 * (storage version up to CAPI v1.10, i.e. Rancher 2.13; served and converted from v1beta2 since CAPI v1.11, Rancher
 * 2.14 and 2.15 with CAPI v1.12 and v1.13). In the converted view {@code status.nodeRef} has no uid (v1beta2's
 * MachineNodeReference holds only the name: cluster-api {@code api/core/v1beta1/conversion.go}); a v1beta2 shape is
 * read as well, so a server that answers it (or a dump of it) gives the same {@link MachineInfo}.
 */
public final class RancherMachines {

    public static final String DEFAULT_NAMESPACE = "fleet-default";
    public static final String MACHINE_API_VERSION = "cluster.x-k8s.io/v1beta1";
    public static final String PROVISIONING_API_VERSION = "provisioning.cattle.io/v1";

    private RancherMachines() {
    }

    public static String machinesPath(String namespace) {
        return "/apis/" + MACHINE_API_VERSION + "/namespaces/" + namespace + "/machines";
    }

    public static String machinePath(String namespace, String name) {
        return machinesPath(namespace) + "/" + name;
    }

    public static String provisioningClusterPath(String namespace, String name) {
        return "/apis/" + PROVISIONING_API_VERSION + "/namespaces/" + namespace + "/clusters/" + name;
    }

    /**
     * Every Machine in the namespace (one paginated LIST: Machines can be filtered server-side only by label, and
     * the one that names a Node is found by its status). A 404 means the management cluster does not serve
     * Cluster API Machines: not Rancher's management cluster, or Rancher without provisioning v2. It is an error,
     * never "no Machine".
     */
    public static List<MachineInfo> machines(ApiCalls api, String namespace) {
        String what = "LIST machines." + MACHINE_API_VERSION + " in " + namespace;
        try {
            return api.listPlain(what, machinesPath(namespace), "Machine", null, null, KubeJson.MODEL,
                    m -> parse(m, what));
        } catch (ApiCalls.NotFound e) {
            throw new CollectionException(what + " at " + api.server() + ": the API server does not serve Cluster API"
                    + " Machines (HTTP 404). Is this Rancher's management (local) cluster, with provisioning v2?", e);
        }
    }

    /**
     * The provisioning Cluster of that name ({@code provisioning.cattle.io/v1}), as plain JSON; empty only on a
     * NotFound. Its {@code status.clusterName} is the management cluster's ID ({@code c-m-…}).
     */
    public static Optional<Map<String, Object>> provisioningCluster(ApiCalls api, String namespace, String name) {
        return api.getPlain("GET clusters." + PROVISIONING_API_VERSION + " " + namespace + "/" + name,
                provisioningClusterPath(namespace, name), "Cluster", name, KubeJson.MODEL);
    }

    /** One Machine with its answer's bytes as the server sent them: what `remove` saves before its DELETE. */
    public static Optional<ApiCalls.RawObject> machineAsSent(ApiCalls api, String namespace, String name) {
        return api.getRaw("GET Machine " + namespace + "/" + name, machinePath(namespace, name), "Machine", name);
    }

    /** A Machine's JSON (either version's shape) as the model; a field of the wrong shape is a broken answer. */
    public static MachineInfo parse(Map<String, Object> m, String where) {
        try {
            Map<String, Object> meta = Plain.map(m, "metadata");
            Map<String, Object> spec = Plain.map(m, "spec");
            Map<String, Object> status = Plain.map(m, "status");
            Map<String, Object> infra = spec == null ? null : Plain.map(spec, "infrastructureRef");
            String infraGroup = null;
            if (infra != null) {
                infraGroup = Plain.string(infra, "apiGroup");
                String apiVersion = Plain.string(infra, "apiVersion");
                if (infraGroup == null && apiVersion != null) {
                    infraGroup = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
                }
            }
            Map<String, Object> nodeRef = status == null ? null : Plain.map(status, "nodeRef");
            Map<String, Object> nodeInfo = status == null ? null : Plain.map(status, "nodeInfo");
            Map<String, String> conditions = new LinkedHashMap<>();
            List<Object> conds = status == null ? null : Plain.list(status, "conditions");
            if (conds != null) {
                for (Object c : conds) {
                    Map<String, Object> cond = Plain.element(c, "status.conditions");
                    if (cond != null && Plain.string(cond, "type") != null) {
                        conditions.put(Plain.string(cond, "type"), Plain.string(cond, "status"));
                    }
                }
            }
            String deletion = meta == null ? null : Plain.string(meta, "deletionTimestamp");
            return new MachineInfo(Plain.string(m, "apiVersion"), Plain.string(meta, "namespace"),
                    Plain.string(meta, "name"), Plain.string(meta, "uid"), Plain.string(meta, "resourceVersion"),
                    Plain.stringMap(meta, "labels"), Plain.stringMap(meta, "annotations"),
                    deletion == null ? null : Instant.parse(deletion),
                    spec == null ? null : Plain.string(spec, "clusterName"),
                    infra == null ? null : Plain.string(infra, "kind"), infraGroup,
                    spec == null ? null : Plain.string(spec, "providerID"),
                    nodeRef == null ? null : blankToNull(Plain.string(nodeRef, "name")),
                    nodeRef == null ? null : blankToNull(Plain.string(nodeRef, "uid")),
                    nodeInfo == null ? null : blankToNull(Plain.string(nodeInfo, "bootID")),
                    status == null ? null : Plain.string(status, "phase"), conditions);
        } catch (JsonReadException | DateTimeParseException e) {
            throw new CollectionException(where + ": unusable Machine answer: " + e.getMessage());
        }
    }

    /** The provisioning Cluster's management ID ({@code status.clusterName}, {@code c-m-…}), or null. */
    public static String managementId(Map<String, Object> provisioningCluster) {
        Map<String, Object> status = Plain.map(provisioningCluster, "status");
        return status == null ? null : Plain.string(status, "clusterName");
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
