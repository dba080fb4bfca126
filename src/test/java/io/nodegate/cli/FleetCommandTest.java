package io.nodegate.cli;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.source.rancher.RancherSource;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** `nodegate fleet` against two API test servers over real HTTP, a Rancher management cluster, and dumps. */
class FleetCommandTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String UUID_A07 = "4C4C4544-0037-3010-8047-B4C04F443037";
    private static final String MID_A07 = "9b1f0c5e2d7a4e6f8a3b2c1d0e9f8a07";

    @TempDir
    Path tmp;
    private ApiTestServer a;
    private ApiTestServer b;

    @BeforeEach
    void start() {
        a = ApiTestServer.start();
        b = ApiTestServer.start();
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
    }

    private static Node node(String name, String ready, String uuid, String machineId, String bootId) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus()
                .addNewAddress().withType("InternalIP").withAddress("192.0.2." + (name.hashCode() & 0x7f)).endAddress()
                .addNewCondition().withType("Ready").withStatus(ready)
                .withReason("True".equals(ready) ? "KubeletReady" : "NodeStatusUnknown")
                .withLastHeartbeatTime("2026-10-22T05:23:24Z").withLastTransitionTime("2026-10-22T05:24:35Z")
                .endCondition()
                .withNewNodeInfo().withSystemUUID(uuid).withMachineID(machineId).withBootID(bootId)
                .withKubeletVersion("v1.34.3+rke2r3").withKernelVersion("5.15.0-153-generic").endNodeInfo()
                .endStatus().build();
    }

    private static Lease lease(String node, Instant renew) {
        return new LeaseBuilder().withNewMetadata().withName(node).withNamespace("kube-node-lease").endMetadata()
                .withNewSpec().withHolderIdentity(node).withLeaseDurationSeconds(40)
                .withRenewTime(ZonedDateTime.parse(renew.toString())).endSpec().build();
    }

    private static JsonNode json(CliRun run) {
        return JSON.readTree(run.out());
    }

    private CliRun fleet(String... extra) {
        Path kcA = a.writeKubeconfig(tmp.resolve("a.yaml"), "cluster-a");
        Path kcB = b.writeKubeconfig(tmp.resolve("b.yaml"), "cluster-b");
        List<String> args = new java.util.ArrayList<>(List.of("fleet", "--kubeconfig", kcA.toString(), "--kubeconfig",
                kcB.toString()));
        args.addAll(List.of(extra));
        return CliRun.run(args.toArray(String[]::new));
    }

    /**
     * Seed 000: the Lease of gpu-a07 stops in A, and 3 s later a Node with the same machineID and systemUUID is
     * created in B. The test server stamps creation with its own clock, so the Lease stop is set from it.
     */
    @Test
    void theSeedsDepartureAcrossTwoApiServers() {
        b.create(node("b-gpu-07", "True", UUID_A07.toLowerCase(), MID_A07, "boot-d9"), node("b-ctl-1", "True",
                "2f1e0d9c-8b7a-4655-9443-322110ffeedd", "1679091c5a880faf6fb5e6087eb1b2dc", "boot-b"));
        Instant created = Instant.parse(b.client().nodes().withName("b-gpu-07").get().getMetadata().getCreationTimestamp());
        b.create(lease("b-gpu-07", Instant.now()), lease("b-ctl-1", Instant.now()));
        Instant stopped = created.minusSeconds(3).plusMillis(676);
        a.create(node("gpu-a07", "Unknown", UUID_A07, MID_A07, "boot-d9"), node("keep-1", "True",
                "8e296a06-7a37-5633-70de-d05f5a3bf3ec", "8e296a067a37563370ded05f5a3bf3ec", "boot-k"));
        a.create(lease("gpu-a07", stopped), lease("keep-1", Instant.now()));

        CliRun table = fleet();
        assertThat(table.exitCode()).as(table.all()).isEqualTo(1);
        assertThat(table.out()).contains("HOST", "cluster-a", "cluster-b", "gpu-a07 Unknown", "b-gpu-07 Ready")
                .contains("NG301 critical  host-in-two-clusters  gpu-a07, b-gpu-07")
                .contains("Lease stopped " + stopped.truncatedTo(ChronoUnit.SECONDS) + "; the same host is b-gpu-07 in");
        assertThat(table.out().replace("\n    ", " ")).contains("(3 s later), Ready");

        JsonNode report = json(fleet("-o", "json"));
        assertThat(report.get("clusters").findValuesAsString("name")).containsExactly("cluster-a", "cluster-b");
        assertThat(report.get("hosts")).singleElement().satisfies(h -> {
            assertThat(h.get("match").asString()).isEqualTo("systemUUID and machineID");
            assertThat(h.get("appearances").findValuesAsString("node")).containsExactlyInAnyOrder("b-gpu-07", "gpu-a07");
            assertThat(h.get("appearances").findValuesAsString("leaseRenewTime")).contains(stopped.toString());
        });
        JsonNode f = report.get("findings").get(0);
        assertThat(f.get("evidence").get("gapSeconds").asLong()).isEqualTo(3);
        // each cluster's tombstones were read (one LIST per run), and their absence is said
        assertThat(a.requests("GET", "/api/v1/namespaces/nodegate-system/configmaps")).isEqualTo(2);
        assertThat(report.get("notes").toString()).contains("cluster-a: no tombstones in nodegate-system/nodegate-tombstones");
    }

    @Test
    void twoClustersFromOneImageAreSixHostsAndTheNoteNamesTheSharedMachineId() {
        // siderolabs/talos#4759: every Node of a cluster reports machineID ad432f2cb0c28bbcd1f87a20199237f9 (the
        // kubelet image's) under its own systemUUID; four Ready Nodes here, two in a second cluster on that image
        String image = "ad432f2cb0c28bbcd1f87a20199237f9";
        for (int i = 2; i <= 5; i++) {
            a.create(node("talos-192-168-32-" + i, "True", "1f5e3a2c-7b1d-4c8e-9a6f-00000000000" + i, image, "b" + i));
        }
        b.create(node("talos-10-5-0-2", "True", "1f5e3a2c-7b1d-4c8e-9a6f-000000000102", image, "c2"),
                node("talos-10-5-0-3", "True", "1f5e3a2c-7b1d-4c8e-9a6f-000000000103", image, "c3"));

        CliRun table = fleet();
        assertThat(table.exitCode()).as(table.all()).isZero();
        assertThat(table.out()).doesNotContain("NG301").doesNotContain("one host is Ready");
        assertThat(table.out().replaceAll("\\s+", " ")).contains("machineID " + image
                + " is reported with 6 different systemUUIDs (in cluster-a, cluster-b): an image's or cloned VM"
                + " template's /etc/machine-id, not a host's; no Nodes are matched as one host by it");

        JsonNode report = json(fleet("-o", "json"));
        assertThat(report.get("hosts")).isEmpty();
        assertThat(report.get("findings")).isEmpty();
        assertThat(report.get("notes").toString()).contains("machineID " + image + " is reported with 6 different");
    }

    @Test
    void aClonedVmPairIsAWarningAndAllZeroUuidsAreNoMatch() {
        String cloned = "42000000-aaaa-bbbb-cccc-000000000001";
        String zero = "00000000-0000-0000-0000-000000000000";
        a.create(node("vm-1", "True", cloned, "aaaa1111", "b1"), node("lab-1", "True", zero, "", "b3"));
        b.create(node("vm-2", "True", cloned, "bbbb2222", "b2"), node("lab-2", "True", zero, "", "b4"));

        CliRun run = fleet("-o", "json");

        assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
        JsonNode report = json(run);
        assertThat(report.get("findings")).singleElement().satisfies(f -> {
            assertThat(f.get("code").asString()).isEqualTo("NG301");
            assertThat(f.get("severity").asString()).isEqualTo("warning");
            assertThat(f.get("message").asString()).contains("cloned VMs");
        });
        assertThat(report.get("hosts")).singleElement()
                .satisfies(h -> assertThat(h.get("match").asString()).isEqualTo("systemUUID"));
    }

    @Test
    void aClusterThatCannotBeReadIsNamedTheOthersAreStillShownAndTheRunExitsThree() {
        // what is missing is said, never read as "not there"
        a.create(node("gpu-a07", "Unknown", UUID_A07, MID_A07, "boot-d9"), node("gpu-a08", "Unknown", UUID_A07,
                MID_A07, "boot-d8"));
        b.failOn("GET", "/api/v1/nodes", 403);

        CliRun run = fleet();

        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.out()).contains("cluster-a   2 ", "b.yaml      ?       ?            NOT READ\n");
        assertThat(run.out()).contains("! b.yaml (--kubeconfig " + tmp.resolve("b.yaml") + ") could not be read: ")
                .contains("403");
        assertThat(fleet("-o", "wide").out()).containsPattern("NOT READ +- +--kubeconfig " + tmp.resolve("b.yaml"));
        // the host table still lists what cluster-a holds, and says b is unknown, not empty
        assertThat(run.out()).contains("gpu-a07 Unknown").contains("? = not read");
        assertThat(run.out().replace("\n    ", " ")).contains("b.yaml could not be read: its hosts are unknown, not"
                + " absent; NG301 and NG302 were not checked against it");
        assertThat(run.err()).contains("not everything could be read", "b.yaml", "403");

        JsonNode report = json(fleet("-o", "json"));
        assertThat(report.get("clusters").get(0).has("unreadable")).isFalse();
        JsonNode unread = report.get("clusters").get(1);
        assertThat(unread.get("name").asString()).isEqualTo("b.yaml");
        assertThat(unread.get("nodeCount").isNull()).isTrue();
        assertThat(unread.get("unreadable").asString()).contains("403");
    }

    @Test
    void tombstonesInAnotherNamespaceThatCannotBeReadLeaveTheNodesShownAndExitThree() {
        a.create(node("n1", "True", UUID_A07, MID_A07, "b"));
        a.failOn("GET", "/api/v1/namespaces/ops-nodegate/configmaps", 403);

        CliRun run = fleet("--namespace", "ops-nodegate", "-o", "json");

        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        JsonNode a0 = json(run).get("clusters").get(0);
        assertThat(a0.get("nodeCount").asInt()).isEqualTo(1);
        assertThat(a0.get("tombstones").isNull()).isTrue();
        assertThat(a0.get("unreadable").asString()).contains("LIST configmaps in ops-nodegate", "403");
        assertThat(json(run).get("notes").toString()).contains("cluster-a: its tombstones could not be read: NG302 was"
                + " not checked against its removals");
        assertThat(run.err()).contains("cluster-a (its tombstones)");
    }

    @Test
    void aTombstonesConfigMapThatCannotBeReadIsAnErrorNotAnEmptyList() {
        a.failOn("GET", "/api/v1/namespaces/nodegate-system/configmaps", 403);

        CliRun run = fleet();

        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(run.err()).contains("LIST configmaps in nodegate-system", "403");
    }

    /** Recorded management.cattle.io/v3 objects: Nodes in one namespace per downstream cluster, and Clusters. */
    @Test
    void aRancherManagementClusterStandsForItsDownstreamClusters() throws Exception {
        KubernetesList recorded;
        try (InputStream in = getClass().getResourceAsStream("/rancher/management-objects.json")) {
            recorded = new KubernetesSerialization().unmarshal(in, KubernetesList.class);
        }
        for (var item : recorded.getItems()) {
            GenericKubernetesResource r = (GenericKubernetesResource) item;
            if ("Cluster".equals(r.getKind())) {
                a.client().genericKubernetesResources(RancherSource.CLUSTERS).resource(r).create();
            } else {
                a.client().genericKubernetesResources(RancherSource.NODES).inNamespace(r.getMetadata().getNamespace())
                        .resource(r).create();
            }
        }
        Path kc = a.writeKubeconfig(tmp.resolve("rancher.yaml"), "rancher-local");

        CliRun run = CliRun.run("fleet", "--rancher", "rancher-local", "--kubeconfig", kc.toString(), "-o", "json");

        assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
        JsonNode report = json(run);
        assertThat(report.get("clusters").findValuesAsString("name")).containsExactly("cluster-b", "cluster-a", "local");
        assertThat(report.get("findings")).singleElement().satisfies(f -> {
            assertThat(f.get("code").asString()).isEqualTo("NG301");
            assertThat(f.get("severity").asString()).isEqualTo("critical");
            assertThat(f.get("nodes").values().stream().map(JsonNode::asString).toList())
                    .containsExactly("gpu-a07", "b-gpu-07");
            // Rancher mirrors no Lease; the mirror's creationTimestamp stands for the Node's
            assertThat(f.get("message").asString()).startsWith("gpu-a07 in cluster-a: Unknown, no Lease; the same host"
                    + " is b-gpu-07 in cluster-b, created " + mirrorCreated("c-m-3k9d2", "machine-b7t4r") + ", Ready");
        });
        assertThat(report.get("notes").toString()).contains("machine-zz9q1: management Node without status.nodeName")
                .contains("read through Rancher (rancher-local, cluster ID c-m-4x7rz): no Leases, no tombstones");
        // one paginated LIST of each kind, across all namespaces
        assertThat(a.requests("GET", "/apis/management.cattle.io/v3/nodes")).isEqualTo(1);
        assertThat(a.requests("GET", "/apis/management.cattle.io/v3/clusters")).isEqualTo(1);
    }

    /** The test server stamps creation with its own clock, whatever the recorded object said. */
    private String mirrorCreated(String namespace, String name) {
        return Instant.parse(a.client().genericKubernetesResources(RancherSource.NODES).inNamespace(namespace)
                .withName(name).get().getMetadata().getCreationTimestamp()).toString();
    }

    @Test
    void aContextThatIsNotRancherIsAnInputError() {
        a.unserve("/apis/management.cattle.io/v3/clusters");
        Path kc = a.writeKubeconfig(tmp.resolve("plain.yaml"), "plain");

        CliRun run = CliRun.run("fleet", "--rancher", "plain", "--kubeconfig", kc.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--rancher plain: management.cattle.io/v3 Clusters are not served there (404)");
    }

    @Test
    void offlineDumpsOfTheExampleAndUsageErrors() {
        CliRun offline = CliRun.run("fleet", "-f", "examples/fleet-departure/cluster-a", "-f",
                "examples/fleet-departure/cluster-b", "-o", "json");
        assertThat(offline.exitCode()).as(offline.all()).isEqualTo(1);
        assertThat(json(offline).get("findings").findValuesAsString("code")).containsExactly("NG301", "NG301", "NG301");

        CliRun one = CliRun.run("fleet", "-f", "examples/fleet-departure/cluster-a");
        assertThat(one.exitCode()).isEqualTo(2);
        assertThat(one.err()).contains("fleet compares hosts across clusters: give at least two");
        CliRun none = CliRun.run("fleet");
        assertThat(none.exitCode()).isEqualTo(2);
        assertThat(none.err()).contains("fleet needs clusters to read");
        CliRun now = CliRun.run("fleet", "--context", "x", "--context", "y", "--now", "2026-10-22T06:10:00Z");
        assertThat(now.exitCode()).isEqualTo(2);
        assertThat(now.err()).contains("--now applies to offline clusters (-f DIR) only");
        assertThat(CliRun.run("fleet", "--help").exitCode()).isZero();
        assertThat(CliRun.run("fleet", "-h").out()).contains("Examples:", "Exit codes:");
    }
}
