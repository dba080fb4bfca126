package io.nodegate.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.nodegate.model.ApiEndpoints;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.Condition;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdMember;
import io.nodegate.model.EtcdStatus;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeSystemInfo;
import io.nodegate.model.PodInfo;
import io.nodegate.model.Taint;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Builders for control-plane scenarios (views, redundancy) and the seed clusters 001 and 003, as ClusterState
 * values. Seed numbers are the ones in the field reports; IP addresses are made up (the reports redact them).
 */
public final class ControlPlaneFixtures {

    /** 2026-08-15, the day the seed 003 cluster was measured. */
    public static final Instant NOW = Instant.parse("2026-08-15T05:00:00Z");
    public static final String K3S_1_35 = "v1.35.4+k3s1";
    public static final String K3S_1_27 = "v1.27.9+k3s1";

    public static final String ETCD_ONLY_ARGS =
            "[\"server\",\"--disable-apiserver\",\"true\",\"--disable-controller-manager\",\"true\","
                    + "\"--disable-scheduler\",\"true\",\"--server\",\"https://192.168.10.11:6443\","
                    + "\"--token\",\"********\"]";
    public static final String SERVER_ARGS = "[\"server\",\"--server\",\"https://192.168.10.11:6443\","
            + "\"--token\",\"********\"]";
    public static final String AGENT_ARGS = "[\"agent\",\"--server\",\"https://192.168.10.11:6443\","
            + "\"--token\",\"********\"]";

    private ControlPlaneFixtures() {
    }

    // ---------------------------------------------------------------- nodes

    public static NodeBuilder node(String name) {
        return new NodeBuilder(name);
    }

    public static final class NodeBuilder {
        private final String name;
        private String uid;
        private Instant created = NOW.minus(Duration.ofDays(100));
        private final Map<String, String> labels = new LinkedHashMap<>();
        private final Map<String, String> annotations = new LinkedHashMap<>();
        private final List<Taint> taints = new ArrayList<>();
        private final List<NodeInfo.NodeAddress> addresses = new ArrayList<>();
        private String ready = "True";
        private String kubelet = K3S_1_35;
        private String cpu = "4";

        private NodeBuilder(String name) {
            this.name = name;
            this.uid = UUID.nameUUIDFromBytes(("node/" + name).getBytes()).toString();
            labels.put("kubernetes.io/hostname", name);
        }

        public NodeBuilder uid(String value) {
            uid = value;
            return this;
        }

        public NodeBuilder created(Instant value) {
            created = value;
            return this;
        }

        public NodeBuilder age(Duration age) {
            created = NOW.minus(age);
            return this;
        }

        public NodeBuilder roles(String... roles) {
            for (String r : roles) {
                labels.put(NodeInfo.ROLE_PREFIX + r, "true");
            }
            return this;
        }

        public NodeBuilder ip(String internalIp) {
            addresses.add(new NodeInfo.NodeAddress("InternalIP", internalIp));
            return this;
        }

        public NodeBuilder annotation(String key, String value) {
            annotations.put(key, value);
            return this;
        }

        public NodeBuilder k3sArgs(String json) {
            return annotation("k3s.io/node-args", json);
        }

        public NodeBuilder rke2Args(String json) {
            return annotation("rke2.io/node-args", json);
        }

        public NodeBuilder taint(String key, String value, String effect) {
            taints.add(new Taint(key, value, effect, null));
            return this;
        }

        /** "True", "False", "Unknown", or null for a Node without a Ready condition. */
        public NodeBuilder ready(String status) {
            ready = status;
            return this;
        }

        public NodeBuilder kubelet(String version) {
            kubelet = version;
            return this;
        }

        public NodeBuilder cpu(String value) {
            cpu = value;
            return this;
        }

        public NodeInfo build() {
            List<Condition> conditions = new ArrayList<>();
            if (ready != null) {
                String reason = switch (ready) {
                    case "True" -> "KubeletReady";
                    case "False" -> "KubeletNotReady";
                    default -> "NodeStatusUnknown";
                };
                conditions.add(new Condition("Ready", ready, reason, null, NOW.minusSeconds(5), created));
            }
            NodeSystemInfo info = new NodeSystemInfo("boot-" + name, "uuid-" + name, "machine-" + name,
                    "6.8.0", "Ubuntu 24.04", kubelet, "containerd://2.2.3-k3s1");
            return new NodeInfo(name, uid, "1", created, labels, annotations, taints, false, null, addresses,
                    conditions, info, Map.of("cpu", cpu));
        }
    }

    // ---------------------------------------------------------------- cluster state

    public static StateBuilder state() {
        return new StateBuilder();
    }

    public static final class StateBuilder {
        private Instant now = NOW;
        private String source = "fixture";
        private String context;
        private String server;
        private String serverVersion = K3S_1_35;
        private final List<NodeInfo> nodes = new ArrayList<>();
        private ApiEndpoints endpoints = ApiEndpoints.NONE;
        private final List<LeaseInfo> leases = new ArrayList<>();
        private List<PodInfo> pods;
        private final List<EtcdEndpointReport> etcd = new ArrayList<>();
        private final List<String> notes = new ArrayList<>();

        public StateBuilder source(String value) {
            source = value;
            return this;
        }

        public StateBuilder context(String value) {
            context = value;
            return this;
        }

        public StateBuilder server(String url) {
            server = url;
            return this;
        }

        public StateBuilder serverVersion(String value) {
            serverVersion = value;
            return this;
        }

        public StateBuilder now(Instant value) {
            now = value;
            return this;
        }

        public StateBuilder node(NodeBuilder node) {
            nodes.add(node.build());
            return this;
        }

        public StateBuilder node(NodeInfo node) {
            nodes.add(node);
            return this;
        }

        /** default/kubernetes endpoint addresses (ready ones), port 6443. */
        public StateBuilder apiEndpoints(String... addresses) {
            endpoints = new ApiEndpoints(List.of(addresses), 6443);
            return this;
        }

        /** A kube-system leader-election Lease held by {@code <node>_<uuid>}, renewed 1 s before now. */
        public StateBuilder leaderLease(String leaseName, String holderNode) {
            String holder = holderNode == null ? null
                    : holderNode + "_" + UUID.nameUUIDFromBytes((leaseName + holderNode).getBytes());
            leases.add(new LeaseInfo("kube-system", leaseName, "uid-" + leaseName, NOW.minus(Duration.ofDays(100)),
                    holder, now.minusSeconds(1), 15));
            return this;
        }

        public StateBuilder lease(LeaseInfo lease) {
            leases.add(lease);
            return this;
        }

        /** {@code count} pods in the given phase on a node (pods become "read": Collected.of). */
        public StateBuilder pods(String nodeName, String phase, int count) {
            if (pods == null) {
                pods = new ArrayList<>();
            }
            for (int i = 0; i < count; i++) {
                String podName = nodeName + "-" + phase.toLowerCase() + "-" + i;
                pods.add(new PodInfo("apps", podName, "uid-" + podName, nodeName, phase, "ReplicaSet", null));
            }
            return this;
        }

        public StateBuilder noPodsRead() {
            pods = null;
            return this;
        }

        public StateBuilder etcd(EtcdEndpointReport report) {
            etcd.add(report);
            return this;
        }

        /** One answering endpoint per voter, all reporting the same cluster and member list. */
        public StateBuilder etcdCluster(long clusterId, EtcdMember... members) {
            for (EtcdMember m : members) {
                String endpoint = m.clientUrls().isEmpty() ? m.name() : m.clientUrls().get(0);
                etcd.add(new EtcdEndpointReport(endpoint,
                        new EtcdStatus(clusterId, m.id(), members[0].id(), 7, 1000, "3.5.21", 50_000_000, false),
                        clusterId, List.of(members), null));
            }
            return this;
        }

        public StateBuilder note(String note) {
            notes.add(note);
            return this;
        }

        public ClusterState build() {
            List<NodeInfo> sorted = nodes.stream().sorted(Comparator.comparing(NodeInfo::name)).toList();
            List<LeaseInfo> sortedLeases = leases.stream().sorted(Comparator.comparing(LeaseInfo::name)).toList();
            return ClusterState.builder(now, source).context(context).server(server).serverVersion(serverVersion)
                    .nodes(sorted).apiEndpoints(endpoints).controlPlaneLeases(sortedLeases)
                    .pods(pods == null ? Collected.absent() : Collected.of(pods)).etcd(etcd).notes(notes).build();
        }
    }

    public static EtcdMember member(long id, String name, String ip) {
        return new EtcdMember(id, name, List.of("https://" + ip + ":2380"), List.of("https://" + ip + ":2379"), false);
    }

    public static EtcdMember learner(long id, String name, String ip) {
        return new EtcdMember(id, name, List.of("https://" + ip + ":2380"), List.of("https://" + ip + ":2379"), true);
    }

    // ---------------------------------------------------------------- seed 003: redundancy per role

    public static final String LEMUEL_IP = "192.168.10.11";
    public static final String ILWON_IP = "192.168.10.12";
    public static final String SOLOMON_IP = "192.168.10.13";

    /**
     * Seed 003's six nodes on k3s v1.35.4: three servers (lemuel and ilwon serve the API, solomon runs with
     * disable-apiserver/-scheduler/-controller-manager and is an etcd voter only), three workers. Taints:
     * lemuel NoSchedule (6 pods), ilwon PreferNoSchedule (34), solomon dedicated=storage:NoSchedule (6).
     * Running pods 146 in all, plus Succeeded backup pods that must not count.
     */
    public static StateBuilder seed003() {
        return state().source("seed 003 home-lab k3s").serverVersion(K3S_1_35)
                .node(node("lemuel").roles("control-plane", "etcd", "master").ip(LEMUEL_IP).cpu("4")
                        .age(Duration.ofDays(116)).k3sArgs("[\"server\",\"--cluster-init\",\"true\"]")
                        .taint("node-role.kubernetes.io/control-plane", null, "NoSchedule"))
                .node(node("ilwon").roles("control-plane", "etcd", "master").ip(ILWON_IP).cpu("12")
                        .k3sArgs(SERVER_ARGS).taint("dedicated", "management", "PreferNoSchedule"))
                .node(node("solomon").roles("control-plane", "etcd", "master").ip(SOLOMON_IP).cpu("4")
                        .k3sArgs(ETCD_ONLY_ARGS).taint("dedicated", "storage", "NoSchedule"))
                .node(node("david").ip("192.168.10.21").cpu("6").k3sArgs(AGENT_ARGS))
                .node(node("isagal").ip("192.168.10.22").cpu("40").k3sArgs(AGENT_ARGS))
                .node(node("louise").ip("192.168.10.23").cpu("8").k3sArgs(AGENT_ARGS))
                .apiEndpoints(LEMUEL_IP, ILWON_IP)
                .leaderLease("kube-scheduler", "ilwon")
                .leaderLease("kube-controller-manager", "lemuel")
                .pods("lemuel", "Running", 6).pods("ilwon", "Running", 34).pods("solomon", "Running", 6)
                .pods("david", "Running", 34).pods("isagal", "Running", 32).pods("louise", "Running", 34)
                .pods("lemuel", "Succeeded", 40).pods("isagal", "Succeeded", 109);
    }

    /** Seed 003 as read together with its etcd endpoints: three started voters. */
    public static StateBuilder seed003WithEtcd() {
        return seed003().etcdCluster(0x5eed003L,
                member(0xf3f37c02L, "ilwon-f3f37c02", ILWON_IP),
                member(0x0012157aL, "solomon-0012157a", SOLOMON_IP),
                member(0x64066392L, "lemuel-64066392", LEMUEL_IP));
    }

    // ---------------------------------------------------------------- seed 001: split brain, two views

    public static final String CP_NODE_C_ORIGINAL_UID = "7c0ffee0-0000-4000-8000-0000000000c1";
    public static final String CP_NODE_C_SPLIT_UID = "b1ab1ab1-0000-4000-8000-0000000000c2";

    /**
     * The original cluster as cp-node-a's API server shows it: cp-node-c NotReady (Unknown, 77 days old).
     */
    public static StateBuilder seed001FromCpNodeA() {
        return state().source("kubeconfig context cp-node-a").context("cp-node-a")
                .server("https://10.0.1.1:6443").serverVersion(K3S_1_27)
                .node(node("cp-node-a").roles("control-plane", "etcd", "master").ip("10.0.1.1").kubelet(K3S_1_27)
                        .age(Duration.ofDays(490)))
                .node(node("cp-node-b").roles("control-plane", "etcd", "master").ip("10.0.1.2").kubelet(K3S_1_27)
                        .age(Duration.ofDays(75)))
                .node(node("cp-node-c").roles("control-plane", "etcd", "master").ip("10.0.1.3").kubelet(K3S_1_27)
                        .uid(CP_NODE_C_ORIGINAL_UID).age(Duration.ofDays(77)).ready("Unknown"))
                .node(node("worker-01").ip("10.0.1.11").kubelet(K3S_1_27).age(Duration.ofDays(340)))
                .node(node("worker-02").ip("10.0.1.12").kubelet(K3S_1_27).age(Duration.ofDays(313)));
    }

    /** The split-off one-node cluster as cp-node-c's own API server shows it: only itself, 19 hours old. */
    public static StateBuilder seed001FromCpNodeC() {
        return state().source("kubeconfig context cp-node-c").context("cp-node-c")
                .server("https://10.0.1.3:6443").serverVersion(K3S_1_27)
                .node(node("cp-node-c").roles("control-plane", "master").ip("10.0.1.3").kubelet(K3S_1_27)
                        .uid(CP_NODE_C_SPLIT_UID).age(Duration.ofHours(19)));
    }

    /** What cp-node-b's API server shows in the healthy cluster: the same objects as cp-node-a's. */
    public static StateBuilder seed001FromCpNodeB() {
        return seed001FromCpNodeA().source("kubeconfig context cp-node-b").context("cp-node-b")
                .server("https://10.0.1.2:6443");
    }

    // ---------------------------------------------------------------- the same scenarios as API objects

    /**
     * The Kubernetes objects an API server would serve for this state: Nodes, the default/kubernetes
     * EndpointSlice, kube-system Leases and Pods. Used to run the same scenario over HTTP (ApiTestServer).
     * etcd reports are not API objects and are left out.
     */
    public static List<HasMetadata> toObjects(ClusterState state) {
        List<HasMetadata> objects = new ArrayList<>();
        state.nodes().forEach(n -> objects.add(toNode(n)));
        if (!state.apiEndpoints().addresses().isEmpty()) {
            EndpointSliceBuilder slice = new EndpointSliceBuilder().withNewMetadata().withNamespace("default")
                    .withName("kubernetes").addToLabels("kubernetes.io/service-name", "kubernetes").endMetadata()
                    .withAddressType("IPv4");
            state.apiEndpoints().addresses().forEach(a -> slice.addNewEndpoint().withAddresses(a)
                    .withNewConditions().withReady(true).endConditions().endEndpoint());
            slice.addNewPort().withName("https").withPort(state.apiEndpoints().port()).withProtocol("TCP").endPort();
            objects.add(slice.build());
        }
        state.controlPlaneLeases().forEach(l -> objects.add(new LeaseBuilder().withNewMetadata()
                .withNamespace("kube-system").withName(l.name()).withCreationTimestamp(text(l.created())).endMetadata()
                .withNewSpec().withHolderIdentity(l.holderIdentity()).withLeaseDurationSeconds(l.leaseDurationSeconds())
                .withRenewTime(l.renewTime() == null ? null
                        : java.time.ZonedDateTime.ofInstant(l.renewTime(), java.time.ZoneOffset.UTC))
                .endSpec().build()));
        state.pods().items().forEach(p -> objects.add(new PodBuilder().withNewMetadata()
                .withNamespace(p.namespace()).withName(p.name()).endMetadata()
                .withNewSpec().withNodeName(p.nodeName()).addNewContainer().withName("app").withImage("app:1")
                .endContainer().endSpec()
                .withNewStatus().withPhase(p.phase()).endStatus().build()));
        return objects;
    }

    private static Node toNode(NodeInfo n) {
        var b = new io.fabric8.kubernetes.api.model.NodeBuilder().withNewMetadata().withName(n.name()).withUid(n.uid())
                .withCreationTimestamp(text(n.created())).withLabels(n.labels()).withAnnotations(n.annotations())
                .endMetadata()
                .withNewSpec().withTaints(n.taints().stream().map(t -> new TaintBuilder().withKey(t.key())
                        .withValue(t.value()).withEffect(t.effect()).build()).toList()).endSpec();
        var status = b.withNewStatus();
        n.addresses().forEach(a -> status.addNewAddress().withType(a.type()).withAddress(a.address()).endAddress());
        n.conditions().forEach(c -> status.addNewCondition().withType(c.type()).withStatus(c.status())
                .withReason(c.reason()).withLastHeartbeatTime(text(c.lastHeartbeatTime()))
                .withLastTransitionTime(text(c.lastTransitionTime())).endCondition());
        NodeSystemInfo i = n.systemInfo();
        status.withNewNodeInfo().withBootID(i.bootId()).withSystemUUID(i.systemUuid()).withMachineID(i.machineId())
                .withKernelVersion(i.kernelVersion()).withOsImage(i.osImage()).withKubeletVersion(i.kubeletVersion())
                .withContainerRuntimeVersion(i.containerRuntimeVersion()).endNodeInfo();
        n.capacity().forEach((k, v) -> status.addToCapacity(k, new Quantity(v)));
        return status.endStatus().build();
    }

    private static String text(Instant t) {
        return t == null ? null : t.toString();
    }
}
