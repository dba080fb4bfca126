package io.nodegate.testing;

import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.Condition;
import io.nodegate.model.JobInfo;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeSystemInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.model.Taint;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Small builders for Node-centred snapshots. Defaults describe a healthy, long-lived worker. */
public final class NodeFixtures {

    /** The seed's D+15 afternoon, in UTC: the clock every fixture ages against unless told otherwise. */
    public static final Instant NOW = Instant.parse("2026-10-19T06:10:00Z");

    private NodeFixtures() {
    }

    public static NodeBuilder node(String name) {
        return new NodeBuilder(name);
    }

    public static ClusterBuilder cluster() {
        return new ClusterBuilder();
    }

    public static LeaseInfo lease(String node, Instant renewTime) {
        return new LeaseInfo("kube-node-lease", node, "lease-" + node, Instant.parse("2026-04-01T00:00:00Z"), node,
                renewTime, 40);
    }

    public static SecretMeta nodePassword(String secretName, String type) {
        return new SecretMeta("kube-system", secretName, "uid-" + secretName, Instant.parse("2026-04-01T00:00:00Z"),
                type, Map.of());
    }

    public static JobInfo job(String namespace, String name, boolean failed) {
        return new JobInfo(namespace, name, "uid-" + name, NOW.minusSeconds(3600), failed,
                failed ? "BackoffLimitExceeded" : null);
    }

    public static final class NodeBuilder {
        private final String name;
        private Instant created = NOW.minusSeconds(180L * 86_400);
        private final Map<String, String> labels = new LinkedHashMap<>();
        private final List<Taint> taints = new ArrayList<>();
        private boolean unschedulable;
        private final List<NodeInfo.NodeAddress> addresses = new ArrayList<>();
        private Condition ready;
        private String bootId;
        private String systemUuid;
        private String machineId;
        private String kubelet = "v1.34.3+rke2r3";
        private final Map<String, String> annotations = new LinkedHashMap<>();
        private io.nodegate.model.CordonOwner cordonOwner;

        NodeBuilder(String name) {
            this.name = name;
            this.systemUuid = UUID.nameUUIDFromBytes(("uuid-" + name).getBytes()).toString();
            this.machineId = UUID.nameUUIDFromBytes(("mid-" + name).getBytes()).toString().replace("-", "");
            this.bootId = UUID.nameUUIDFromBytes(("boot-" + name).getBytes()).toString();
            this.ready = new Condition("Ready", "True", "KubeletReady", "kubelet is posting ready status",
                    NOW.minusSeconds(20), created);
        }

        public NodeBuilder created(Instant t) {
            this.created = t;
            return this;
        }

        public NodeBuilder role(String role) {
            labels.put(NodeInfo.ROLE_PREFIX + role, "true");
            return this;
        }

        public NodeBuilder label(String key, String value) {
            labels.put(key, value);
            return this;
        }

        /** Cordon as the API server records it: spec.unschedulable plus the unschedulable taint with its time. */
        public NodeBuilder cordoned(Instant since) {
            unschedulable = true;
            taints.add(new Taint("node.kubernetes.io/unschedulable", null, "NoSchedule", since));
            return this;
        }

        /**
         * Cordoned at {@code since} by {@code manager}, as a LIST with managedFields shows it: the unschedulable
         * taint and the managedFields entry owning spec.unschedulable (an Update), both at that time.
         */
        public NodeBuilder cordonedBy(String manager, Instant since) {
            cordoned(since);
            cordonOwner = new io.nodegate.model.CordonOwner(manager, "Update", since);
            return this;
        }

        public NodeBuilder annotation(String key, String value) {
            annotations.put(key, value);
            return this;
        }

        public NodeBuilder taint(String key, String value, String effect, Instant timeAdded) {
            taints.add(new Taint(key, value, effect, timeAdded));
            return this;
        }

        public NodeBuilder internalIp(String ip) {
            addresses.add(new NodeInfo.NodeAddress("InternalIP", ip));
            return this;
        }

        public NodeBuilder ready(String status, String reason, String message, Instant heartbeat, Instant transition) {
            this.ready = new Condition("Ready", status, reason, message, heartbeat, transition);
            return this;
        }

        /** What the node lifecycle controller writes when the kubelet goes silent. */
        public NodeBuilder unknownSince(Instant lastHeartbeat, Instant transition) {
            return ready("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.", lastHeartbeat,
                    transition);
        }

        public NodeBuilder noReadyCondition() {
            this.ready = null;
            return this;
        }

        public NodeBuilder systemUuid(String uuid) {
            this.systemUuid = uuid;
            return this;
        }

        public NodeBuilder machineId(String id) {
            this.machineId = id;
            return this;
        }

        public NodeBuilder bootId(String id) {
            this.bootId = id;
            return this;
        }

        public NodeBuilder kubelet(String version) {
            this.kubelet = version;
            return this;
        }

        public NodeInfo build() {
            return new NodeInfo(name, "uid-" + name, "1", created, labels, annotations, taints, unschedulable, null,
                    addresses, ready == null ? List.of() : List.of(ready),
                    new NodeSystemInfo(bootId, systemUuid, machineId, "6.8.0-45-generic", "Ubuntu 24.04.1 LTS",
                            kubelet, "containerd://2.1.5-k3s1"),
                    Map.of(), cordonOwner);
        }
    }

    public static final class ClusterBuilder {
        private Instant now = NOW;
        private String serverVersion = "v1.34.3+rke2r3";
        private final List<NodeInfo> nodes = new ArrayList<>();
        private final List<LeaseInfo> leases = new ArrayList<>();
        private final List<SecretMeta> secrets = new ArrayList<>();
        private Collected<JobInfo> jobs = Collected.absent();
        private final List<String> notes = new ArrayList<>();
        private io.nodegate.model.OpenHandovers handovers = io.nodegate.model.OpenHandovers.NOT_READ;

        public ClusterBuilder now(Instant t) {
            this.now = t;
            return this;
        }

        public ClusterBuilder serverVersion(String v) {
            this.serverVersion = v;
            return this;
        }

        public ClusterBuilder node(NodeBuilder node) {
            nodes.add(node.build());
            return this;
        }

        /** A node whose kubelet renews its Lease normally (10 s ago). */
        public ClusterBuilder healthy(NodeBuilder node) {
            NodeInfo n = node.build();
            nodes.add(n);
            leases.add(NodeFixtures.lease(n.name(), now.minusSeconds(10)));
            return this;
        }

        public ClusterBuilder lease(String node, Instant renewTime) {
            leases.add(NodeFixtures.lease(node, renewTime));

            return this;
        }

        public ClusterBuilder secret(SecretMeta secret) {
            secrets.add(secret);
            return this;
        }

        public ClusterBuilder jobs(JobInfo... items) {
            jobs = Collected.of(List.of(items));
            return this;
        }

        public ClusterBuilder handovers(io.nodegate.model.OpenHandovers value) {
            handovers = value;
            return this;
        }

        public ClusterBuilder note(String note) {
            notes.add(note);
            return this;
        }

        public ClusterState build() {
            return ClusterState.builder(now, "fixture").context("test").server("https://127.0.0.1:6443")
                    .serverVersion(serverVersion).nodes(nodes).nodeLeases(leases).nodePasswordSecrets(secrets)
                    .cattleJobs(jobs).notes(notes).handovers(handovers).build();
        }
    }
}
