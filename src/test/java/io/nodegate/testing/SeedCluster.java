package io.nodegate.testing;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSINodeBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;

import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.time.Duration;

/**
 * Cluster A of seed 000 on the test server, at D+19: ctl-1 (server), keep-1 (the positive control), and the
 * cordoned GPU workers gpu-a10 (Lease frozen on D+15 with gpu-a07..a09) and gpu-a11 (agent stopped at 15:07:56
 * KST, reply "15:09"). Times are UTC (KST - 9 h). Every node-password Secret carries planted data that must
 * never appear in output or evidence.
 */
public final class SeedCluster {

    public static final String SECRET_VALUE = "PLANTED-SECRET-scrypt-hash-do-not-leak";

    /**
     * BASELINE_TS of the story (D+19 14:00 KST), anchored to the real clock just after the objects were created:
     * the test server stamps creationTimestamp with real time, and verify-gone compares against it.
     */
    public final Instant t0;
    /** gpu-a11: last heartbeat 15:05:35, Lease 15:07:56, Unknown 15:08:48 KST; reply "15:09". */
    public final Instant a11Heartbeat;
    public final Instant a11Lease;
    public final Instant a11Unknown;
    public final String a11Reply;
    /** gpu-a10 (and gpu-a07..a09): Lease stopped D+15 14:23:42 KST, four days before. */
    public final Instant a10Lease;
    /** When the gate runs: 15:55 KST, 45 minutes after the reboot. */
    public final Instant gateTime;

    private SeedCluster(Instant t0) {
        this.t0 = t0;
        a11Heartbeat = t0.plus(Duration.ofMinutes(65).plusSeconds(35));
        a11Lease = t0.plus(Duration.ofMinutes(67).plusSeconds(56));
        a11Unknown = t0.plus(Duration.ofMinutes(68).plusSeconds(48));
        a11Reply = java.time.OffsetDateTime.ofInstant(t0.plus(Duration.ofMinutes(69)), ZoneOffset.ofHours(9))
                .toString();
        a10Lease = t0.minus(Duration.ofDays(4)).plus(Duration.ofMinutes(23).plusSeconds(42));
        gateTime = t0.plus(Duration.ofMinutes(115));
    }

    /**
     * A target host, reinstalled, rejoins under its name: Ready with a new bootID and the given firmware UUID, its
     * unreachable taint gone, a new node-password Secret (the old one must be gone: readmit deleted it).
     */
    public static void rejoin(ApiTestServer api, String name, String systemUuid) {
        Node n = api.client().nodes().withName(name).get();
        n.getStatus().getConditions().get(0).setStatus("True");
        n.getStatus().getConditions().get(0).setReason("KubeletReady");
        n.getStatus().getNodeInfo().setBootID("boot-" + name.replace("gpu-", "") + "-reinstalled");
        n.getStatus().getNodeInfo().setSystemUUID(systemUuid);
        api.client().nodes().resource(n).updateStatus();
        Node spec = api.client().nodes().withName(name).get();
        spec.getSpec().getTaints().removeIf(t -> t.getKey().equals("node.kubernetes.io/unreachable"));
        api.client().nodes().resource(spec).update();
        api.create(secret(name));
    }

    /** A client for the code under test: no retries, short timeouts, so faults surface at once. */
    public static KubernetesClient client(String url) {
        return client(url, 1500);
    }

    public static KubernetesClient client(String url, int timeoutMillis) {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(url).withTrustCerts(true)
                .withRequestRetryBackoffLimit(0).withRequestTimeout(timeoutMillis).withConnectionTimeout(timeoutMillis)
                .build();
        return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new JdkHttpClientFactory()).build();
    }

    /** Creates the cluster, then updates the time-dependent fields relative to t0 (creation times stay). */
    public static SeedCluster populate(ApiTestServer api) {
        Instant placeholder = Instant.parse("2026-01-01T00:00:00Z");
        SeedCluster seed = new SeedCluster(placeholder);
        seed.create(api);
        SeedCluster real = new SeedCluster(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).plusSeconds(1));
        real.apply(api);
        // the baseline's time comes from the server's Date header, in whole seconds: let the second the objects
        // were created in pass, so that none of them reads as created at or after the baseline
        while (Instant.now().isBefore(real.t0)) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return real;
    }

    private void apply(ApiTestServer api) {
        for (Node n : nodes()) {
            api.client().nodes().resource(n).updateStatus();
        }
        api.apply(lease("ctl-1", t0), lease("keep-1", t0), lease("gpu-a10", a10Lease), lease("gpu-a11", a11Lease));
    }

    private List<Node> nodes() {
        return List.of(node("ctl-1", "10.0.0.1", "True", false,
                Map.of("node-role.kubernetes.io/control-plane", "true", "node-role.kubernetes.io/etcd", "true"),
                "boot-ctl-1", "uuid-ctl-1", 0, t0, null),
                node("keep-1", "192.0.2.50", "True", false,
                Map.of("node-role.kubernetes.io/burnin", "true"), "boot-keep-1", "uuid-keep-1", 8, t0, null),
                node("gpu-a10", "192.0.2.10", "Unknown", true,
                Map.of("node-role.kubernetes.io/burnin", "true"), "boot-a10", "uuid-a10", 8, a10Lease.minusSeconds(18),
                a10Lease.plusSeconds(53)),
                node("gpu-a11", "192.0.2.11", "Unknown", true,
                Map.of("node-role.kubernetes.io/burnin", "true"), "boot-a11", "uuid-a11", 8, a11Heartbeat, a11Unknown));
    }

    private void create(ApiTestServer api) {
        nodes().forEach(api::create);
        for (String n : new String[]{"ctl-1", "keep-1", "gpu-a10", "gpu-a11"}) {
            api.create(secret(n), csiNode(n));
        }
        api.create(lease("ctl-1", t0), lease("keep-1", t0), lease("gpu-a10", a10Lease), lease("gpu-a11", a11Lease));
        api.create(daemonSet("kube-system", "rke2-canal", 4), daemonSet("gpu-operator", "nvidia-dcgm-exporter", 3));
        for (String n : new String[]{"ctl-1", "keep-1", "gpu-a10", "gpu-a11"}) {
            api.create(dsPod("kube-system", "rke2-canal", n));
        }
        for (String n : new String[]{"keep-1", "gpu-a10", "gpu-a11"}) {
            api.create(dsPod("gpu-operator", "nvidia-dcgm-exporter", n));
        }
        api.create(new PodBuilder().withNewMetadata().withName("web-1").withNamespace("default").withUid("uid-web-1")
                .endMetadata().withNewSpec().withNodeName("keep-1").endSpec().build());
    }

    public static Node node(String name, String ip, String ready, boolean cordoned, Map<String, String> roles,
                            String bootId, String uuid, int gpus, Instant heartbeat, Instant transition) {
        String kubelet = "v1.34.3+rke2r3";
        Map<String, String> labels = new LinkedHashMap<>(roles);
        labels.put("kubernetes.io/hostname", name);
        Map<String, Quantity> capacity = new LinkedHashMap<>();
        capacity.put("cpu", new Quantity("64"));
        if (gpus > 0) {
            capacity.put("nvidia.com/gpu", new Quantity(String.valueOf(gpus)));
        }
        NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).withLabels(labels)
                .withAnnotations(Map.of("rke2.io/node-args", "[\"agent\",\"--server\",\"https://cp-vip:9345\"]"))
                .endMetadata()
                .withNewSpec().withUnschedulable(cordoned).endSpec()
                .withNewStatus()
                .addNewAddress().withType("InternalIP").withAddress(ip).endAddress()
                .addNewAddress().withType("Hostname").withAddress(name).endAddress()
                .addNewCondition().withType("Ready").withStatus(ready)
                .withReason("True".equals(ready) ? "KubeletReady" : "NodeStatusUnknown")
                .withLastHeartbeatTime(heartbeat.toString())
                .withLastTransitionTime((transition == null ? heartbeat : transition).toString()).endCondition()
                .withNewNodeInfo().withBootID(bootId).withSystemUUID(uuid).withMachineID("machine-" + name)
                .withKernelVersion("6.8.0-45-generic").withKubeletVersion(kubelet).withOsImage("Ubuntu 24.04")
                .withContainerRuntimeVersion("containerd://2.0").withArchitecture("amd64")
                .withOperatingSystem("linux").withKubeProxyVersion(kubelet).endNodeInfo()
                .withCapacity(capacity).endStatus();
        if (cordoned) {
            b.editSpec().addNewTaint().withKey("nvidia.com/gpu").withEffect("NoSchedule").endTaint()
                    .addNewTaint().withKey("node.kubernetes.io/unreachable").withEffect("NoSchedule").endTaint()
                    .endSpec();
        }
        return b.build();
    }

    public static Secret secret(String node) {
        return new SecretBuilder().withNewMetadata().withName(node + ".node-password.rke2").withNamespace("kube-system")
                .endMetadata().withType("rke2.cattle.io/node-password").withImmutable(true)
                .withData(Map.of("hash", Base64.getEncoder().encodeToString(SECRET_VALUE.getBytes())))
                .withStringData(null).build();
    }

    public static CSINode csiNode(String node) {
        return new CSINodeBuilder().withNewMetadata().withName(node).withUid("uid-csi-" + node).endMetadata()
                .withNewSpec().addNewDriver().withName("driver.longhorn.io").withNodeID(node).endDriver().endSpec().build();
    }

    public static Lease lease(String node, Instant renew) {
        return new LeaseBuilder().withNewMetadata().withName(node).withNamespace("kube-node-lease")
                .withUid("uid-lease-" + node).endMetadata().withNewSpec().withHolderIdentity(node)
                .withLeaseDurationSeconds(40).withRenewTime(ZonedDateTime.ofInstant(renew, ZoneOffset.UTC)).endSpec().build();
    }

    public static DaemonSet daemonSet(String ns, String name, int desired) {
        return new DaemonSetBuilder().withNewMetadata().withName(name).withNamespace(ns).withUid("uid-ds-" + name)
                .endMetadata().withNewSpec().endSpec().withNewStatus().withDesiredNumberScheduled(desired)
                .withCurrentNumberScheduled(desired).withNumberReady(desired).withNumberMisscheduled(0).endStatus().build();
    }

    public static Pod dsPod(String ns, String ds, String node) {
        return new PodBuilder().withNewMetadata().withName(ds + "-" + node).withNamespace(ns).withUid("uid-" + ds + "-" + node)
                .addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName(ds)
                .withUid("uid-ds-" + ds).withController(true).endOwnerReference().endMetadata()
                .withNewSpec().withNodeName(node).endSpec().withNewStatus().withPhase("Running").endStatus().build();
    }
}
