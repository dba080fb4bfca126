package io.nodegate.source;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSINodeBuilder;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/** Realistic Kubernetes objects for source tests. */
public final class Fixtures {
    public static final Instant T0 = Instant.parse("2026-10-19T06:00:00Z");

    private Fixtures() {
    }

    public static Node node(String name, String ready, String ip) {
        return new NodeBuilder().withNewMetadata().withName(name).withUid("uid-" + name)
                .withCreationTimestamp("2026-01-01T00:00:00Z")
                .addToLabels("kubernetes.io/hostname", name)
                .addToAnnotations("rke2.io/node-args", "[\"agent\"]").endMetadata()
                .withNewSpec().withPodCIDR("10.42.0.0/24").endSpec()
                .withNewStatus()
                .addNewAddress().withType("InternalIP").withAddress(ip).endAddress()
                .addNewCondition().withType("Ready").withStatus(ready).withReason("KubeletReady")
                .withLastHeartbeatTime("2026-10-19T05:59:50Z").withLastTransitionTime("2026-10-01T00:00:00Z")
                .endCondition()
                .withNewNodeInfo().withBootID("boot-" + name).withSystemUUID("uuid-" + name).withMachineID("m-" + name)
                .withKubeletVersion("v1.34.1+rke2r1").endNodeInfo()
                .addToCapacity("cpu", new Quantity("4")).addToCapacity("memory", new Quantity("16Gi"))
                .endStatus().build();
    }

    public static Lease nodeLease(String node, Instant renew) {
        return new LeaseBuilder().withNewMetadata().withNamespace("kube-node-lease").withName(node)
                .withCreationTimestamp("2026-01-01T00:00:00Z").endMetadata()
                .withNewSpec().withHolderIdentity(node).withLeaseDurationSeconds(40)
                .withRenewTime(ZonedDateTime.ofInstant(renew, ZoneOffset.UTC)).endSpec().build();
    }

    public static Lease systemLease(String name, String holder) {
        return new LeaseBuilder().withNewMetadata().withNamespace("kube-system").withName(name).endMetadata()
                .withNewSpec().withHolderIdentity(holder).withLeaseDurationSeconds(15)
                .withRenewTime(ZonedDateTime.ofInstant(T0, ZoneOffset.UTC)).endSpec().build();
    }

    /** A node-password Secret with real-looking data that must never come out. */
    public static Secret nodePassword(String node) {
        return new SecretBuilder().withNewMetadata().withNamespace("kube-system")
                .withName(node + ".node-password.rke2").withCreationTimestamp("2026-01-01T00:00:00Z")
                .addToAnnotations("kubectl.kubernetes.io/last-applied-configuration", "{\"data\":{\"hash\":\"TOPSECRET\"}}")
                .endMetadata()
                .withType("rke2.cattle.io/node-password").withImmutable(true)
                .addToData("hash", Base64.getEncoder().encodeToString("TOPSECRET-scrypt-hash".getBytes())).build();
    }

    public static Secret otherSecret(String name) {
        return new SecretBuilder().withNewMetadata().withNamespace("kube-system").withName(name).endMetadata()
                .addToData("token", Base64.getEncoder().encodeToString("TOPSECRET-token".getBytes())).build();
    }

    public static CSINode csiNode(String node) {
        return new CSINodeBuilder().withNewMetadata().withName(node).endMetadata().withNewSpec()
                .addNewDriver().withName("driver.longhorn.io").withNodeID(node).endDriver().endSpec().build();
    }

    public static EndpointSlice apiSlice(String... addresses) {
        var b = new EndpointSliceBuilder().withNewMetadata().withNamespace("default").withName("kubernetes")
                .addToLabels("kubernetes.io/service-name", "kubernetes").endMetadata().withAddressType("IPv4")
                .addNewPort().withName("https").withPort(6443).withProtocol("TCP").endPort();
        for (String a : addresses) {
            b.addNewEndpoint().withAddresses(a).withNewConditions().withReady(true).endConditions().endEndpoint();
        }
        return b.build();
    }

    public static EndpointSlice otherSlice() {
        return new EndpointSliceBuilder().withNewMetadata().withNamespace("default").withName("web-abcde")
                .addToLabels("kubernetes.io/service-name", "web").endMetadata().withAddressType("IPv4")
                .addNewEndpoint().withAddresses("10.42.0.9").endEndpoint().build();
    }

    public static DaemonSet daemonSet(String ns, String name, int desired) {
        return new DaemonSetBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .withNewSpec().withNewSelector().addToMatchLabels("app", name).endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata().withNewSpec()
                .addNewContainer().withName("c").withImage("busybox").endContainer().endSpec().endTemplate().endSpec()
                .withNewStatus().withDesiredNumberScheduled(desired).withCurrentNumberScheduled(desired)
                .withNumberReady(desired).withNumberMisscheduled(0).endStatus().build();
    }

    public static Job failedUpgraderJob(String node) {
        return new JobBuilder().withNewMetadata().withNamespace("cattle-system")
                .withName("apply-system-agent-upgrader-on-" + node + "-with-abc").endMetadata()
                .withNewSpec().withNewTemplate().withNewSpec().withRestartPolicy("Never").addNewContainer().withName("u")
                .withImage("rancher/system-agent").endContainer().endSpec().endTemplate().endSpec()
                .withNewStatus().addNewCondition().withType("Failed").withStatus("True").withReason("BackoffLimitExceeded")
                .endCondition().endStatus().build();
    }

    public static Pod pod(String ns, String name, String node) {
        return new PodBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage("busybox").endContainer()
                .endSpec().withNewStatus().withPhase("Running").endStatus().build();
    }

    /**
     * A cluster of {@code workers} workers and 3 servers, with everything a live read touches; with
     * {@code rancher} the cattle-system namespace and a failed upgrader Job exist.
     */
    public static List<HasMetadata> cluster(int workers, boolean rancher) {
        List<HasMetadata> all = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String name = "srv-" + i;
            Node n = node(name, "True", "10.0.0." + (10 + i));
            n.getMetadata().setLabels(Map.of("node-role.kubernetes.io/control-plane", "true",
                    "node-role.kubernetes.io/etcd", "true"));
            all.add(n);
            all.add(nodeLease(name, T0.minusSeconds(5)));
            all.add(nodePassword(name));
            all.add(csiNode(name));
        }
        for (int i = 0; i < workers; i++) {
            String name = String.format("wrk-%04d", i);
            all.add(node(name, i % 10 == 0 ? "Unknown" : "True", "10.0.1." + (i % 250)));
            all.add(nodeLease(name, T0.minusSeconds(i % 10 == 0 ? 600 : 5)));
            all.add(nodePassword(name));
            all.add(csiNode(name));
        }
        all.add(otherSecret("rke2-serving"));
        all.add(apiSlice("10.0.0.10", "10.0.0.11", "10.0.0.12"));
        all.add(otherSlice());
        all.add(daemonSet("kube-system", "rke2-canal", workers + 3));
        all.add(daemonSet("monitoring", "node-exporter", workers + 3));
        all.add(systemLease("kube-scheduler", "srv-0_abc"));
        all.add(systemLease("kube-controller-manager", "srv-1_def"));
        if (rancher) {
            all.add(new NamespaceBuilder().withNewMetadata().withName("cattle-system").endMetadata().build());
            all.add(failedUpgraderJob("wrk-0001"));
        }
        return all;
    }
}
