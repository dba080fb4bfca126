package io.nodegate.deploy;

import io.nodegate.handover.NodeHandover;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Every API request `nodegate watch` makes, in one place: `nodegate install` builds the watch's ClusterRole and
 * Roles from it, and its test replays each request against the emitted RBAC. The watch's own code (informers,
 * Events, leader election) must stay inside this list; adding a read means adding a row here.
 */
public final class WatchAccess {

    public static final String LEADER_LEASE = "nodegate-watch";
    public static final String TOMBSTONES_CONFIGMAP = "nodegate-tombstones";
    /** Events about cluster-scoped objects (Nodes) live in default, as the kubelet's own do. */
    public static final String EVENTS_NAMESPACE = "default";
    public static final String CATTLE_SYSTEM = "cattle-system";
    /** The wg-policy PolicyReport API (kubernetes-sigs/wg-policy-prototypes, v1alpha2), cluster-scoped reports. */
    public static final String POLICY_REPORT_GROUP = "wgpolicyk8s.io";
    public static final String HANDOVER_GROUP = NodeHandover.GROUP;
    public static final String HANDOVER_RESOURCE = NodeHandover.PLURAL;
    public static final String POLICY_REPORT_RESOURCE = "clusterpolicyreports";

    /**
     * One kind of request.
     *
     * @param apiGroup      "" for core
     * @param resource      plural resource name, or a non-resource URL starting with "/"
     * @param namespace     null for cluster-scoped resources and reads across all namespaces (ClusterRole)
     * @param verbs         RBAC verbs
     * @param resourceNames the only names the request uses (empty: any); RBAC cannot narrow create by name
     * @param rancherOnly   only where Rancher's cattle-system namespace exists (`install --no-rancher` drops it)
     * @param why           what the watch does with it
     */
    public record Request(String apiGroup, String resource, String namespace, List<String> verbs,
                          List<String> resourceNames, boolean rancherOnly, String why) {
        public Request {
            Objects.requireNonNull(apiGroup);
            Objects.requireNonNull(resource);
            verbs = List.copyOf(verbs);
            resourceNames = List.copyOf(resourceNames);
        }

        public boolean nonResource() {
            return resource.startsWith("/");
        }
    }

    private WatchAccess() {
    }

    /** The requests of a watch running in namespace {@code ownNamespace}, without `--policy-reports`. */
    public static List<Request> requests(String ownNamespace, boolean rancher) {
        return requests(ownNamespace, rancher, false);
    }

    /**
     * The requests of a watch running in namespace {@code ownNamespace}; with {@code policyReports}
     * (`watch --policy-reports`) also the ClusterPolicyReports it keeps current.
     */
    public static List<Request> requests(String ownNamespace, boolean rancher, boolean policyReports) {
        List<Request> all = new ArrayList<>(List.of(
                // informers on exactly what `audit` reads (source.Kinds): LIST then WATCH
                new Request("", "nodes", null, List.of("get", "list", "watch"), List.of(), false,
                        "Node informer; GET one Node for its uid when posting an Event about it"),
                new Request("coordination.k8s.io", "leases", "kube-node-lease", List.of("list", "watch"), List.of(),
                        false, "kubelet heartbeat Leases"),
                new Request("", "secrets", "kube-system", List.of("list", "watch"), List.of(), false,
                        "node-password Secrets, listed and watched as Tables of metadata and type so no value is sent "
                                + "(RBAC cannot grant metadata only: docs/policy.md)"),
                new Request("storage.k8s.io", "csinodes", null, List.of("list", "watch"), List.of(), false,
                        "CSINodes"),
                new Request("discovery.k8s.io", "endpointslices", "default", List.of("list", "watch"), List.of(),
                        false, "the default/kubernetes EndpointSlice (label kubernetes.io/service-name=kubernetes)"),
                new Request("apps", "daemonsets", null, List.of("list", "watch"), List.of(), false,
                        "DaemonSets in all namespaces"),
                new Request("batch", "jobs", CATTLE_SYSTEM, List.of("list", "watch"), List.of(), true,
                        "Rancher's system-agent-upgrader Jobs"),
                new Request("coordination.k8s.io", "leases", "kube-system", List.of("list", "watch"), List.of(),
                        false, "control-plane leader-election Leases"),
                new Request("", "namespaces", null, List.of("get"), List.of(CATTLE_SYSTEM), false,
                        "whether Rancher's namespace exists (NotFound: no Rancher, no Job informer)"),
                new Request("", "/version", null, List.of("get"), List.of(), false,
                        "the apiserver version (grace period and kubelet skew depend on it)"),
                // the tombstones of removed hosts (nodegate remove writes them; the watch only reads)
                new Request("", "configmaps", ownNamespace, List.of("get", "list", "watch"), List.of(), false,
                        "the " + TOMBSTONES_CONFIGMAP + " ConfigMap (read only)"),
                // the hand-overs: every replica reads the open ones for NG171 (a cordon an open hand-over names
                // is explained); the leader keeps them current (watch --no-handovers leaves them alone)
                new Request(HANDOVER_GROUP, HANDOVER_RESOURCE, null, List.of("get", "list"), List.of(), false,
                        "NodeHandovers: listed once per interval for NG171 (which Nodes an open hand-over names); "
                                + "the leader looks at each open one every minute, and that LIST stands in for the next "
                                + "NG171 read"),
                new Request(HANDOVER_GROUP, HANDOVER_RESOURCE + "/status", null, List.of("update"), List.of(), false,
                        "writes what it saw to a NodeHandover's status (resourceVersion precondition)"),
                // what the watch writes
                new Request("", "nodes", null, List.of("patch"), List.of(), false,
                        "holds a newcomer: adds the nodegate.io/unaccepted taint with one JSON patch that tests the "
                                + "Node's uid and resourceVersion (docs/inventory.md; watch --no-hold turns it off)"),
                new Request("", "events", EVENTS_NAMESPACE, List.of("create", "patch"), List.of(), false,
                        "core/v1 Events about Nodes and NodeHandovers, posted by the leader"),
                new Request("coordination.k8s.io", "leases", ownNamespace, List.of("get", "patch"),
                        List.of(LEADER_LEASE), false,
                        "leader election: fabric8's LeaderElector GETs the Lease and renews it with a JSON merge "
                                + "PATCH (ResourceLock.update), not a PUT"),
                new Request("coordination.k8s.io", "leases", ownNamespace, List.of("create"), List.of(), false,
                        "the first replica creates the " + LEADER_LEASE + " Lease (RBAC cannot limit create by name)")));
        if (policyReports) {
            all.add(new Request(POLICY_REPORT_GROUP, POLICY_REPORT_RESOURCE, null,
                    List.of("get", "list", "create", "update", "delete"), List.of(), false,
                    "the leader keeps its ClusterPolicyReports current (watch --policy-reports): LIST its own by "
                            + "label, GET before an update with the resourceVersion as precondition, DELETE the parts "
                            + "no longer needed; RBAC cannot narrow create or list by name"));
        }
        if (!rancher) {
            all.removeIf(Request::rancherOnly);
        }
        return all;
    }
}
