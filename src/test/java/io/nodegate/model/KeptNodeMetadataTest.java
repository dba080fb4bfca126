package io.nodegate.model;

import io.nodegate.lifecycle.gate.EtcdMembership;
import io.nodegate.policy.GatePolicy;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Node label and annotation a reader names is on the kept list: a key missing here would be dropped while
 * parsing and its reader would see it absent. The readers: role labels (NodeInfo.roles: the table, the server
 * checks, the baseline), Rancher's Machine labels (the gate's Machine check and evidence), the RKE2/k3s node-args and
 * k3s internal-ip (NodeFacts, NodeArgs, RoleLayers), the etcd member annotations (EtcdMemberNodes, EtcdMembership,
 * the gate's etcd-first rule), nodegate's own gate annotations (RemovalTargets, the admission policy).
 */
class KeptNodeMetadataTest {

    @Test
    void everyLabelAReaderNamesIsKept() {
        List<String> read = List.of(NodeInfo.ROLE_PREFIX + "control-plane", NodeInfo.ROLE_PREFIX + "etcd",
                NodeInfo.ROLE_PREFIX + "master", NodeInfo.ROLE_PREFIX + "worker", "kubernetes.io/hostname",
                MachineInfo.NODE_MACHINE_UID_LABEL, MachineInfo.NODE_CLUSTER_NAME_LABEL,
                MachineInfo.NODE_MACHINE_KIND_LABEL, MachineInfo.NODE_MACHINE_NAME_LABEL);
        assertThat(read).allMatch(KeptNodeMetadata::keepsLabel);
    }

    @Test
    void everyAnnotationAReaderNamesIsKept() {
        List<String> read = new ArrayList<>(List.of("rke2.io/node-args", "k3s.io/node-args", "k3s.io/internal-ip",
                "etcd.k3s.cattle.io/node-name", "etcd.k3s.cattle.io/node-address", GatePolicy.VERDICT_ANNOTATION,
                GatePolicy.GATE_AT_ANNOTATION, GatePolicy.GATE_UID_ANNOTATION, GatePolicy.GATE_BOOT_ID_ANNOTATION));
        read.addAll(EtcdMembership.MEMBER_NAME_ANNOTATIONS);
        read.addAll(EtcdMembership.MEMBER_ADDRESS_ANNOTATIONS);
        assertThat(read).allMatch(KeptNodeMetadata::keepsAnnotation);
    }

    /** What a GPU node carries in bulk (the real RKE2 GPU node's keys, shared/field/k8s/edgexr-nori-rke2). */
    @Test
    void featureDiscoveryAndGpuOperatorMetadataIsDropped() {
        assertThat(List.of("feature.node.kubernetes.io/cpu-cpuid.AVX2", "nvidia.com/gpu.product",
                "nvidia.com/gpu.count", "nvidia.com/cuda.driver-version.full", "beta.kubernetes.io/arch",
                "node.kubernetes.io/instance-type", "node-role.kubernetes.io"))
                .noneMatch(KeptNodeMetadata::keepsLabel);
        assertThat(List.of("nfd.node.kubernetes.io/feature-labels", "flannel.alpha.coreos.com/backend-data",
                "rke2.io/node-config-hash", "nvidia.com/gpu-driver-upgrade-enabled",
                "volumes.kubernetes.io/controller-managed-attach-detach", "rke2.io/node-args-extra"))
                .noneMatch(KeptNodeMetadata::keepsAnnotation);
    }
}
