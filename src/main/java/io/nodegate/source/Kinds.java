package io.nodegate.source;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.nodegate.model.CsiNodeInfo;
import io.nodegate.model.DaemonSetInfo;
import io.nodegate.model.JobInfo;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.PodInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.source.ReadKind.Presence;
import io.nodegate.source.json.MetadataOnly;

import java.util.List;

/**
 * The one table of what nodegate reads from a cluster, in read order (which is also the order notes appear in).
 * Everything that reads or writes cluster objects iterates {@link #ALL}: the live source, the dump source,
 * `collect`, the lifecycle reads and the watch's informers. Adding a kind is adding a row here (plus the field
 * in {@link io.nodegate.model.ClusterState} the detectors read it from, set in {@link StateAssembler#finish}).
 */
public final class Kinds {

    public static final String NODE_LEASE_NAMESPACE = "kube-node-lease";
    public static final String KUBE_SYSTEM = "kube-system";
    public static final String CATTLE_SYSTEM = "cattle-system";
    public static final String KUBERNETES_SERVICE_LABEL = "kubernetes.io/service-name";

    /** Every Node: what the kubelets last reported. */
    public static final ReadKind<Node, NodeInfo> NODES = new ReadKind<>("nodes", Node.class, null, null, null,
            Presence.REQUIRED, "LIST nodes", "nodes.json", null, "Node objects", null, StateAssembler::node);

    /** Kubelet heartbeats (kube-node-lease/&lt;node&gt;). */
    public static final ReadKind<Lease, LeaseInfo> NODE_LEASES = new ReadKind<>("node-leases", Lease.class,
            NODE_LEASE_NAMESPACE, null, null, Presence.REQUIRED, "LIST leases in " + NODE_LEASE_NAMESPACE,
            "node-leases.json", null, "Leases in " + NODE_LEASE_NAMESPACE, null, StateAssembler::lease);

    /**
     * kube-system Secrets, metadata and type only (the model keeps the node-password ones). Live, only that crosses
     * the wire: the LIST asks for a Table of metadata and the Type column ({@link MetadataOnly#SECRET}), never for
     * the Secrets, whose values nodegate has no use for. A field selector on type cannot narrow the list: older
     * node-password Secrets are untyped (Opaque), like many others.
     */
    public static final ReadKind<Secret, SecretMeta> KUBE_SYSTEM_SECRETS = new ReadKind<>("node-password-secrets",
            Secret.class, KUBE_SYSTEM, null, null, Presence.REQUIRED, "LIST secrets in " + KUBE_SYSTEM,
            "node-password-secrets.json", null, "Secrets in " + KUBE_SYSTEM, SecretTrim::metadataOnly,
            StateAssembler::secret, MetadataOnly.SECRET);

    public static final ReadKind<CSINode, CsiNodeInfo> CSINODES = new ReadKind<>("csinodes", CSINode.class, null,
            null, null, Presence.OPTIONAL_API, "LIST csinodes (storage.k8s.io/v1)", "csinodes.json",
            SourceNotes.CSINODES_NOT_SERVED, "CSINode objects", null, StateAssembler::csiNode);

    /** The default/kubernetes EndpointSlice: which API servers the cluster advertises (aggregated in the model). */
    public static final ReadKind<EndpointSlice, StateAssembler.ApiEndpointSlice> API_ENDPOINT_SLICES = new ReadKind<>(
            "api-endpointslices", EndpointSlice.class, "default", KUBERNETES_SERVICE_LABEL, "kubernetes",
            Presence.REQUIRED, "LIST endpointslices in default (" + KUBERNETES_SERVICE_LABEL + "=kubernetes)",
            "kubernetes-endpointslices.json", null, "EndpointSlices default/kubernetes", null,
            StateAssembler::endpointSlice);

    public static final ReadKind<DaemonSet, DaemonSetInfo> DAEMONSETS = new ReadKind<>("daemonsets",
            DaemonSet.class, null, null, null, Presence.REQUIRED, "LIST daemonsets in all namespaces",
            "daemonsets.json", null, "DaemonSets", null, StateAssembler::daemonSet);

    /** Rancher's system-upgrade-controller plan Jobs; absent with the namespace when Rancher is not there. */
    public static final ReadKind<Job, JobInfo> CATTLE_JOBS = new ReadKind<>("cattle-system-jobs", Job.class,
            CATTLE_SYSTEM, null, null, Presence.OPTIONAL_NAMESPACE, "LIST jobs in " + CATTLE_SYSTEM,
            "cattle-system-jobs.json", SourceNotes.CATTLE_SYSTEM_ABSENT, "Jobs in " + CATTLE_SYSTEM, null,
            StateAssembler::job);

    /** Leader-election Leases of the control plane components. */
    public static final ReadKind<Lease, LeaseInfo> KUBE_SYSTEM_LEASES = new ReadKind<>("kube-system-leases",
            Lease.class, KUBE_SYSTEM, null, null, Presence.REQUIRED, "LIST leases in " + KUBE_SYSTEM,
            "kube-system-leases.json", null, "Leases in " + KUBE_SYSTEM, null, StateAssembler::lease);

    public static final ReadKind<Pod, PodInfo> PODS = new ReadKind<>("pods", Pod.class, null, null, null,
            Presence.ON_REQUEST, "LIST pods in all namespaces", "pods.json", null, "Pods", null,
            StateAssembler::pod);

    /**
     * Hosts `nodegate remove` deleted: the ledger's shard ConfigMaps (nodegate-tombstones, nodegate-tombstones-1 …,
     * see TombstoneShards) in nodegate's namespace (NG302). Other ConfigMaps there keep only their metadata. A LIST in a namespace that does not exist answers an empty list,
     * so live this is always read; offline, input without it is "not in the input" rather than "nobody removed".
     */
    public static final ReadKind<ConfigMap, List<Tombstone>> TOMBSTONES = new ReadKind<>("tombstones",
            ConfigMap.class, TombstoneBook.DEFAULT_NAMESPACE, null, null, Presence.OPTIONAL_API,
            "LIST configmaps in " + TombstoneBook.DEFAULT_NAMESPACE, "tombstones.json",
            "ConfigMaps are not served: tombstones cannot be read, NG302 not checked",
            "ConfigMaps in " + TombstoneBook.DEFAULT_NAMESPACE + " (the " + TombstoneBook.CONFIGMAP + " ledger of NG302)",
            Kinds::onlyTombstoneData, StateAssembler::tombstones);

    /** Read order. */
    public static final List<ReadKind<?, ?>> ALL = List.of(NODES, NODE_LEASES, KUBE_SYSTEM_SECRETS, CSINODES,
            API_ENDPOINT_SLICES, DAEMONSETS, CATTLE_JOBS, KUBE_SYSTEM_LEASES, PODS, TOMBSTONES);

    /** A ConfigMap that is not a ledger shard keeps its metadata only: nodegate neither needs nor saves its data. */
    private static ConfigMap onlyTombstoneData(ConfigMap cm) {
        if (cm.getMetadata() != null && io.nodegate.model.TombstoneShards.isShard(cm.getMetadata().getName())) {
            return cm;
        }
        return new io.fabric8.kubernetes.api.model.ConfigMapBuilder().withMetadata(cm.getMetadata()).build();
    }

    /** What `audit` reads (everything but the kinds read on request). */
    public static List<ReadKind<?, ?>> audited() {
        return ALL.stream().filter(k -> k.presence() != Presence.ON_REQUEST).toList();
    }

    private Kinds() {
    }
}
