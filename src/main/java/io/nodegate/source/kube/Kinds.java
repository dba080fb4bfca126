package io.nodegate.source.kube;

import io.nodegate.source.SourceNotes;
import io.fabric8.kubernetes.api.model.ConfigMap;
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
import io.nodegate.source.kube.ReadKind.Presence;
import io.nodegate.source.json.MetadataOnly;
import io.nodegate.model.NodeInventory;
import io.nodegate.model.TombstoneShards;

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
    public static final ReadKind<Node, NodeInfo> NODES = ReadKind.builder("nodes", Node.class, StateAssembler::node)
            .presence(Presence.REQUIRED).listWhat("LIST nodes").dumpFile("nodes.json").notInInputWhat("Node objects")
            .build();

    /** Kubelet heartbeats (kube-node-lease/&lt;node&gt;). */
    public static final ReadKind<Lease, LeaseInfo> NODE_LEASES = ReadKind.builder("node-leases", Lease.class,
                    StateAssembler::lease)
            .namespace(NODE_LEASE_NAMESPACE).presence(Presence.REQUIRED)
            .listWhat("LIST leases in " + NODE_LEASE_NAMESPACE)
            .dumpFile("node-leases.json").notInInputWhat("Leases in " + NODE_LEASE_NAMESPACE).build();

    /**
     * kube-system Secrets, metadata and type only (the model keeps the node-password ones). Live, only that crosses
     * the wire: the LIST asks for a Table of metadata and the Type column ({@link MetadataOnly#SECRET}), never for
     * the Secrets, whose values nodegate has no use for. A field selector on type cannot narrow the list: older
     * node-password Secrets are untyped (Opaque), like many others.
     */
    public static final ReadKind<Secret, SecretMeta> KUBE_SYSTEM_SECRETS = ReadKind.builder("node-password-secrets",
                    Secret.class, StateAssembler::secret)
            .namespace(KUBE_SYSTEM).presence(Presence.REQUIRED).listWhat("LIST secrets in " + KUBE_SYSTEM)
            .dumpFile("node-password-secrets.json").notInInputWhat("Secrets in " + KUBE_SYSTEM)
            .trim(SecretTrim::metadataOnly).metadataOnly(MetadataOnly.SECRET).build();

    public static final ReadKind<CSINode, CsiNodeInfo> CSINODES = ReadKind.builder("csinodes", CSINode.class,
                    StateAssembler::csiNode)
            .presence(Presence.OPTIONAL_API).listWhat("LIST csinodes (storage.k8s.io/v1)").dumpFile("csinodes.json")
            .absentNote(SourceNotes.CSINODES_NOT_SERVED).notInInputWhat("CSINode objects").build();

    /** The default/kubernetes EndpointSlice: which API servers the cluster advertises (aggregated in the model). */
    public static final ReadKind<EndpointSlice, StateAssembler.ApiEndpointSlice> API_ENDPOINT_SLICES =
            ReadKind.builder("api-endpointslices", EndpointSlice.class, StateAssembler::endpointSlice)
                    .namespace("default").label(KUBERNETES_SERVICE_LABEL, "kubernetes").presence(Presence.REQUIRED)
                    .listWhat("LIST endpointslices in default (" + KUBERNETES_SERVICE_LABEL + "=kubernetes)")
                    .dumpFile("kubernetes-endpointslices.json").notInInputWhat("EndpointSlices default/kubernetes")
                    .build();

    public static final ReadKind<DaemonSet, DaemonSetInfo> DAEMONSETS = ReadKind.builder("daemonsets",
                    DaemonSet.class, StateAssembler::daemonSet)
            .presence(Presence.REQUIRED).listWhat("LIST daemonsets in all namespaces").dumpFile("daemonsets.json")
            .notInInputWhat("DaemonSets").build();

    /** Rancher's system-upgrade-controller plan Jobs; absent with the namespace when Rancher is not there. */
    public static final ReadKind<Job, JobInfo> CATTLE_JOBS = ReadKind.builder("cattle-system-jobs", Job.class,
                    StateAssembler::job)
            .namespace(CATTLE_SYSTEM).presence(Presence.OPTIONAL_NAMESPACE).listWhat("LIST jobs in " + CATTLE_SYSTEM)
            .dumpFile("cattle-system-jobs.json").absentNote(SourceNotes.CATTLE_SYSTEM_ABSENT)
            .notInInputWhat("Jobs in " + CATTLE_SYSTEM).build();

    /** Leader-election Leases of the control plane components. */
    public static final ReadKind<Lease, LeaseInfo> KUBE_SYSTEM_LEASES = ReadKind.builder("kube-system-leases",
                    Lease.class, StateAssembler::lease)
            .namespace(KUBE_SYSTEM).presence(Presence.REQUIRED).listWhat("LIST leases in " + KUBE_SYSTEM)
            .dumpFile("kube-system-leases.json").notInInputWhat("Leases in " + KUBE_SYSTEM).build();

    public static final ReadKind<Pod, PodInfo> PODS = ReadKind.builder("pods", Pod.class, StateAssembler::pod)
            .presence(Presence.ON_REQUEST).listWhat("LIST pods in all namespaces").dumpFile("pods.json")
            .notInInputWhat("Pods").build();

    /**
     * Hosts `nodegate remove` deleted: the ledger's shard ConfigMaps (nodegate-tombstones, nodegate-tombstones-1 …,
     * see TombstoneShards) in nodegate's namespace (NG302), and the declared inventory there (nodegate-inventory,
     * NodeInventory: NG112, NG113, NG114), read by the same LIST. Other ConfigMaps there keep only their metadata. A LIST in a namespace that does not exist answers an empty list,
     * so live this is always read; offline, input without it is "not in the input" rather than "nobody removed".
     */
    public static final ReadKind<ConfigMap, StateAssembler.LedgerConfigMap> TOMBSTONES = ReadKind.builder("tombstones",
                    ConfigMap.class, StateAssembler::ledgerConfigMap)
            .namespace(TombstoneBook.DEFAULT_NAMESPACE).presence(Presence.OPTIONAL_API)
            .listWhat("LIST configmaps in " + TombstoneBook.DEFAULT_NAMESPACE).dumpFile("tombstones.json")
            .absentNote("ConfigMaps are not served: tombstones cannot be read, NG302 not checked")
            .notInInputWhat("ConfigMaps in " + TombstoneBook.DEFAULT_NAMESPACE + " (the " + TombstoneBook.CONFIGMAP
                    + " ledger of NG302)")
            .trim(Kinds::onlyTombstoneData).build();

    /** Read order. */
    public static final List<ReadKind<?, ?>> ALL = List.of(NODES, NODE_LEASES, KUBE_SYSTEM_SECRETS, CSINODES,
            API_ENDPOINT_SLICES, DAEMONSETS, CATTLE_JOBS, KUBE_SYSTEM_LEASES, PODS, TOMBSTONES);

    /** A ConfigMap that is not a ledger shard keeps its metadata only: nodegate neither needs nor saves its data. */
    private static ConfigMap onlyTombstoneData(ConfigMap cm) {
        if (cm.getMetadata() != null && (TombstoneShards.isShard(cm.getMetadata().getName())
                || NodeInventory.isInventory(cm.getMetadata().getName()))) {
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
