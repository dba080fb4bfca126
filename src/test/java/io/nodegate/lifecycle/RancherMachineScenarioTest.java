package io.nodegate.lifecycle;

import io.nodegate.testing.SeededClusterTest;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.lifecycle.evidence.Json;
import io.nodegate.policy.AdmissionSimulator;
import io.nodegate.policy.MachinePolicySettings;
import io.nodegate.policy.PolicyBundle;
import io.nodegate.policy.PolicySettings;
import io.nodegate.testing.FaultProxy;
import io.nodegate.testing.RbacAuthorizer;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RedfishTestServer;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 000's rule "in Rancher custom clusters, the gate goes in front of the Machine deletion", over HTTP against
 * two API test servers: cluster A (downstream, seed 000) and Rancher's management cluster, which holds the recorded
 * Machines of src/test/resources/rancher/machines (see its README for where every field comes from). gpu-a11 is a
 * Rancher custom node of cluster prod-gpu: its Machine is fleet-default/custom-4b2f0c1d9e8a, and the Node carries the
 * labels Rancher's planner gives it (rke.cattle.io/machine = the Machine's uid, plan.cattle.io/*).
 */
public class RancherMachineScenarioTest extends SeededClusterTest {

    static final String MACHINE = "custom-4b2f0c1d9e8a";
    static final String MACHINE_PATH = "/apis/cluster.x-k8s.io/v1beta1/namespaces/fleet-default/machines/" + MACHINE;
    static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    ApiTestServer rancher;
    Path rancherKubeconfig;
    String nodeUid;
    /** The uid the management test server gave the Machine (it assigns its own on create, as a real one does). */
    String machineUid;

    @BeforeEach
    void setUp() {
        seedAtGateTime();
        nodeUid = api.client().nodes().withName("gpu-a11").get().getMetadata().getUid();
        rancher = ApiTestServer.start();
        rancherKubeconfig = rancher.writeKubeconfig(tmp.resolve("rancher.yaml"), "rancher");
        create(recorded("provisioning-cluster-prod-gpu.json"));
    }

    static final ResourceDefinitionContext MACHINES = new ResourceDefinitionContext.Builder()
            .withGroup("cluster.x-k8s.io").withVersion("v1beta1").withKind("Machine").withPlural("machines")
            .withNamespaced(true).build();
    public static final ResourceDefinitionContext PROVISIONING_CLUSTERS = new ResourceDefinitionContext.Builder()
            .withGroup("provisioning.cattle.io").withVersion("v1").withKind("Cluster").withPlural("clusters")
            .withNamespaced(true).build();

    /** Stores recorded objects on the management server, as Rancher and Cluster API left them. */
    void create(GenericKubernetesResource... objects) {
        for (GenericKubernetesResource o : objects) {
            GenericKubernetesResource made = rancher.client().genericKubernetesResources("Machine".equals(o.getKind())
                    ? MACHINES : PROVISIONING_CLUSTERS).inNamespace(o.getMetadata().getNamespace()).resource(o).create();
            if (MACHINE.equals(made.getMetadata().getName())) {
                machineUid = made.getMetadata().getUid();
            }
        }
    }

    io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource> machine(String name) {
        return rancher.client().genericKubernetesResources(MACHINES).inNamespace("fleet-default").withName(name);
    }

    @AfterEach
    void stopRancher() {
        rancher.close();
    }

    /** The labels Rancher's planner gives the Node it registers (pkg/capr/planner/config.go addLabels). */
    void labelGpuA11AsRancherRegisteredIt(String machineUid) {
        api.client().nodes().withName("gpu-a11").edit(n -> {
            n.getMetadata().getLabels().putAll(Map.of("rke.cattle.io/machine", machineUid,
                    "plan.cattle.io/cluster-group", "cluster.x-k8s.io", "plan.cattle.io/cluster-kind", "Cluster",
                    "plan.cattle.io/cluster-name", "prod-gpu", "plan.cattle.io/machine-group", "cluster.x-k8s.io",
                    "plan.cattle.io/machine-kind", "Machine", "plan.cattle.io/machine-name", MACHINE));
            return n;
        });
    }

    /** A recorded object, with the uid the test server gave gpu-a11 and the time its Node went Unknown. */
    GenericKubernetesResource recorded(String file) {
        return recorded(file, nodeUid);
    }

    GenericKubernetesResource recorded(String file, String nodeRefUid) {
        String json;
        try (InputStream in = getClass().getResourceAsStream("/rancher/machines/" + file)) {
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        json = json.replace("NODE_UID", nodeRefUid == null ? "" : nodeRefUid)
                .replace("NODE_UNKNOWN_AT", seed.a11Unknown.plusSeconds(20).toString());
        return SERIALIZATION.unmarshal(json, GenericKubernetesResource.class);
    }

    CliRun gate(String... extra) {
        List<String> args = new ArrayList<>(List.of("gate", "gpu-a11", "--baseline", baseline.toString(),
                "--removed-at", seed.a11Reply, "--machine-kubeconfig", rancherKubeconfig.toString()));
        args.addAll(Arrays.asList(extra));
        return cli(args.toArray(String[]::new));
    }

    Map<String, String> machineAnnotations() {
        return machine(MACHINE).get().getMetadata().getAnnotations();
    }

    /**
     * Cluster API and the garbage collector, after the Machine DELETE (the Machine waits on its finalizer): Cluster
     * API deletes the Node, then drops the machine.cluster.x-k8s.io finalizer and the Machine goes; the garbage
     * collector takes what the Node owned.
     */
    void playClusterApiAndGarbageCollector() {
        clock.schedule(Duration.ofSeconds(5), () -> api.client().nodes().withName("gpu-a11").delete());
        clock.schedule(Duration.ofSeconds(6), () -> machine(MACHINE).edit(m -> {
            m.getMetadata().setFinalizers(List.of());
            return m;
        }));
        clock.schedule(Duration.ofSeconds(10), () -> {
            api.client().leases().inNamespace("kube-node-lease").withName("gpu-a11").delete();
            api.client().storage().v1().csiNodes().withName("gpu-a11").delete();
            api.client().secrets().inNamespace("kube-system").withName("gpu-a11.node-password.rke2").delete();
        });
        clock.schedule(Duration.ofSeconds(60), () -> {
            api.client().pods().inNamespace("kube-system").withName("rke2-canal-gpu-a11").delete();
            api.client().pods().inNamespace("gpu-operator").withName("nvidia-dcgm-exporter-gpu-a11").delete();
        });
    }

    @Test
    void theGateChecksAndAnnotatesTheMachineBoundToItsUidAndNode() throws IOException {
                create(recorded("machine-custom-rancher-2.13.json"), recorded("machine-custom-etcd.json"),
                recorded("machine-node-driver.json"));
        labelGpuA11AsRancherRegisteredIt(machineUid);

        CliRun g = gate("--machine-cluster", "prod-gpu", "--annotate");

        assertThat(g.exitCode()).as(g.all()).isZero();
        assertThat(g.out()).containsIgnoringWhitespaces("gate gpu-a11: PASS",
                "[machine]    PASS     Rancher Machine fleet-default/" + MACHINE + " (phase Running)",
                "annotated nodegate.io/gate-verdict=PASS",
                "annotated Machine fleet-default/" + MACHINE + " nodegate.io/gate-verdict=PASS");
        Map<String, String> ann = machineAnnotations();
        assertThat(ann).containsEntry("nodegate.io/gate-verdict", "PASS")
                .containsEntry("nodegate.io/gate-uid", machineUid)
                .containsEntry("nodegate.io/gate-node-name", "gpu-a11")
                .containsEntry("nodegate.io/gate-node-uid", nodeUid)
                .containsEntry("nodegate.io/gate-boot-id", "boot-a11")
                .containsEntry("nodegate.io/gate-at", seed.gateTime.toString())
                .containsKey("nodegate.io/gate-evidence")
                // Rancher's own annotations stay
                .containsEntry("objectset.rio.cattle.io/id", "unmanaged-machine");
        try (Stream<Path> files = Files.list(evidence)) {
            Path record = files.filter(p -> p.getFileName().toString().matches("gate-gpu-a11-[^.]*\\.[0-9]+Z\\.json")).findFirst()
                    .orElseThrow();
            var json = Json.MAPPER.readTree(Files.readString(record));
            assertThat(json.path("machine").path("uid").asString()).isEqualTo(machineUid);
            assertThat(json.path("machine").path("nodeRefUid").asString()).isEqualTo(nodeUid);
            assertThat(Files.exists(record.resolveSibling(record.getFileName().toString()
                    .replace(".json", ".machine.annotation.json")))).isTrue();
        }
        // the other Machines are not touched
        assertThat(rancher.requests("PATCH", "/apis/cluster.x-k8s.io/v1beta1/namespaces/fleet-default/machines/"
                + "custom-1f0e2d3c4b5a")).isZero();

        // the emitted Machine policy, evaluated with dev.cel on the Machines as the management server now has them,
        // lets a Rancher user delete the judged Machine and no other
        AdmissionSimulator policy = emittedMachinePolicy();
        assertThat(policy.review(uiDelete(machine(MACHINE).get())).allowed()).isTrue();
        AdmissionSimulator.Decision other = policy.review(uiDelete(machine("custom-1f0e2d3c4b5a").get()));
        assertThat(other.allowed()).isFalse();
        assertThat(other.message()).contains("annotation nodegate.io/gate-verdict is missing");
        // its annotations copied onto the other custom Machine do not open it either
        GenericKubernetesResource copied = machine("custom-1f0e2d3c4b5a").get();
        copied.getMetadata().getAnnotations().putAll(machine(MACHINE).get().getMetadata().getAnnotations());
        assertThat(policy.review(uiDelete(copied)).message()).contains("its PASS is not bound to this Machine");
    }

    static AdmissionSimulator emittedMachinePolicy() {
        CliRun run = CliRun.run("policy", "--machines");
        assertThat(run.exitCode()).as(run.all()).isZero();
        @SuppressWarnings("unchecked")
        List<HasMetadata> objects = (List<HasMetadata>) SERIALIZATION.unmarshal(run.out());
        return new AdmissionSimulator(objects.stream().filter(ValidatingAdmissionPolicy.class::isInstance)
                .map(ValidatingAdmissionPolicy.class::cast).findFirst().orElseThrow());
    }

    /** A DELETE from Rancher's UI: Steve impersonates the Rancher user (rancher/steve pkg/server/server.go). */
    @SuppressWarnings("unchecked")
    static AdmissionSimulator.Request uiDelete(GenericKubernetesResource stored) {
        Map<String, Object> json = Json.MAPPER.readValue(SERIALIZATION.asJson(stored), Map.class);
        return new AdmissionSimulator.Request("DELETE", "machines", null, "u-b4qkhsnliz",
                List.of("system:authenticated", "system:cattle:authenticated"), null, json, "cluster.x-k8s.io");
    }

    static AdmissionSimulator emittedNodePolicy() {
        CliRun run = CliRun.run("policy");
        assertThat(run.exitCode()).as(run.all()).isZero();
        @SuppressWarnings("unchecked")
        List<HasMetadata> objects = (List<HasMetadata>) SERIALIZATION.unmarshal(run.out());
        return new AdmissionSimulator(objects.stream().filter(ValidatingAdmissionPolicy.class::isInstance)
                .map(ValidatingAdmissionPolicy.class::cast).findFirst().orElseThrow());
    }

    /** `kubectl delete node gpu-a11` by an operator, on the Node as the server has it now. */
    @SuppressWarnings("unchecked")
    AdmissionSimulator.Request nodeDelete() {
        Map<String, Object> json = Json.MAPPER.readValue(SERIALIZATION.asJson(api.client().nodes().withName("gpu-a11")
                .get()), Map.class);
        return new AdmissionSimulator.Request("DELETE", "nodes", null, "kim", List.of("system:authenticated"), null,
                json);
    }

    Map<String, String> nodeAnnotations() {
        return api.client().nodes().withName("gpu-a11").get().getMetadata().getAnnotations();
    }

    /** The gate run that leaves PASS on the Node and on its Machine, both admitted by their policies. */
    void passedAndAnnotated(AdmissionSimulator nodePolicy, AdmissionSimulator machinePolicy) {
        CliRun pass = gate("--machine-cluster", "prod-gpu", "--annotate");
        assertThat(pass.exitCode()).as(pass.all()).isZero();
        assertThat(nodeAnnotations()).containsEntry("nodegate.io/gate-verdict", "PASS");
        assertThat(machineAnnotations()).containsEntry("nodegate.io/gate-verdict", "PASS");
        assertThat(nodePolicy.review(nodeDelete()).allowed()).isTrue();
        assertThat(machinePolicy.review(uiDelete(machine(MACHINE).get())).allowed()).isTrue();
    }

    /** gpu-a11's BMC answering every request 503 (busy): the bmc check, and with it the run, is INVALID. */
    String[] busyBmc(RedfishTestServer bmc, TestCerts certs, Path credentials) {
        return new String[]{"--bmc", bmc.url(), "--bmc-credentials", credentials.toString(), "--bmc-ca",
                certs.caCert.toString()};
    }

    @Test
    void aLaterInvalidOrHoldRunReplacesThePassOnTheNodeAndTheMachineAndNeitherPolicyAdmitsTheDelete()
            throws IOException {
        create(recorded("machine-custom-rancher-2.13.json"));
        labelGpuA11AsRancherRegisteredIt(machineUid);
        AdmissionSimulator nodePolicy = emittedNodePolicy();
        AdmissionSimulator machinePolicy = emittedMachinePolicy();
        passedAndAnnotated(nodePolicy, machinePolicy);

        // the same gate a minute later, the host's BMC now unreadable: INVALID, and the newest verdict is the one
        // both objects carry
        clock.advance(Duration.ofMinutes(1));
        TestCerts certs = TestCerts.create(Files.createDirectories(tmp.resolve("certs")));
        Path credentials = Files.writeString(tmp.resolve("bmc.yaml"), "username: root\npassword: pw-bmc\n");
        try (RedfishTestServer bmc = RedfishTestServer.start(certs.serverCert, certs.serverKey,
                RedfishTestServer.Layout.IDRAC).account("root", "pw-bmc").system("System.Embedded.1", "UUID-A11", "Off")
                .failWith(503)) {
            List<String> args = new ArrayList<>(List.of("--machine-cluster", "prod-gpu", "--annotate"));
            args.addAll(List.of(busyBmc(bmc, certs, credentials)));
            CliRun invalid = gate(args.toArray(String[]::new));

            assertThat(invalid.exitCode()).as(invalid.all()).isEqualTo(3);
            assertThat(invalid.out()).containsIgnoringWhitespaces("gate gpu-a11: INVALID", "[bmc]        INVALID",
                    "annotated nodegate.io/gate-verdict=INVALID (replacing any earlier verdict",
                    "annotated Machine fleet-default/" + MACHINE + " nodegate.io/gate-verdict=INVALID");
        }
        assertThat(nodeAnnotations()).containsEntry("nodegate.io/gate-verdict", "INVALID")
                .containsEntry("nodegate.io/gate-at", clock.instant().toString())
                .containsEntry("nodegate.io/gate-uid", nodeUid);
        assertThat(machineAnnotations()).containsEntry("nodegate.io/gate-verdict", "INVALID")
                .containsEntry("nodegate.io/gate-uid", machineUid)
                .containsEntry("nodegate.io/gate-node-uid", nodeUid)
                .containsEntry("nodegate.io/gate-at", clock.instant().toString());
        assertThat(nodePolicy.review(nodeDelete()).allowed()).isFalse();
        assertThat(machinePolicy.review(uiDelete(machine(MACHINE).get())).allowed()).isFalse();

        // PASS again, then a run without the host owner's removal time: HOLD replaces it the same way
        clock.advance(Duration.ofMinutes(1));
        passedAndAnnotated(nodePolicy, machinePolicy);
        clock.advance(Duration.ofMinutes(1));
        CliRun hold = cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--machine-kubeconfig",
                rancherKubeconfig.toString(), "--machine-cluster", "prod-gpu", "--annotate");
        assertThat(hold.exitCode()).as(hold.all()).isEqualTo(4);
        assertThat(nodeAnnotations()).containsEntry("nodegate.io/gate-verdict", "HOLD");
        assertThat(machineAnnotations()).containsEntry("nodegate.io/gate-verdict", "HOLD");
        assertThat(nodePolicy.review(nodeDelete()).allowed()).isFalse();
        assertThat(machinePolicy.review(uiDelete(machine(MACHINE).get())).allowed()).isFalse();
    }

    @Test
    void aReplacementThatCannotBeWrittenSaysThePassIsStillInForceAndExitsThree() {
        create(recorded("machine-custom-rancher-2.13.json"));
        labelGpuA11AsRancherRegisteredIt(machineUid);
        passedAndAnnotated(emittedNodePolicy(), emittedMachinePolicy());

        // HOLD (no removal time), and the Node refuses every PATCH: the Machine is still written, the Node is not
        clock.advance(Duration.ofMinutes(1));
        api.failOn("PATCH", "/api/v1/nodes/gpu-a11", 500);
        CliRun hold = cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--machine-kubeconfig",
                rancherKubeconfig.toString(), "--machine-cluster", "prod-gpu", "--annotate");

        assertThat(hold.exitCode()).as(hold.all()).isEqualTo(3);
        assertThat(hold.out()).containsIgnoringWhitespaces("gate gpu-a11: HOLD",
                "annotated Machine fleet-default/" + MACHINE + " nodegate.io/gate-verdict=HOLD");
        assertThat(hold.err()).startsWith("nodegate: ").containsIgnoringWhitespaces("gate gpu-a11: HOLD, but it could not replace",
                "writing nodegate.io/gate-verdict=HOLD on Node gpu-a11 failed",
                "Node gpu-a11 now carries: PASS (gate-at " + seed.gateTime + ")",
                "That earlier PASS is STILL IN FORCE: the admission policy admits its DELETE",
                "kubectl annotate node gpu-a11 nodegate.io/gate-verdict-");
        assertThat(nodeAnnotations()).containsEntry("nodegate.io/gate-verdict", "PASS");
        assertThat(machineAnnotations()).containsEntry("nodegate.io/gate-verdict", "HOLD");

        // the Node cannot even be read: nothing can be written on it, and the run says the PASS may stand
        api.clearFailures();
        api.failOn("GET", "/api/v1/nodes", 500);
        api.failOn("GET", "/api/v1/nodes/gpu-a11", 500);
        clock.advance(Duration.ofMinutes(1));
        CliRun unread = gate("--machine-cluster", "prod-gpu", "--annotate");

        assertThat(unread.exitCode()).as(unread.all()).isEqualTo(3);
        assertThat(unread.out()).containsIgnoringWhitespaces("gate gpu-a11: INVALID");
        assertThat(unread.err()).containsIgnoringWhitespaces("Node gpu-a11 could not be read",
                "an earlier nodegate.io/gate-verdict=PASS on it, if any, is STILL IN FORCE");
        assertThat(api.requests("PATCH", "/api/v1/nodes/gpu-a11")).isEqualTo(2);
    }

    @Test
    void rancher215MachinesWithoutANodeRefUidAreBoundByTheNodesMachineLabel() {
        // Cluster API v1.13 keeps only the nodeRef's name; the Node's rke.cattle.io/machine label names the Machine
                create(recorded("machine-custom-rancher-2.15.json"));
        labelGpuA11AsRancherRegisteredIt(machineUid);

        // the cluster's name comes from the Node's plan.cattle.io/cluster-name (Rancher 2.15)
        CliRun g = gate("--annotate");

        assertThat(g.exitCode()).as(g.all()).isZero();
        assertThat(g.out()).containsIgnoringWhitespaces("[machine]    PASS     Rancher Machine fleet-default/" + MACHINE);
        assertThat(machineAnnotations()).containsEntry("nodegate.io/gate-verdict", "PASS")
                .containsEntry("nodegate.io/gate-node-uid", nodeUid);

        // near miss: the label names another Machine
        labelGpuA11AsRancherRegisteredIt("00000000-1111-2222-3333-444444444444");
        CliRun other = gate();
        assertThat(other.exitCode()).as(other.all()).isEqualTo(3);
        assertThat(other.out()).containsIgnoringWhitespaces("[machine]    INVALID", "has label rke.cattle.io/machine=00000000-1111",
                "another Machine than fleet-default/" + MACHINE);
    }

    @Test
    void aMachineWhoseNodeRefIsAnotherNodeObjectIsInvalidAndNotAnnotated() {
                // the Machine still points at the Node object gpu-a11 had before it was recreated
        create(recorded("machine-custom-rancher-2.13.json", "0d9c8b7a-6f5e-4d3c-2b1a-098f7e6d5c4b"));
        labelGpuA11AsRancherRegisteredIt(machineUid);

        CliRun g = gate("--machine-cluster", "prod-gpu", "--annotate");

        assertThat(g.exitCode()).as(g.all()).isEqualTo(3);
        assertThat(g.out()).containsIgnoringWhitespaces("gate gpu-a11: INVALID", "[machine]    INVALID",
                "has status.nodeRef.uid 0d9c8b7a-6f5e-4d3c-2b1a-098f7e6d5c4b, but Node gpu-a11 has uid " + nodeUid,
                "not annotated: verdict INVALID");
        assertThat(machineAnnotations()).doesNotContainKey("nodegate.io/gate-verdict");
        assertThat(rancher.requests("PATCH", MACHINE_PATH)).isZero();
    }

    @Test
    void aRancherNodeWithoutItsMachineIsInvalid() {
                // only another cluster's Machine names a Node gpu-a11
        GenericKubernetesResource elsewhere = recorded("machine-custom-rancher-2.13.json");
        elsewhere.getMetadata().getLabels().put("cluster.x-k8s.io/cluster-name", "lab");
        ((Map<String, Object>) elsewhere.getAdditionalProperties().get("spec")).put("clusterName", "lab");
        create(elsewhere);
        labelGpuA11AsRancherRegisteredIt(machineUid);

        CliRun g = gate("--machine-cluster", "prod-gpu");

        assertThat(g.exitCode()).as(g.all()).isEqualTo(3);
        assertThat(g.out()).containsIgnoringWhitespaces("[machine]    INVALID", "carries rke.cattle.io/machine=" + machineUid,
                "no Machine of cluster prod-gpu in fleet-default has status.nodeRef.name=gpu-a11",
                "Machines of other clusters name a Node of this name: [fleet-default/" + MACHINE + " of cluster lab]");
    }

    @Test
    void withoutAManagementClusterTheMachineIsNotChecked() {
        machineUid = "7c0b9f3e-5d41-4a8e-9b7a-2f1e6c3d8a90";
        labelGpuA11AsRancherRegisteredIt(machineUid);

        CliRun g = cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", seed.a11Reply);

        assertThat(g.exitCode()).as(g.all()).isZero();
        assertThat(g.out()).containsIgnoringWhitespaces("[machine]    not checked Rancher Machine",
                "no --machine-context or --machine-kubeconfig given",
                "gpu-a11 was registered by Rancher as a Machine (rke.cattle.io/machine=" + machineUid);
    }

    @Test
    void aManagementClusterThatCannotBeReadMakesTheRunInvalid() {
                create(recorded("machine-custom-rancher-2.13.json"));
        labelGpuA11AsRancherRegisteredIt(machineUid);
        rancher.failOn("GET", "/apis/cluster.x-k8s.io/v1beta1/namespaces/fleet-default/machines", 403);

        CliRun g = gate("--machine-cluster", "prod-gpu", "--annotate");

        assertThat(g.exitCode()).as(g.all()).isEqualTo(3);
        assertThat(g.out()).containsIgnoringWhitespaces("gate gpu-a11: INVALID", "management cluster --machine-kubeconfig");
        assertThat(api.requests("PATCH", "/api/v1/nodes/gpu-a11")).isZero();
    }

    @Test
    void removeDeletesTheMachineWithPreconditionsAfterSavingBothAndFollowsTheCascade() throws IOException {
                create(recorded("machine-custom-rancher-2.13.json"));
        labelGpuA11AsRancherRegisteredIt(machineUid);
        assertThat(gate("--machine-cluster", "prod-gpu", "--annotate").exitCode()).isZero();
        playClusterApiAndGarbageCollector();

        CliRun r = cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--machine-kubeconfig",
                rancherKubeconfig.toString(), "--machine-cluster", "prod-gpu");

        assertThat(r.exitCode()).as(r.all()).isZero();
        assertThat(r.out()).containsIgnoringWhitespaces("saved Node, Lease, CSINode and node-password Secret metadata and Machine"
                        + " fleet-default/" + MACHINE, "deleted Machine fleet-default/" + MACHINE + " (uid " + machineUid + ")",
                "Cluster API now drains Node gpu-a11",
                "Machine fleet-default/" + MACHINE + " and Node gpu-a11 NotFound; Lease, CSINode, node-password Secret"
                        + " NotFound; no pod bound to gpu-a11", "removed gpu-a11: cascade complete");
        // the Machine was deleted, the Node was not (Cluster API does that)
        assertThat(rancher.requests("DELETE", MACHINE_PATH)).isEqualTo(1);
        assertThat(api.requests("DELETE", "/api/v1/nodes/gpu-a11")).isZero();
        Path dir;
        try (Stream<Path> dirs = Files.list(evidence)) {
            dir = dirs.filter(p -> p.getFileName().toString().startsWith("remove-gpu-a11-")).findFirst().orElseThrow();
        }
        var machine = Json.MAPPER.readTree(Files.readString(dir.resolve("machine.json")));
        assertThat(machine.path("metadata").path("uid").asString()).isEqualTo(machineUid);
        assertThat(machine.path("metadata").path("annotations").path("nodegate.io/gate-verdict").asString())
                .isEqualTo("PASS");
        assertThat(Json.MAPPER.readTree(Files.readString(dir.resolve("node.json"))).path("metadata").path("uid")
                .asString()).isEqualTo(nodeUid);
        var removal = Json.MAPPER.readTree(Files.readString(dir.resolve("removal.json")));
        assertThat(removal.path("state").asString()).isEqualTo("complete");
        assertThat(removal.path("machine").path("name").asString()).isEqualTo(MACHINE);
        assertThat(removal.path("backups").path("machine").asString()).endsWith("/machine.json");
    }

    /**
     * The fault matrix on the management cluster: every call gate --annotate and remove --machine-context make there
     * is broken in turn with every fault that does not reach the server (500, 403, 429, reset, timeout, malformed).
     * No cell passes, none annotates or deletes anything the fault came before, each says what happened.
     */
    @Test
    void everyManagementClusterFaultEndsInvalidOrRefusedAndChangesNothing() throws IOException {
        create(recorded("machine-custom-rancher-2.13.json"));
        labelGpuA11AsRancherRegisteredIt(machineUid);
        try (FaultProxy proxy = new FaultProxy(rancher.url())) {
            proxy.hangFor(Duration.ofMillis(2500));
            Path viaProxy = ApiTestServer.writeKubeconfig(tmp.resolve("rancher-via-proxy.yaml"), "rancher", proxy.url());
            String[] gate = {"gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", seed.a11Reply,
                    "--machine-kubeconfig", viaProxy.toString(), "--machine-cluster", "prod-gpu", "--annotate",
                    "--request-timeout", "1500ms"};
            CliRun clean = cli(gate);
            assertThat(clean.exitCode()).as(clean.all()).isZero();
            List<String> calls = proxy.log();
            assertThat(calls).anyMatch(c -> c.startsWith("PATCH " + MACHINE_PATH));
            for (int i = 0; i < calls.size(); i++) {
                for (FaultProxy.Fault f : FaultProxy.Fault.NOT_FORWARDED) {
                    String before = machineAnnotations().toString();
                    proxy.breakCall(i, f);
                    CliRun run = cli(gate);
                    String cell = "#" + i + " " + calls.get(i) + " " + f + " -> " + run.all();
                    assertThat(run.exitCode()).as(cell).isEqualTo(3);
                    assertThat(run.out()).as(cell).doesNotContain(": PASS\n");
                    assertThat(run.all()).as(cell).containsAnyOf("gate gpu-a11: INVALID",
                            "annotating Machine fleet-default/" + MACHINE + " failed");
                    assertThat(machineAnnotations().toString()).as("nothing written: " + cell).isEqualTo(before);
                }
            }

            // the newest gate record is the one remove reads: a clean gate, a second after the faulted ones
            proxy.reset();
            clock.advance(Duration.ofSeconds(1));
            assertThat(cli(gate).exitCode()).isZero();
            String[] remove = {"remove", "gpu-a11", "--baseline", baseline.toString(), "--machine-kubeconfig",
                    viaProxy.toString(), "--machine-cluster", "prod-gpu", "--request-timeout", "1500ms"};
            proxy.reset();
            // learn remove's calls without letting it delete: the DELETE is the last call before the cascade
            List<String> removeCalls = new ArrayList<>(List.of(
                    "GET /apis/provisioning.cattle.io/v1/namespaces/fleet-default/clusters/prod-gpu",
                    "GET /apis/cluster.x-k8s.io/v1beta1/namespaces/fleet-default/machines?limit=500",
                    "GET " + MACHINE_PATH, "DELETE " + MACHINE_PATH));
            for (int i = 0; i < removeCalls.size(); i++) {
                for (FaultProxy.Fault f : FaultProxy.Fault.NOT_FORWARDED) {
                    proxy.breakCall(i, f);
                    CliRun run = cli(remove);
                    String cell = "#" + i + " " + removeCalls.get(i) + " " + f + " -> " + run.all();
                    assertThat(proxy.log()).as(cell).hasSizeGreaterThan(i);
                    assertThat(proxy.log().get(i)).as(cell).isEqualTo(removeCalls.get(i));
                    assertThat(run.exitCode()).as(cell).isIn(3, 5);
                    assertThat(run.err()).as(cell).startsWith("nodegate: ");
                    if (removeCalls.get(i).startsWith("DELETE")) {
                        assertThat(run.err()).as(cell).contains("was not deleted");
                    }
                    assertThat(machine(MACHINE).get()).as("Machine still there: " + cell).isNotNull();
                    assertThat(api.client().nodes().withName("gpu-a11").get()).as(cell).isNotNull();
                }
            }
        }
    }

    @Test
    void everyManagementClusterRequestIsGrantedByTheEmittedRoleAndNothingMore() {
        create(recorded("machine-custom-rancher-2.13.json"));
        labelGpuA11AsRancherRegisteredIt(machineUid);
        assertThat(gate("--machine-cluster", "prod-gpu", "--annotate").exitCode()).isZero();
        playClusterApiAndGarbageCollector();
        assertThat(cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--machine-kubeconfig",
                rancherKubeconfig.toString(), "--machine-cluster", "prod-gpu").exitCode()).isZero();

        List<String> requests = rancher.requestLog();
        assertThat(requests).anyMatch(r -> r.startsWith("GET /apis/cluster.x-k8s.io/v1beta1/namespaces/fleet-default/machines?"))
                .anyMatch(r -> r.startsWith("GET /apis/provisioning.cattle.io/v1/namespaces/fleet-default/clusters/prod-gpu"))
                .anyMatch(r -> r.startsWith("PATCH " + MACHINE_PATH)).anyMatch(r -> r.startsWith("DELETE " + MACHINE_PATH));
        RbacAuthorizer rbac = new RbacAuthorizer(PolicyBundle.ofMachines(new MachinePolicySettings(
                PolicySettings.DEFAULT_OPERATORS_GROUP, PolicySettings.DEFAULT_BREAK_GLASS_GROUP, List.of(), List.of(),
                "fleet-default")).objects());
        assertThat(requests.stream().filter(r -> !rbac.allows(r)).toList()).isEmpty();
        // nothing else: other namespaces, other kinds, the provisioning Cluster's writes, the CustomMachine
        assertThat(rbac.allows("GET /apis/cluster.x-k8s.io/v1beta1/namespaces/fleet-local/machines?limit=500")).isFalse();
        assertThat(rbac.allows("DELETE /apis/provisioning.cattle.io/v1/namespaces/fleet-default/clusters/prod-gpu"))
                .isFalse();
        assertThat(rbac.allows("DELETE /apis/rke.cattle.io/v1/namespaces/fleet-default/custommachines/" + MACHINE))
                .isFalse();
        assertThat(rbac.allows("PUT " + MACHINE_PATH)).isFalse();
        assertThat(rbac.allows("GET /api/v1/namespaces/fleet-default/secrets/prod-gpu-kubeconfig")).isFalse();
    }

    @Test
    void aMachineChangedBetweenTheCheckAndTheDeleteIsRefusedByTheApiServersPrecondition() {
                create(recorded("machine-custom-rancher-2.13.json"));
        labelGpuA11AsRancherRegisteredIt(machineUid);
        assertThat(gate("--machine-cluster", "prod-gpu", "--annotate").exitCode()).isZero();
        // Rancher writes the Machine just before nodegate's DELETE arrives: its resourceVersion moves on
        rancher.beforeServing("DELETE", MACHINE_PATH, "{\"metadata\":{\"labels\":{\"touched\":\"by-rancher\"}}}");

        CliRun r = cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--machine-kubeconfig",
                rancherKubeconfig.toString(), "--machine-cluster", "prod-gpu");

        assertThat(r.exitCode()).as(r.all()).isEqualTo(5);
        assertThat(r.all()).containsIgnoringWhitespaces("Machine fleet-default/" + MACHINE + " was not deleted: the API server refused"
                + " the uid/resourceVersion precondition");
        assertThat(machineAnnotations()).containsEntry("nodegate.io/gate-verdict", "PASS");
        assertThat(api.client().nodes().withName("gpu-a11").get()).isNotNull();
    }

    @Test
    void removeRefusesAGateMadeWithoutTheMachineAndAMachineChangedSinceTheGate() {
                create(recorded("machine-custom-rancher-2.13.json"));
        labelGpuA11AsRancherRegisteredIt(machineUid);
        assertThat(cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", seed.a11Reply,
                "--annotate").exitCode()).isZero();

        CliRun without = cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--machine-kubeconfig",
                rancherKubeconfig.toString(), "--machine-cluster", "prod-gpu");

        assertThat(without.exitCode()).as(without.all()).isEqualTo(5);
        assertThat(without.all()).containsIgnoringWhitespaces("was made without --machine-context", "Nothing deleted");

        assertThat(gate("--machine-cluster", "prod-gpu", "--annotate").exitCode()).isZero();
        machine(MACHINE).edit(m -> {
                    m.getMetadata().getLabels().put("touched", "after-the-gate");
                    return m;
                });

        CliRun changed = cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--machine-kubeconfig",
                rancherKubeconfig.toString(), "--machine-cluster", "prod-gpu");

        assertThat(changed.exitCode()).as(changed.all()).isEqualTo(5);
        assertThat(changed.all()).containsIgnoringWhitespaces("Machine fleet-default/" + MACHINE + " changed since the gate");
        assertThat(rancher.requests("DELETE", MACHINE_PATH)).isZero();
        assertThat(api.requests("DELETE", "/api/v1/nodes/gpu-a11")).isZero();
    }
}
