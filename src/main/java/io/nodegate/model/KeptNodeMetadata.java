package io.nodegate.model;

import java.util.List;
import java.util.Set;

/**
 * The one list of the Node labels and annotations nodegate keeps when it reads Nodes for its checks (audits, the
 * watch's cache, the lifecycle commands' reads): those a detector, the audit table, a lifecycle check or an evidence
 * record reads. Every other label and annotation is dropped while the Node's JSON is parsed, as status.images and
 * every managedFields entry but the cordon's are.
 *
 * <p>Why: a GPU node carries ~60 node-feature-discovery and GPU-operator labels and a long
 * {@code nfd.node.kubernetes.io/feature-labels} annotation (the RKE2 GPU node in shared/field/k8s/edgexr-nori-rke2
 * has 85 labels and 18 annotations, 14 KB of JSON); kept for 20,000 Nodes they were most of the audit's memory,
 * and no check reads them (bench/RESULTS.md).
 *
 * <p>What is never trimmed: what nodegate writes as evidence or saves before a deletion ({@code collect}'s files,
 * the Node {@code remove} saves, the bytes a gate records). Those are read whole (KubeJson.EVIDENCE, or the answer's
 * bytes), never through this list.
 *
 * <p>Adding a reader: a check that reads another label or annotation adds its key here, or the check sees it
 * absent. {@code KeptNodeMetadataTest} names every reader's key and fails when one is missing;
 * {@code TrimmedNodeMetadataChangesNothingTest} runs the audit over field-sized examples with and without the
 * trimming and compares every output.
 */
public final class KeptNodeMetadata {

    /** Label prefixes kept whole: the role labels (the table's ROLES, server/worker checks, the baseline's roles). */
    public static final List<String> LABEL_PREFIXES = List.of(NodeInfo.ROLE_PREFIX);

    /**
     * Labels kept by exact key:
     * <ul>
     *   <li>{@code kubernetes.io/hostname}: the host's name as the kubelet registered it (it differs from the Node's
     *       name under {@code --hostname-override}); one short value;</li>
     *   <li>Rancher's labels on a provisioned Node ({@link MachineInfo}): the gate's Machine check and the Machine
     *       evidence of {@code gate} and {@code remove} read them.</li>
     * </ul>
     * GPU counts are read from {@code status.capacity} ({@link Gpu}), never from the GPU operator's labels.
     */
    public static final Set<String> LABELS = Set.of(
            "kubernetes.io/hostname",
            MachineInfo.NODE_MACHINE_UID_LABEL,
            MachineInfo.NODE_CLUSTER_NAME_LABEL,
            MachineInfo.NODE_MACHINE_KIND_LABEL,
            MachineInfo.NODE_MACHINE_NAME_LABEL);

    /** Annotation prefixes kept whole: nodegate's own (the gate verdict and its evidence digest, written by {@code gate --annotate}). */
    public static final List<String> ANNOTATION_PREFIXES = List.of("nodegate.io/");

    /**
     * Annotations kept by exact key: what k3s and RKE2 record on a Node:
     * <ul>
     *   <li>{@code rke2.io/node-args}, {@code k3s.io/node-args}: the agent's start arguments (server or agent, the
     *       disabled components; which distribution it is);</li>
     *   <li>{@code k3s.io/internal-ip}: the addresses k3s registered (the redundancy check's kube-apiserver layer);</li>
     *   <li>{@code etcd.rke2.cattle.io/node-name} / {@code node-address} and the k3s ones: which etcd member is this
     *       node (etcd checks, the gate's etcd-first rule).</li>
     * </ul>
     */
    public static final Set<String> ANNOTATIONS = Set.of(
            "rke2.io/node-args",
            "k3s.io/node-args",
            "k3s.io/internal-ip",
            "etcd.rke2.cattle.io/node-name",
            "etcd.k3s.cattle.io/node-name",
            "etcd.rke2.cattle.io/node-address",
            "etcd.k3s.cattle.io/node-address");

    /*
     * metadata.managedFields: of a Node, only the entries that own spec.unschedulable (who cordoned it, and when:
     * CordonOwner), each cut to its manager, operation and time; every other entry, and every other kind's
     * managedFields, is skipped while parsing (KubeJson.readMetadata). A Node has a dozen entries (kubelet, the
     * controllers, Rancher) with field sets of kilobytes; one cordon entry is a few short strings.
     */
    /** The managedFields entry path that marks who cordoned a Node: fieldsV1 {@code f:spec} → {@code f:unschedulable}. */
    public static final String MANAGED_SPEC = "f:spec";
    public static final String MANAGED_UNSCHEDULABLE = "f:unschedulable";

    private KeptNodeMetadata() {
    }

    /** True when a check reads this Node label. */
    public static boolean keepsLabel(String key) {
        return LABELS.contains(key) || startsWithAny(key, LABEL_PREFIXES);
    }

    /** True when a check reads this Node annotation. */
    public static boolean keepsAnnotation(String key) {
        return ANNOTATIONS.contains(key) || startsWithAny(key, ANNOTATION_PREFIXES);
    }

    private static boolean startsWithAny(String key, List<String> prefixes) {
        for (String prefix : prefixes) {
            if (key.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
