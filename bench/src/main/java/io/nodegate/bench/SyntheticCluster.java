package io.nodegate.bench;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A deterministic RKE2 cluster of 3 servers and N-3 workers, shaped like a real one: field-sized GPU Nodes by default
 * ({@link FieldNode}: the labels, annotations, images and capacity of a real RKE2 GPU node, with the managedFields of
 * the kubelet, RKE2, kube-controller-manager, flanneld, node-feature-discovery and the GPU operator), or with
 * {@code light} the earlier lighter shape (~10 KB: 20 images, a few labels); 5 conditions; their Leases, node-password Secrets (plus Helm release Secrets
 * that make a kube-system LIST heavy, as on real clusters), CSINodes, DaemonSets, the default/kubernetes
 * EndpointSlice, control-plane Leases, and 6 DaemonSet pods per node.
 *
 * <p>Some nodes are in the states nodegate looks for: ~1% down for 3 days (Ready=Unknown, unreachable taints,
 * Lease frozen), ~2% cordoned, a few without Lease or node-password Secret, a few orphan Secrets, and pairs
 * sharing an InternalIP.
 */
final class SyntheticCluster {

    static final String[] DAEMONSETS = {
            "kube-system/rke2-canal", "kube-system/rke2-ingress-nginx-controller",
            "longhorn-system/longhorn-manager", "longhorn-system/engine-image-ei-db6c2b6f",
            "longhorn-system/longhorn-csi-plugin", "cattle-monitoring-system/rancher-monitoring-prometheus-node-exporter"};

    private static final String[] IMAGES = {
            "rancher/hardened-calico:v3.28.2-build20241016", "rancher/hardened-flannel:v0.25.7-build20241008",
            "rancher/nginx-ingress-controller:v1.10.5-hardened4", "longhornio/longhorn-manager:v1.7.2",
            "longhornio/longhorn-engine:v1.7.2", "longhornio/longhorn-instance-manager:v1.7.2",
            "longhornio/csi-node-driver-registrar:v2.12.0", "longhornio/csi-provisioner:v4.0.1-20241007",
            "longhornio/livenessprobe:v2.14.0", "rancher/mirrored-prometheus-node-exporter:v1.8.2",
            "rancher/rancher-agent:v2.9.3", "rancher/system-agent:v0.3.10-suc",
            "rancher/hardened-coredns:v1.11.3-build20241018", "rancher/mirrored-pause:3.6",
            "rancher/hardened-kubernetes:v1.31.4-rke2r1-build20241210", "registry.example.local/app/api:2026.10.3",
            "registry.example.local/app/worker:2026.10.3", "registry.example.local/ml/triton-server:24.09-py3",
            "docker.io/library/busybox:1.36.1", "quay.io/prometheus/blackbox-exporter:v0.25.0"};

    private static final DateTimeFormatter MICRO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
            .withZone(java.time.ZoneOffset.UTC);

    final int nodeCount;
    final Instant now;
    /** The earlier, lighter Node shape (no feature-discovery labels, 20 images) instead of the field-sized one. */
    final boolean light;
    final List<String> nodeNames = new ArrayList<>();
    final Map<String, Collection> collections = new LinkedHashMap<>();
    private final Random random = new Random(20261019L);
    private long resourceVersion = 88_000_000L;

    SyntheticCluster(int nodeCount, Instant now) {
        this(nodeCount, now, false);
    }

    SyntheticCluster(int nodeCount, Instant now, boolean light) {
        this.light = light;
        if (nodeCount < 4) {
            throw new IllegalArgumentException("need at least 4 nodes (3 servers + 1 worker)");
        }
        this.nodeCount = nodeCount;
        this.now = now.truncatedTo(ChronoUnit.SECONDS);
        for (int i = 0; i < nodeCount; i++) {
            nodeNames.add(i < 3 ? "rke2-server-" + (i + 1) : String.format("worker-%05d", i));
        }
        List<Item> nodes = new ArrayList<>();
        List<Item> leases = new ArrayList<>();
        List<Item> secrets = new ArrayList<>();
        List<Item> csiNodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            String uid = uid("node", i);
            nodes.add(node(i, uid));
            if (i % 499 != 3) {
                leases.add(nodeLease(i, uid));
            }
            if (i % 401 != 11) {
                secrets.add(nodePassword(nodeNames.get(i), uid));
            }
            csiNodes.add(csiNode(i, uid));
        }
        for (int k = 0; k < 5; k++) {
            secrets.add(nodePassword(String.format("retired-%03d", k), null));
        }
        for (int k = 0; k < 30; k++) {
            secrets.add(helmRelease(k));
        }
        secrets.add(opaqueSecret("rke2-serving", "kubernetes.io/tls", 4096));
        secrets.add(opaqueSecret("rke2-etcd-snapshot-s3", "Opaque", 512));
        secrets.add(opaqueSecret("rke2-encryption-provider-config", "Opaque", 1024));
        secrets.sort(java.util.Comparator.comparing(Item::name));

        collections.put("nodes", Collection.of("NodeList", "v1", nodes));
        collections.put("kube-node-lease/leases", Collection.of("LeaseList", "coordination.k8s.io/v1", leases));
        collections.put("kube-system/secrets", Collection.of("SecretList", "v1", secrets));
        collections.put("csinodes", Collection.of("CSINodeList", "storage.k8s.io/v1", csiNodes));
        collections.put("kube-system/leases", Collection.of("LeaseList", "coordination.k8s.io/v1",
                controlPlaneLeases()));
        collections.put("default/endpointslices", Collection.of("EndpointSliceList", "discovery.k8s.io/v1",
                endpointSlices()));
        collections.put("daemonsets", Collection.of("DaemonSetList", "apps/v1", daemonSets()));
        collections.put("cattle-system/jobs", Collection.of("JobList", "batch/v1", List.of()));
        collections.put("pods", new PodCollection());
    }

    long resourceVersion() {
        return resourceVersion;
    }

    private String rv() {
        return Long.toString(++resourceVersion);
    }

    static String uid(String kind, int i) {
        long h = (kind.hashCode() * 0x9E3779B97F4A7C15L) ^ (i * 0xC2B2AE3D27D4EB4FL);
        return String.format("%08x-%04x-4%03x-a%03x-%012x", (int) (h >>> 32), (int) (h >>> 16) & 0xffff,
                (int) (h >>> 4) & 0xfff, i & 0xfff, Math.abs(h * 31 + i) & 0xffffffffffffL);
    }

    private String hex(int chars) {
        StringBuilder s = new StringBuilder(chars);
        for (int i = 0; i < chars; i++) {
            s.append(Character.forDigit(random.nextInt(16), 16));
        }
        return s.toString();
    }

    String ip(int i) {
        int j = (i % 1000 == 999) ? i - 1 : i; // seed 002: two VMs whose first NIC has the same address
        return "10.20." + (j / 250) + "." + (j % 250 + 1);
    }

    boolean down(int i) {
        return i >= 3 && i % 97 == 5;
    }

    boolean cordoned(int i) {
        return i >= 3 && (i % 53 == 7 || down(i));
    }

    private String ts(Instant t) {
        return t.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private Item node(int i, String uid) {
        String name = nodeNames.get(i);
        boolean server = i < 3;
        Instant created = now.minus(200 + i % 50, ChronoUnit.DAYS);
        Instant lastBeat = down(i) ? now.minus(3, ChronoUnit.DAYS) : now.minusSeconds(i % 60);
        Map<String, String> labels = new TreeMap<>();
        labels.put("beta.kubernetes.io/arch", "amd64");
        labels.put("beta.kubernetes.io/instance-type", "rke2");
        labels.put("beta.kubernetes.io/os", "linux");
        labels.put("kubernetes.io/arch", "amd64");
        labels.put("kubernetes.io/hostname", name);
        labels.put("kubernetes.io/os", "linux");
        labels.put("node.kubernetes.io/instance-type", "rke2");
        labels.put("plan.upgrade.cattle.io/system-agent-upgrader", "6a0b4f3c1d2e8f7a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c");
        labels.put("topology.kubernetes.io/zone", "rack-" + (i % 8));
        if (server) {
            labels.put("node-role.kubernetes.io/control-plane", "true");
            labels.put("node-role.kubernetes.io/etcd", "true");
            labels.put("node-role.kubernetes.io/master", "true");
        } else {
            labels.put("node-role.kubernetes.io/worker", "true");
            if (light && i % 10 == 0) {
                labels.put("nvidia.com/gpu.present", "true");
            }
        }
        String gpus = light ? (i % 10 == 0 && !server ? "4" : null) : FieldNode.gpuCount(i, server);
        if (!light) {
            FieldNode.labels(i, server, created.plusSeconds(160).getEpochSecond(), labels);
        }
        Map<String, String> ann = new TreeMap<>();
        ann.put("alpha.kubernetes.io/provided-node-ip", ip(i));
        ann.put("csi.volume.kubernetes.io/nodeid", "{\"driver.longhorn.io\":\"" + name + "\"}");
        ann.put("flannel.alpha.coreos.com/backend-data", "{\"VNI\":1,\"VtepMAC\":\"" + mac(i) + "\"}");
        ann.put("flannel.alpha.coreos.com/backend-type", "vxlan");
        ann.put("flannel.alpha.coreos.com/kube-subnet-manager", "true");
        ann.put("flannel.alpha.coreos.com/public-ip", ip(i));
        ann.put("management.cattle.io/pod-limits", "{\"cpu\":\"2150m\",\"memory\":\"2402Mi\"}");
        ann.put("management.cattle.io/pod-requests", "{\"cpu\":\"1125m\",\"memory\":\"1358Mi\",\"pods\":\"14\"}");
        ann.put("node.alpha.kubernetes.io/ttl", "0");
        ann.put("rke2.io/encryption-config-hash", "start-" + hex(64));
        ann.put("rke2.io/hostname", name);
        ann.put("rke2.io/internal-ip", ip(i));
        ann.put("rke2.io/node-args", server
                ? "[\"server\",\"--cni\",\"canal\",\"--etcd-snapshot-schedule-cron\",\"0 */6 * * *\",\"--node-label\",\"topology.kubernetes.io/zone=rack-" + (i % 8) + "\"]"
                : "[\"agent\",\"--node-label\",\"node-role.kubernetes.io/worker=true\",\"--server\",\"https://10.20.0.1:9345\",\"--token\",\"********\"]");
        ann.put("rke2.io/node-config-hash", hex(52).toUpperCase() + "====");
        ann.put("volumes.kubernetes.io/controller-managed-attach-detach", "true");
        if (!light) {
            ann.put("nfd.node.kubernetes.io/feature-labels", FieldNode.featureLabelsAnnotation(labels));
            ann.put("rke2.io/node-env", "{}");
            if (gpus != null) {
                ann.put("nvidia.com/gpu-driver-upgrade-enabled", "true");
            }
        }
        if (server) {
            ann.put("etcd.rke2.cattle.io/local-snapshots-timestamp", ts(now.minus(2, ChronoUnit.HOURS)));
            ann.put("etcd.rke2.cattle.io/node-address", ip(i));
            ann.put("etcd.rke2.cattle.io/node-name", name + "-" + hex(8));
        }
        StringBuilder meta = new StringBuilder("{");
        meta.append("\"name\":").append(Json.q(name))
                .append(",\"uid\":").append(Json.q(uid))
                .append(",\"resourceVersion\":").append(Json.q(rv()))
                .append(",\"creationTimestamp\":").append(Json.q(ts(created)))
                .append(",\"labels\":").append(Json.map(labels))
                .append(",\"annotations\":").append(Json.map(ann));
        if (server) {
            meta.append(",\"finalizers\":[\"wrangler.cattle.io/node\",\"wrangler.cattle.io/managed-etcd-controller\"]");
        }
        meta.append(",\"managedFields\":[");
        if (!light) {
            meta.append(managed("kubelet", "Update", null, ts(created),
                    "{\"f:metadata\":{\"f:annotations\":{\".\":{},\"f:alpha.kubernetes.io/provided-node-ip\":{},\"f:volumes.kubernetes.io/controller-managed-attach-detach\":{}},\"f:labels\":{\".\":{},\"f:beta.kubernetes.io/arch\":{},\"f:beta.kubernetes.io/instance-type\":{},\"f:beta.kubernetes.io/os\":{},\"f:kubernetes.io/arch\":{},\"f:kubernetes.io/hostname\":{},\"f:kubernetes.io/os\":{},\"f:node.kubernetes.io/instance-type\":{}}},\"f:spec\":{\"f:providerID\":{}}}"))
                    .append(',');
            for (String[] m : FieldNode.managers(labels, gpus != null, created)) {
                meta.append(managed(m[0], "Update", m[1], m[2], m[3])).append(',');
            }
        }
        meta.append(managed("rke2", "Update", null, ts(created),
                        "{\"f:metadata\":{\"f:annotations\":{\".\":{},\"f:rke2.io/hostname\":{},\"f:rke2.io/internal-ip\":{},\"f:rke2.io/node-args\":{},\"f:rke2.io/node-config-hash\":{}},\"f:labels\":{\"f:node-role.kubernetes.io/worker\":{}}}}"))
                .append(',')
                .append(managed("kube-controller-manager", "Update", null, ts(created.plusSeconds(12)),
                        "{\"f:metadata\":{\"f:annotations\":{\"f:node.alpha.kubernetes.io/ttl\":{}}},\"f:spec\":{\"f:podCIDR\":{},\"f:podCIDRs\":{\".\":{},\"v:\\\"10.42." + (i % 256) + ".0/24\\\"\":{}}}}"))
                .append(',')
                .append(managed("flanneld", "Update", "status", ts(created.plusSeconds(20)),
                        "{\"f:metadata\":{\"f:annotations\":{\"f:flannel.alpha.coreos.com/backend-data\":{},\"f:flannel.alpha.coreos.com/backend-type\":{},\"f:flannel.alpha.coreos.com/kube-subnet-manager\":{},\"f:flannel.alpha.coreos.com/public-ip\":{}}},\"f:status\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"NetworkUnavailable\\\"}\":{\".\":{},\"f:lastHeartbeatTime\":{},\"f:lastTransitionTime\":{},\"f:message\":{},\"f:reason\":{},\"f:status\":{},\"f:type\":{}}}}}"))
                .append(',')
                .append(managed("kubelet", "Update", "status", ts(lastBeat),
                        "{\"f:status\":{\"f:allocatable\":{\"f:cpu\":{},\"f:ephemeral-storage\":{},\"f:memory\":{}" + (gpus != null && !light ? ",\"f:nvidia.com/gpu\":{}" : "") + "},\"f:capacity\":{\"f:cpu\":{},\"f:memory\":{}" + (gpus != null && !light ? ",\"f:nvidia.com/gpu\":{}" : "") + "},"
                        + "\"f:conditions\":{\"k:{\\\"type\\\":\\\"DiskPressure\\\"}\":{\"f:lastHeartbeatTime\":{}},\"k:{\\\"type\\\":\\\"MemoryPressure\\\"}\":{\"f:lastHeartbeatTime\":{}},\"k:{\\\"type\\\":\\\"PIDPressure\\\"}\":{\"f:lastHeartbeatTime\":{}},\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\"f:lastHeartbeatTime\":{},\"f:lastTransitionTime\":{},\"f:message\":{},\"f:reason\":{},\"f:status\":{}}},\"f:images\":{},\"f:nodeInfo\":{\"f:bootID\":{},\"f:kernelVersion\":{}}}}"))
                .append(']');
        meta.append('}');

        StringBuilder taints = new StringBuilder("[");
        if (server) {
            taints.append("{\"key\":\"node-role.kubernetes.io/control-plane\",\"effect\":\"NoSchedule\"}");
        }
        if (cordoned(i)) {
            sep(taints).append("{\"key\":\"node.kubernetes.io/unschedulable\",\"effect\":\"NoSchedule\",\"timeAdded\":")
                    .append(Json.q(ts(now.minus(4, ChronoUnit.DAYS)))).append('}');
        }
        if (down(i)) {
            sep(taints).append("{\"key\":\"node.kubernetes.io/unreachable\",\"effect\":\"NoSchedule\",\"timeAdded\":")
                    .append(Json.q(ts(lastBeat.plusSeconds(52)))).append('}');
            taints.append(",{\"key\":\"node.kubernetes.io/unreachable\",\"effect\":\"NoExecute\",\"timeAdded\":")
                    .append(Json.q(ts(lastBeat.plusSeconds(57)))).append('}');
        }
        taints.append(']');

        String readyStatus = down(i) ? "Unknown" : "True";
        StringBuilder conditions = new StringBuilder("[");
        conditions.append(condition("NetworkUnavailable", "False", "FlannelIsUp", "Flannel is running on this node",
                created.plusSeconds(20), created.plusSeconds(20)));
        for (String[] c : new String[][]{
                {"MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
                {"DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
                {"PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"}}) {
            conditions.append(',').append(down(i)
                    ? condition(c[0], "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.",
                    lastBeat, lastBeat.plusSeconds(52))
                    : condition(c[0], "False", c[1], c[2], lastBeat, created));
        }
        conditions.append(',').append(down(i)
                ? condition("Ready", readyStatus, "NodeStatusUnknown", "Kubelet stopped posting node status.",
                lastBeat, lastBeat.plusSeconds(52))
                : condition("Ready", readyStatus, "KubeletReady", "kubelet is posting ready status", lastBeat,
                now.minus(9, ChronoUnit.DAYS)));
        conditions.append(']');

        StringBuilder images = new StringBuilder("[");
        for (int k = 0; !light && k < FieldNode.IMAGES.length; k++) {
            if (k > 0) {
                images.append(',');
            }
            String full = FieldNode.IMAGES[k][0];
            images.append("{\"names\":[").append(Json.q(full.substring(0, full.lastIndexOf(':')) + "@sha256:" + hex(64)))
                    .append(',').append(Json.q(full)).append("],\"sizeBytes\":").append(FieldNode.IMAGES[k][1])
                    .append('}');
        }
        for (int k = 0; light && k < IMAGES.length; k++) {
            if (k > 0) {
                images.append(',');
            }
            String image = IMAGES[k];
            String repo = image.substring(0, image.lastIndexOf(':'));
            String full = image.contains(".") && image.indexOf('.') < image.indexOf('/') ? image : "docker.io/" + image;
            String fullRepo = full.substring(0, full.lastIndexOf(':'));
            images.append("{\"names\":[").append(Json.q(fullRepo + "@sha256:" + hex(64))).append(',')
                    .append(Json.q(full)).append("],\"sizeBytes\":").append(20_000_000 + (repo.hashCode() & 0x3fffffff) % 900_000_000)
                    .append('}');
        }
        images.append(']');

        String cpu = light ? (i % 10 == 0 ? "64" : "16") : gpus == null ? "32" : Integer.toString(16 * Integer.parseInt(gpus));
        String rest = "\"apiVersion\":\"v1\",\"kind\":\"Node\""
                + ",\"spec\":{\"podCIDR\":\"10.42." + (i % 256) + ".0/24\",\"podCIDRs\":[\"10.42." + (i % 256) + ".0/24\"]"
                + ",\"providerID\":\"rke2://" + name + "\""
                + (cordoned(i) ? ",\"unschedulable\":true" : "")
                + (taints.length() > 2 ? ",\"taints\":" + taints : "") + "}"
                + ",\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"" + ip(i) + "\"},{\"type\":\"Hostname\",\"address\":\"" + name + "\"}]"
                + ",\"allocatable\":{\"cpu\":\"" + cpu + "\",\"ephemeral-storage\":\"190246392422\",\"hugepages-1Gi\":\"0\",\"hugepages-2Mi\":\"0\",\"memory\":\"65548136Ki\",\"pods\":\"110\""
                + (gpus != null ? ",\"nvidia.com/gpu\":\"" + gpus + "\"" : "") + "}"
                + ",\"capacity\":{\"cpu\":\"" + cpu + "\",\"ephemeral-storage\":\"195562968Ki\",\"hugepages-1Gi\":\"0\",\"hugepages-2Mi\":\"0\",\"memory\":\"65650536Ki\",\"pods\":\"110\""
                + (gpus != null ? ",\"nvidia.com/gpu\":\"" + gpus + "\"" : "") + "}"
                + ",\"conditions\":" + conditions
                + ",\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":10250}}"
                + ",\"images\":" + images
                + ",\"nodeInfo\":{\"architecture\":\"amd64\",\"bootID\":\"" + uid("boot", i) + "\""
                + ",\"containerRuntimeVersion\":\"containerd://1.7.23-k3s2\",\"kernelVersion\":\"5.15.0-" + (122 + i % 3) + "-generic\""
                + ",\"kubeProxyVersion\":\"v1.31.4+rke2r1\",\"kubeletVersion\":\"v1.31.4+rke2r1\""
                + ",\"machineID\":\"" + uid("machine", i).replace("-", "") + "\",\"operatingSystem\":\"linux\""
                + ",\"osImage\":\"Ubuntu 22.04.5 LTS\",\"systemUUID\":\"" + uid("smbios", i).toUpperCase() + "\"}}";
        return Item.of(name, null, labels, Map.of("metadata.name", name), meta.toString(), rest);
    }

    private static StringBuilder sep(StringBuilder list) {
        if (list.length() > 1) {
            list.append(',');
        }
        return list;
    }

    private String mac(int i) {
        return String.format("6e:%02x:%02x:%02x:%02x:%02x", (i >> 24) & 0xff, (i >> 16) & 0xff, (i >> 8) & 0xff,
                i & 0xff, random.nextInt(256));
    }

    private static String condition(String type, String status, String reason, String message, Instant heartbeat,
                                    Instant transition) {
        return "{\"type\":\"" + type + "\",\"status\":\"" + status + "\",\"lastHeartbeatTime\":\""
                + heartbeat.truncatedTo(ChronoUnit.SECONDS) + "\",\"lastTransitionTime\":\""
                + transition.truncatedTo(ChronoUnit.SECONDS) + "\",\"reason\":\"" + reason + "\",\"message\":"
                + Json.q(message) + "}";
    }

    private static String managed(String manager, String operation, String subresource, String time,
                                  String fields) {
        return "{\"manager\":\"" + manager + "\",\"operation\":\"" + operation + "\",\"apiVersion\":\"v1\",\"time\":\""
                + time + "\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":" + fields
                + (subresource == null ? "" : ",\"subresource\":\"" + subresource + "\"") + "}";
    }

    private static String owner(String nodeName, String nodeUid) {
        return "[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":" + Json.q(nodeName) + ",\"uid\":\"" + nodeUid
                + "\"}]";
    }

    private Item nodeLease(int i, String nodeUid) {
        String name = nodeNames.get(i);
        Instant renew = down(i) ? now.minus(3, ChronoUnit.DAYS) : now.minusSeconds(i % 10);
        String meta = "{\"name\":" + Json.q(name) + ",\"namespace\":\"kube-node-lease\",\"uid\":\"" + uid("lease", i)
                + "\",\"resourceVersion\":\"" + rv() + "\",\"creationTimestamp\":\""
                + ts(now.minus(200 + i % 50, ChronoUnit.DAYS)) + "\",\"ownerReferences\":" + owner(name, nodeUid)
                + ",\"managedFields\":[" + managed("kubelet", "Update", null, ts(renew),
                "{\"f:metadata\":{\"f:ownerReferences\":{\".\":{},\"k:{\\\"uid\\\":\\\"" + nodeUid + "\\\"}\":{}}},\"f:spec\":{\"f:holderIdentity\":{},\"f:leaseDurationSeconds\":{},\"f:renewTime\":{}}}")
                .replace("\"apiVersion\":\"v1\"", "\"apiVersion\":\"coordination.k8s.io/v1\"") + "]}";
        String rest = "\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"spec\":{\"holderIdentity\":"
                + Json.q(name) + ",\"leaseDurationSeconds\":40,\"renewTime\":\"" + MICRO.format(renew) + "\"}";
        return Item.of(name, "kube-node-lease", Map.of(), Map.of("metadata.name", name), meta, rest);
    }

    private Item nodePassword(String nodeName, String nodeUid) {
        String name = nodeName + ".node-password.rke2";
        String meta = "{\"name\":" + Json.q(name) + ",\"namespace\":\"kube-system\",\"uid\":\""
                + uid("secret", name.hashCode()) + "\",\"resourceVersion\":\"" + rv() + "\",\"creationTimestamp\":\""
                + ts(now.minus(200, ChronoUnit.DAYS)) + "\""
                + (nodeUid == null ? "" : ",\"ownerReferences\":" + owner(nodeName, nodeUid))
                + ",\"managedFields\":[" + managed("rke2", "Update", null, ts(now.minus(200, ChronoUnit.DAYS)),
                "{\"f:data\":{\".\":{},\"f:hash\":{}},\"f:immutable\":{},\"f:type\":{}}") + "]}";
        String hash = Base64.getEncoder().encodeToString(("$1:" + hex(16) + ":15:8:1:" + hex(64))
                .getBytes(StandardCharsets.UTF_8));
        String rest = "\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"immutable\":true,\"type\":\"rke2.cattle.io/node-password\""
                + ",\"data\":{\"hash\":\"" + hash + "\"}";
        return Item.of(name, "kube-system", Map.of(), Map.of("metadata.name", name, "type",
                "rke2.cattle.io/node-password"), meta, rest);
    }

    private Item helmRelease(int k) {
        String release = new String[]{"rke2-canal", "rke2-coredns", "rke2-ingress-nginx", "rke2-metrics-server",
                "rke2-snapshot-controller", "rke2-snapshot-controller-crd"}[k % 6];
        String name = "sh.helm.release.v1." + release + ".v" + (k / 6 + 1);
        Map<String, String> labels = new TreeMap<>(Map.of("name", release, "owner", "helm",
                "status", k / 6 == 4 ? "deployed" : "superseded", "version", Integer.toString(k / 6 + 1)));
        byte[] blob = new byte[12_000];
        random.nextBytes(blob);
        String meta = "{\"name\":" + Json.q(name) + ",\"namespace\":\"kube-system\",\"uid\":\"" + uid("helm", k)
                + "\",\"resourceVersion\":\"" + rv() + "\",\"creationTimestamp\":\""
                + ts(now.minus(100 - k, ChronoUnit.DAYS)) + "\",\"labels\":" + Json.map(labels) + "}";
        String rest = "\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"type\":\"helm.sh/release.v1\",\"data\":{\"release\":\""
                + Base64.getEncoder().encodeToString(blob) + "\"}";
        return Item.of(name, "kube-system", labels, Map.of("metadata.name", name, "type", "helm.sh/release.v1"),
                meta, rest);
    }

    private Item opaqueSecret(String name, String type, int size) {
        byte[] blob = new byte[size];
        random.nextBytes(blob);
        String meta = "{\"name\":" + Json.q(name) + ",\"namespace\":\"kube-system\",\"uid\":\"" + uid("s", name.hashCode())
                + "\",\"resourceVersion\":\"" + rv() + "\",\"creationTimestamp\":\""
                + ts(now.minus(200, ChronoUnit.DAYS)) + "\"}";
        String rest = "\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"type\":\"" + type + "\",\"data\":{\"payload\":\""
                + Base64.getEncoder().encodeToString(blob) + "\"}";
        return Item.of(name, "kube-system", Map.of(), Map.of("metadata.name", name, "type", type), meta, rest);
    }

    private Item csiNode(int i, String nodeUid) {
        String name = nodeNames.get(i);
        String meta = "{\"name\":" + Json.q(name) + ",\"uid\":\"" + uid("csinode", i) + "\",\"resourceVersion\":\""
                + rv() + "\",\"creationTimestamp\":\"" + ts(now.minus(200 + i % 50, ChronoUnit.DAYS))
                + "\",\"annotations\":{\"storage.alpha.kubernetes.io/migrated-plugins\":\"kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/azure-file,kubernetes.io/cinder,kubernetes.io/gce-pd,kubernetes.io/vsphere-volume\"}"
                + ",\"ownerReferences\":" + owner(name, nodeUid) + "}";
        String rest = "\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"CSINode\",\"spec\":{\"drivers\":[{\"name\":\"driver.longhorn.io\",\"nodeID\":"
                + Json.q(name) + ",\"topologyKeys\":null}]}";
        return Item.of(name, null, Map.of(), Map.of("metadata.name", name), meta, rest);
    }

    private List<Item> controlPlaneLeases() {
        List<Item> out = new ArrayList<>();
        String[][] leases = {
                {"apiserver-2x6hmyzbjnbtvkhdtc7zkfbzty", "rke2-server-1_" + uid("ident", 1)},
                {"apiserver-4jzr5rwxm2mjbqsjx6gm4kwwpa", "rke2-server-2_" + uid("ident", 2)},
                {"apiserver-ltgkz5sc2zkpvmh7hrrfm4q5ly", "rke2-server-3_" + uid("ident", 3)},
                {"kube-controller-manager", "rke2-server-2_" + uid("kcm", 2)},
                {"kube-scheduler", "rke2-server-1_" + uid("sched", 1)},
                {"cloud-controller-manager", "rke2-server-3_" + uid("ccm", 3)},
                {"rke2", "rke2-server-1"},
                {"rke2-etcd", "rke2-server-1"},
                {"external-snapshotter-leader-rke2", "rke2-snapshot-controller-" + hex(10) + "-" + hex(5)}};
        for (int k = 0; k < leases.length; k++) {
            String name = leases[k][0];
            Map<String, String> labels = name.startsWith("apiserver-")
                    ? Map.of("apiserver.kubernetes.io/identity", "kube-apiserver", "kubernetes.io/hostname",
                    "rke2-server-" + (k + 1)) : Map.of();
            String meta = "{\"name\":\"" + name + "\",\"namespace\":\"kube-system\",\"uid\":\"" + uid("cplease", k)
                    + "\",\"resourceVersion\":\"" + rv() + "\",\"creationTimestamp\":\""
                    + ts(now.minus(200, ChronoUnit.DAYS)) + "\",\"labels\":" + Json.map(new TreeMap<>(labels)) + "}";
            String rest = "\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"spec\":{\"holderIdentity\":"
                    + Json.q(leases[k][1]) + ",\"leaseDurationSeconds\":" + (name.startsWith("apiserver-") ? 3600 : 15)
                    + ",\"acquireTime\":\"" + MICRO.format(now.minus(9, ChronoUnit.DAYS)) + "\",\"renewTime\":\""
                    + MICRO.format(now.minusSeconds(k % 3)) + "\",\"leaseTransitions\":" + (k % 4) + "}";
            out.add(Item.of(name, "kube-system", labels, Map.of("metadata.name", name), meta, rest));
        }
        out.sort(java.util.Comparator.comparing(Item::name));
        return out;
    }

    private List<Item> endpointSlices() {
        List<Item> out = new ArrayList<>();
        StringBuilder endpoints = new StringBuilder("[");
        for (int i = 0; i < 3; i++) {
            if (i > 0) {
                endpoints.append(',');
            }
            endpoints.append("{\"addresses\":[\"").append(ip(i)).append("\"],\"conditions\":{\"ready\":true}}");
        }
        endpoints.append(']');
        Map<String, String> labels = Map.of("kubernetes.io/service-name", "kubernetes",
                "endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io");
        out.add(Item.of("kubernetes", "default", labels, Map.of("metadata.name", "kubernetes"),
                "{\"name\":\"kubernetes\",\"namespace\":\"default\",\"uid\":\"" + uid("eps", 0)
                        + "\",\"resourceVersion\":\"" + rv() + "\",\"creationTimestamp\":\""
                        + ts(now.minus(200, ChronoUnit.DAYS)) + "\",\"labels\":" + Json.map(new TreeMap<>(labels)) + "}",
                "\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\",\"addressType\":\"IPv4\",\"endpoints\":"
                        + endpoints + ",\"ports\":[{\"name\":\"https\",\"port\":6443,\"protocol\":\"TCP\"}]"));
        Map<String, String> other = Map.of("kubernetes.io/service-name", "kubernetes-dashboard-proxy",
                "endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io");
        out.add(Item.of("kubernetes-dashboard-proxy-7sk2p", "default", other,
                Map.of("metadata.name", "kubernetes-dashboard-proxy-7sk2p"),
                "{\"name\":\"kubernetes-dashboard-proxy-7sk2p\",\"namespace\":\"default\",\"uid\":\"" + uid("eps", 1)
                        + "\",\"resourceVersion\":\"" + rv() + "\",\"labels\":" + Json.map(new TreeMap<>(other)) + "}",
                "\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\",\"addressType\":\"IPv4\",\"endpoints\":[{\"addresses\":[\"10.42.9.17\"]}],\"ports\":[{\"port\":8443}]"));
        return out;
    }

    private List<Item> daemonSets() {
        List<Item> out = new ArrayList<>();
        int up = 0;
        for (int i = 0; i < nodeCount; i++) {
            if (!down(i)) {
                up++;
            }
        }
        for (int k = 0; k < DAEMONSETS.length; k++) {
            String ns = DAEMONSETS[k].split("/")[0];
            String name = DAEMONSETS[k].split("/")[1];
            String meta = "{\"name\":\"" + name + "\",\"namespace\":\"" + ns + "\",\"uid\":\"" + uid("ds", k)
                    + "\",\"resourceVersion\":\"" + rv() + "\",\"generation\":" + (3 + k) + ",\"creationTimestamp\":\""
                    + ts(now.minus(200, ChronoUnit.DAYS)) + "\",\"labels\":{\"app\":\"" + name + "\"}}";
            String rest = "\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\""
                    + name + "\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"" + name
                    + "\"}},\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"" + IMAGES[k] + "\"}],"
                    + "\"tolerations\":[{\"operator\":\"Exists\"}]}},\"updateStrategy\":{\"type\":\"RollingUpdate\"}}"
                    + ",\"status\":{\"currentNumberScheduled\":" + nodeCount + ",\"desiredNumberScheduled\":" + nodeCount
                    + ",\"numberAvailable\":" + up + ",\"numberMisscheduled\":0,\"numberReady\":" + up
                    + ",\"numberUnavailable\":" + (nodeCount - up) + ",\"observedGeneration\":" + (3 + k)
                    + ",\"updatedNumberScheduled\":" + nodeCount + "}";
            out.add(Item.of(name, ns, Map.of("app", name), Map.of("metadata.name", name, "metadata.namespace", ns),
                    meta, rest));
        }
        out.sort(java.util.Comparator.comparing((Item it) -> it.namespace() + "/" + it.name()));
        return out;
    }

    /** Pods are many (6 per node): generated on demand by index rather than kept in memory. */
    final class PodCollection implements Collection {

        public String kind() {
            return "PodList";
        }

        public String apiVersion() {
            return "v1";
        }

        public int size() {
            return nodeCount * DAEMONSETS.length;
        }

        /** Index order = namespace/name order is not needed here; real LIST order is by key, any stable order will do. */
        public Item get(int index) {
            int node = index / DAEMONSETS.length;
            int ds = index % DAEMONSETS.length;
            String ns = DAEMONSETS[ds].split("/")[0];
            String dsName = DAEMONSETS[ds].split("/")[1];
            String nodeName = nodeNames.get(node);
            String name = dsName + "-" + Integer.toString(node, 36) + "x" + ds;
            String phase = down(node) ? "Running" : "Running";
            String meta = "{\"name\":\"" + name + "\",\"namespace\":\"" + ns + "\",\"uid\":\"" + uid("pod", index)
                    + "\",\"resourceVersion\":\"" + (88_000_000L + index) + "\",\"creationTimestamp\":\""
                    + now.minus(30, ChronoUnit.DAYS) + "\",\"labels\":{\"app\":\"" + dsName
                    + "\"},\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"name\":\"" + dsName
                    + "\",\"uid\":\"" + uid("ds", ds) + "\",\"controller\":true,\"blockOwnerDeletion\":true}]}";
            String rest = "\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"spec\":{\"nodeName\":\"" + nodeName
                    + "\",\"containers\":[{\"name\":\"main\",\"image\":\"" + IMAGES[ds] + "\"}],\"tolerations\":[{\"operator\":\"Exists\"}]}"
                    + ",\"status\":{\"phase\":\"" + phase + "\",\"hostIP\":\"" + ip(node) + "\",\"podIP\":\"10.42."
                    + (node % 256) + "." + (ds + 2) + "\",\"conditions\":[{\"type\":\"Ready\",\"status\":\""
                    + (down(node) ? "False" : "True") + "\"}]}";
            return Item.of(name, ns, Map.of("app", dsName), Map.of("metadata.name", name, "metadata.namespace", ns,
                    "spec.nodeName", nodeName, "status.phase", phase), meta, rest);
        }
    }
}
