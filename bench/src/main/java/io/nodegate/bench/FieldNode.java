package io.nodegate.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The field-sized shape of an RKE2 GPU Node: what the real one in
 * {@code ../shared/field/k8s/edgexr-nori-rke2/nodes.json} carries (edgexr/edge-cloud-platform
 * pkg/k8smgmt/cluster_test.go, {@code kubectl get nodes -o json} of RKE2 v1.31.6+rke2r1 GPU server {@code nori}: 85
 * labels, 18 annotations, 22 images, nvidia.com/gpu in its capacity), varied per node, plus the managedFields a LIST
 * carries for it (that capture has none: kubectl strips them when printing). The label and annotation names are the
 * node-feature-discovery and GPU feature discovery (gpu-operator) ones the real node shows.
 *
 * <p>Varied per node: four GPU models (the real vGPU A16, A100 and H100 with MIG, L40S) with their counts, memory and
 * compute capability, and one node in five without a GPU (its NFD labels only, no nvidia.com/ ones); two CPU models
 * (with and without AVX-512), three kernels, two driver branches; the host names, addresses, hashes, digests and
 * the feature-discovery timestamp.
 */
final class FieldNode {

    /** The real node's images, largest first, with their sizes. */
    static final String[][] IMAGES = {
            {"docker.io/rancher/nginx-ingress-controller:v1.12.0-hardened6", "298493685"},
            {"docker.io/rancher/hardened-kubernetes:v1.31.6-rke2r1-build20250213", "228062944"},
            {"nvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.7.0", "225657726"},
            {"nvcr.io/nvidia/gpu-operator:v24.9.2", "221606384"},
            {"docker.io/rancher/hardened-calico:v3.29.2-build20250218", "210583432"},
            {"nvcr.io/nvidia/k8s-device-plugin:v0.17.0", "187560257"},
            {"nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.9.2", "183351646"},
            {"nvcr.io/nvidia/k8s/container-toolkit:v1.17.4-ubuntu20.04", "132859723"},
            {"nvcr.io/nvidia/k8s/dcgm-exporter:3.3.9-3.6.1-ubuntu22.04", "127723011"},
            {"docker.io/rancher/rke2-runtime:v1.31.6-rke2r1", "94555806"},
            {"nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda11.7.1-ubuntu20.04", "85614085"},
            {"docker.io/rancher/hardened-flannel:v0.26.4-build20250218", "81490879"},
            {"docker.io/rancher/klipper-helm:v0.9.4-build20250113", "70422458"},
            {"registry.k8s.io/nfd/node-feature-discovery:v0.16.6", "69405547"},
            {"docker.io/rancher/mirrored-sig-storage-snapshot-controller:v8.2.0", "29129582"},
            {"docker.io/rancher/hardened-coredns:v1.12.0-build20241126", "27603460"},
            {"docker.io/rancher/mirrored-ingress-nginx-kube-webhook-certgen:v1.5.0", "26958501"},
            {"docker.io/rancher/rke2-cloud-provider:v1.31.2-0.20241016053446-0955fa330f90-build20241016", "22079096"},
            {"docker.io/rancher/hardened-k8s-metrics-server:v0.7.2-build20250110", "18761838"},
            {"docker.io/rancher/hardened-etcd:v3.5.18-k3s1-build20250210", "17403640"},
            {"docker.io/rancher/hardened-cluster-autoscaler:v1.9.0-build20241126", "13693474"},
            {"docker.io/rancher/mirrored-pause:3.6", "301463"}};

    /** product, count, family, memory MiB, compute major.minor, MIG capable, vGPU. */
    private static final String[][] GPUS = {
            {"NVIDIA-A16-4Q", "1", "ampere", "4096", "8.6", "false", "true"},
            {"NVIDIA-A100-SXM4-80GB", "8", "ampere", "81920", "8.0", "true", "false"},
            {"NVIDIA-H100-80GB-HBM3", "8", "hopper", "81559", "9.0", "true", "false"},
            {"NVIDIA-L40S", "4", "ada-lovelace", "46068", "8.9", "false", "false"}};

    private static final String[] CPUID = {"AESNI", "AVX", "AVX2", "CMPXCHG8", "FMA3", "FXSR", "FXSROPT",
            "HYPERVISOR", "IBPB", "LAHF", "MOVBE", "OSXSAVE", "SPEC_CTRL_SSBD", "SYSCALL", "SYSEE", "X87", "XSAVE",
            "XSAVEOPT"};
    private static final String[] AVX512 = {"AVX512BW", "AVX512CD", "AVX512DQ", "AVX512F", "AVX512VL", "AVX512VNNI"};
    private static final String[][] KERNELS = {{"5.15.0-134-generic", "5", "15", "0"},
            {"5.15.0-131-generic", "5", "15", "0"}, {"6.8.0-52-generic", "6", "8", "0"}};
    private static final String[][] DRIVERS = {{"550.90.07", "550", "90", "07", "12.4"},
            {"565.57.01", "565", "57", "01", "12.7"}};

    private FieldNode() {
    }

    /** -1 for a node without a GPU, else the index into the GPU models. */
    static int gpuModel(int i, boolean server) {
        if (server || i % 5 == 1) {
            return -1;
        }
        return (i / 5) % GPUS.length;
    }

    static String gpuCount(int i, boolean server) {
        int g = gpuModel(i, server);
        return g < 0 ? null : GPUS[g][1];
    }

    /** NFD's labels (feature.node.kubernetes.io/, short names) and GFD's / the GPU operator's (full keys). */
    static void labels(int i, boolean server, long gfdTimestamp, Map<String, String> labels) {
        Map<String, String> nfd = new TreeMap<>();
        for (String f : CPUID) {
            nfd.put("cpu-cpuid." + f, "true");
        }
        boolean avx512 = i % 3 == 0;
        if (avx512) {
            for (String f : AVX512) {
                nfd.put("cpu-cpuid." + f, "true");
            }
        }
        nfd.put("cpu-hardware_multithreading", "true");
        nfd.put("cpu-model.family", "6");
        nfd.put("cpu-model.id", avx512 ? "143" : "61");
        nfd.put("cpu-model.vendor_id", "Intel");
        nfd.put("kernel-config.NO_HZ", "true");
        nfd.put("kernel-config.NO_HZ_IDLE", "true");
        String[] kernel = KERNELS[i % KERNELS.length];
        nfd.put("kernel-version.full", kernel[0]);
        nfd.put("kernel-version.major", kernel[1]);
        nfd.put("kernel-version.minor", kernel[2]);
        nfd.put("kernel-version.revision", kernel[3]);
        nfd.put("memory-swap", "true");
        int g = gpuModel(i, server);
        if (g >= 0) {
            nfd.put("pci-10de.present", "true");
        }
        nfd.put("pci-1234.present", "true");
        nfd.put("pci-1af4.present", "true");
        nfd.put("system-os_release.ID", "ubuntu");
        nfd.put("system-os_release.VERSION_ID", "22.04");
        nfd.put("system-os_release.VERSION_ID.major", "22");
        nfd.put("system-os_release.VERSION_ID.minor", "04");
        nfd.forEach((k, v) -> labels.put("feature.node.kubernetes.io/" + k, v));
        if (g < 0) {
            return;
        }
        String[] gpu = GPUS[g];
        String[] drv = DRIVERS[i % DRIVERS.length];
        labels.put("nvidia.com/cuda.driver-version.full", drv[0]);
        labels.put("nvidia.com/cuda.driver-version.major", drv[1]);
        labels.put("nvidia.com/cuda.driver-version.minor", drv[2]);
        labels.put("nvidia.com/cuda.driver-version.revision", drv[3]);
        labels.put("nvidia.com/cuda.driver.major", drv[1]);
        labels.put("nvidia.com/cuda.driver.minor", drv[2]);
        labels.put("nvidia.com/cuda.driver.rev", drv[3]);
        labels.put("nvidia.com/cuda.runtime-version.full", drv[4]);
        labels.put("nvidia.com/cuda.runtime-version.major", drv[4].split("\\.")[0]);
        labels.put("nvidia.com/cuda.runtime-version.minor", drv[4].split("\\.")[1]);
        labels.put("nvidia.com/cuda.runtime.major", drv[4].split("\\.")[0]);
        labels.put("nvidia.com/cuda.runtime.minor", drv[4].split("\\.")[1]);
        labels.put("nvidia.com/gfd.timestamp", Long.toString(gfdTimestamp));
        labels.put("nvidia.com/gpu-driver-upgrade-state", "upgrade-done");
        labels.put("nvidia.com/gpu.compute.major", gpu[4].split("\\.")[0]);
        labels.put("nvidia.com/gpu.compute.minor", gpu[4].split("\\.")[1]);
        labels.put("nvidia.com/gpu.count", gpu[1]);
        for (String d : new String[]{"container-toolkit", "dcgm", "dcgm-exporter", "device-plugin",
                "gpu-feature-discovery", "node-status-exporter", "operator-validator"}) {
            labels.put("nvidia.com/gpu.deploy." + d, "true");
        }
        labels.put("nvidia.com/gpu.deploy.driver", "pre-installed");
        labels.put("nvidia.com/gpu.family", gpu[2]);
        labels.put("nvidia.com/gpu.machine", "true".equals(gpu[6]) ? "VCG" : "PowerEdge-XE9680");
        labels.put("nvidia.com/gpu.memory", gpu[3]);
        labels.put("nvidia.com/gpu.mode", "true".equals(gpu[6]) ? "graphics" : "compute");
        labels.put("nvidia.com/gpu.present", "true");
        labels.put("nvidia.com/gpu.product", gpu[0]);
        labels.put("nvidia.com/gpu.replicas", "1");
        labels.put("nvidia.com/gpu.sharing-strategy", "none");
        labels.put("nvidia.com/mig.capable", gpu[5]);
        labels.put("nvidia.com/mig.strategy", "single");
        labels.put("nvidia.com/mps.capable", "false");
        if ("true".equals(gpu[6])) {
            labels.put("nvidia.com/vgpu.host-driver-branch", "r551_40");
            labels.put("nvidia.com/vgpu.host-driver-version", "550.54.16");
            labels.put("nvidia.com/vgpu.present", "true");
        }
    }

    /** The labels NFD's master wrote: its feature labels and GFD's (not the GPU operator's deploy labels). */
    static List<String> nfdLabelKeys(Map<String, String> labels) {
        List<String> out = new ArrayList<>();
        for (String key : labels.keySet()) {
            if (key.startsWith("feature.node.kubernetes.io/")
                    || (key.startsWith("nvidia.com/") && !key.startsWith("nvidia.com/gpu.deploy.")
                    && !key.equals("nvidia.com/gpu.present") && !key.equals("nvidia.com/gpu-driver-upgrade-state"))) {
                out.add(key);
            }
        }
        return out;
    }

    /** The GPU operator's labels on the node. */
    static List<String> operatorLabelKeys(Map<String, String> labels) {
        List<String> out = new ArrayList<>();
        for (String key : labels.keySet()) {
            if (key.startsWith("nvidia.com/gpu.deploy.") || key.equals("nvidia.com/gpu.present")
                    || key.equals("nvidia.com/gpu-driver-upgrade-state")) {
                out.add(key);
            }
        }
        return out;
    }

    /** nfd.node.kubernetes.io/feature-labels: the names NFD's master manages, NFD's own without their prefix. */
    static String featureLabelsAnnotation(Map<String, String> labels) {
        StringBuilder s = new StringBuilder();
        for (String key : nfdLabelKeys(labels)) {
            if (s.length() > 0) {
                s.append(',');
            }
            s.append(key.startsWith("feature.node.kubernetes.io/") ? key.substring(27) : key);
        }
        return s.toString();
    }

    /** {"f:a":{},"f:b":{}} over keys, with "." first as the API server writes a map it tracks as a whole. */
    static String fieldSet(List<String> keys, boolean dot) {
        StringBuilder s = new StringBuilder("{");
        if (dot) {
            s.append("\".\":{}");
        }
        for (String k : keys) {
            if (s.length() > 1) {
                s.append(',');
            }
            s.append(Json.q("f:" + k)).append(":{}");
        }
        return s.append('}').toString();
    }

    /** The managedFields entries of the field-sized shape, besides the ones every shape has. */
    static List<String[]> managers(Map<String, String> labels, boolean gpu, Instant created) {
        List<String[]> out = new ArrayList<>();
        out.add(new String[]{"nfd-master", null, created.plusSeconds(95).toString(),
                "{\"f:metadata\":{\"f:annotations\":{\"f:nfd.node.kubernetes.io/feature-labels\":{}},\"f:labels\":"
                        + fieldSet(nfdLabelKeys(labels), false) + "}}"});
        if (gpu) {
            out.add(new String[]{"gpu-operator", null, created.plusSeconds(140).toString(),
                    "{\"f:metadata\":{\"f:annotations\":{\"f:nvidia.com/gpu-driver-upgrade-enabled\":{}},\"f:labels\":"
                            + fieldSet(operatorLabelKeys(labels), false) + "}}"});
        }
        return out;
    }
}
