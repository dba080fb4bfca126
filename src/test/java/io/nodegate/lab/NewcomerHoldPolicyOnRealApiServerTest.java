package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.lifecycle.inventory.InventoryStore;
import io.nodegate.lifecycle.quarantine.TombstoneLedger;
import io.nodegate.model.NewcomerHold;
import io.nodegate.model.NodeInventory;
import io.nodegate.model.NodeInventory.Host;
import io.nodegate.model.Tombstone;
import io.nodegate.policy.NewcomerHoldPolicy;
import io.nodegate.testing.Await;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.FleetNodes;
import io.nodegate.testing.RealControlPlane;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static io.nodegate.lab.LabNodes.registering;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The newcomer hold that {@code nodegate policy --hold} prints, on a real kube-apiserver 1.34 serving
 * MutatingAdmissionPolicy v1beta1 (the lab turns the feature gate and the API on, docs/lab.md): the apiserver
 * accepts the policy and its two bindings as printed, type-checks the CEL against the Node and ConfigMap schemas, and
 * its own JSON Patch puts the taint on the Node a real (simulated) kubelet registers. The seed's case: a host removed
 * and tombstoned comes back under a new name and its Node is born held; with an inventory declared, a declared host
 * is born untainted and an undeclared one held; the largest inventory a ConfigMap holds is still decided.
 *
 * <p>It runs on a lab of its own, not the run's shared one: deleting this policy's bindings (which the clean-up does)
 * stops the apiserver's ConfigMap informer that every ConfigMap-param policy reads, the quarantine's included, until
 * the apiserver restarts (PolicyParamsAfterUnbindingOnRealApiServerTest shows it; docs/policy.md, "Never delete a
 * binding to switch a policy off").
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NewcomerHoldPolicyOnRealApiServerTest {

    private static final String NS = "nodegate-system";
    private static final String HOST = "t-hold-a02";
    private static final String RENAMED = "t-hold-new-01";
    private static final String DECLARED = "t-hold-declared";
    private static final String NO_EXECUTE = "t-hold-no-execute";
    private static final String UNDECLARED = "t-hold-undeclared";
    private static final String DECLARED_UUID = "4c4c4544-0044-3010-8031-b4c04f443031";
    private static final String DECLARED_MID = "d01d01d01d01d01d01d01d01d01d01d0";

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static RealControlPlane lab;
    private static String ours;

    @BeforeAll
    static void apply() {
        lab = RealControlPlane.start(1, 1, "hold");
        ours = printedHold();
        assertThat(ours).contains("kind: \"MutatingAdmissionPolicy\"", "kind: \"MutatingAdmissionPolicyBinding\"");
        lab.kubectl(null, "create", "namespace", NS);
        lab.kubectl(ours, "apply", "-f", "-").requireOk("kubectl apply of nodegate policy --hold");
    }

    @AfterAll
    static void cleanUp() {
        if (lab == null) {
            return;
        }
        for (String binding : List.of(NewcomerHoldPolicy.TOMBSTONES_BINDING, NewcomerHoldPolicy.INVENTORY_BINDING)) {
            lab.kubectl(null, "delete", "--ignore-not-found", "mutatingadmissionpolicybinding", binding);
        }
        lab.kubectl(null, "delete", "--ignore-not-found", "mutatingadmissionpolicy", NewcomerHoldPolicy.NAME);
        lab.kubectl(null, "delete", "--ignore-not-found", "-n", NS, "configmap", NodeInventory.CONFIGMAP);
        lab.lab("kubelet", "stop", HOST);
        // the tombstone too: other classes of the run read the same ledger
        try (KubernetesClient admin = lab.client("admin")) {
            new TombstoneLedger(admin, NS).release(HOST);
        }
        for (String node : List.of(HOST, RENAMED, DECLARED, UNDECLARED, NO_EXECUTE)) {
            lab.kubectl(null, "delete", "--ignore-not-found", "node", node, "--as=lab-admin",
                    "--as-group=system:masters", "--as-group=nodegate:break-glass");
        }
        lab.down().requireOk("bin/lab down");
        lab.deleteDirectory();
    }

    /** The hold and its bindings as `policy --hold` prints them with {@code flags}; the gate's are other classes'. */
    private static String printedHold(String... flags) {
        List<String> args = new java.util.ArrayList<>(List.of("policy", "--hold", "--no-rancher"));
        args.addAll(List.of(flags));
        CliRun policy = CliRun.run(args.toArray(String[]::new));
        assertThat(policy.exitCode()).as(policy.all()).isZero();
        return Arrays.stream(policy.out().split("(?m)^---\\n"))
                .filter(doc -> doc.contains("kind: \"MutatingAdmissionPolicy"))
                .map(doc -> "---\n" + doc).collect(Collectors.joining());
    }

    private static List<Taint> taints(KubernetesClient admin, String name) {
        Node n = admin.nodes().withName(name).get();
        assertThat(n).as("Node " + name).isNotNull();
        return n.getSpec() == null || n.getSpec().getTaints() == null ? List.of() : n.getSpec().getTaints();
    }

    private static boolean held(KubernetesClient admin, String name) {
        return taints(admin, name).stream().anyMatch(t -> NewcomerHold.TAINT_KEY.equals(t.getKey()));
    }

    /** Whether a dry-run CREATE of this Node comes out of admission with the hold's taint. */
    private static boolean bornHeld(String name, String uuid, String mid) {
        RealControlPlane.Result r = lab.kubectl(registering(name, uuid, mid), "create", "--dry-run=server", "-o",
                "jsonpath={.spec.taints}", "-f", "-");
        r.requireOk("dry-run create of " + name);
        return r.output().contains(NewcomerHold.TAINT_KEY);
    }

    /**
     * The largest inventory one ConfigMap holds: `inventory init` for 3,300 Nodes with full-length identities (about
     * 999,000 of the 1,048,576 bytes a ConfigMap may hold), applied as docs/inventory.md says. kubectl's client-side
     * apply refuses it (its last-applied annotation would pass the API server's 256 KiB limit on annotations);
     * server-side apply takes it. The hold then still decides every case on the apiserver: the first and last
     * declared hosts are born free, a stranger is held, and a declared name reporting another machineID is held.
     * That last case is the one that makes the policy scan the index keys for the name; a scan past the apiserver's
     * CEL cost limit is an error, which the policy's failurePolicy Ignore turns into no taint, so a held Node shows the
     * scan was evaluated.
     */
    @Test
    @Order(2)
    void theLargestInventoryAConfigMapHoldsIsStillDecided(@TempDir Path dir) throws Exception {
        int count = 3300;
        Files.writeString(dir.resolve("nodes.json"), FleetNodes.nodeList(count));
        CliRun init = CliRun.run("inventory", "init", "-f", dir.toString(), "--now", "2026-10-26T08:00:00Z");
        assertThat(init.exitCode()).as(init.err()).isZero();
        lab.kubectl(null, "delete", "--ignore-not-found", "-n", NS, "configmap", NodeInventory.CONFIGMAP)
                .requireOk("delete the first test's inventory");

        RealControlPlane.Result clientSide = lab.kubectl(init.out(), "apply", "-f", "-");
        assertThat(clientSide.code()).as(clientSide.output()).isNotZero();
        assertThat(clientSide.output()).contains("metadata.annotations: Too long");
        lab.kubectl(init.out(), "apply", "--server-side", "-f", "-").requireOk("kubectl apply --server-side");

        int last = count - 1;
        String stranger = "4c4c4544-ffff-3010-8031-b4c04f449999";
        // the binding reads its param through an informer: wait until this inventory, not none or the last one, rules
        Await.until("the large inventory in force", Duration.ofSeconds(30),
                () -> !bornHeld(FleetNodes.name(last), FleetNodes.systemUuid(last), FleetNodes.machineId(last))
                        && bornHeld("t-hold-stranger", stranger, "eeee"));
        assertThat(bornHeld(FleetNodes.name(0), FleetNodes.systemUuid(0), FleetNodes.machineId(0))).isFalse();
        assertThat(bornHeld(FleetNodes.name(last), FleetNodes.systemUuid(last), FleetNodes.machineId(0)))
                .as("a declared name reporting another host's machineID").isTrue();
        assertThat(bornHeld(FleetNodes.name(1), stranger, FleetNodes.machineId(1)))
                .as("a declared name reporting another systemUUID").isTrue();
    }

    /**
     * `policy --hold --hold-effect NoExecute`, applied over the NoSchedule one as an admin changing the effect would:
     * the apiserver's own patch then stores a newcomer with the NoExecute taint, and one hold taint only. It runs
     * after the large inventory is in force, which holds the stranger it creates.
     */
    @Test
    @Order(3)
    void theNoExecuteVariantStoresANewcomerWithThatEffect() {
        lab.kubectl(printedHold("--hold-effect", "NoExecute"), "apply", "-f", "-")
                .requireOk("kubectl apply of policy --hold --hold-effect NoExecute");

        String stranger = "4c4c4544-ffff-3010-8031-b4c04f44aaaa";
        Await.until("the NoExecute effect in force", Duration.ofSeconds(30), () -> {
            RealControlPlane.Result dryRun = lab.kubectl(registering("t-hold-probe", stranger, "eeee"), "create",
                    "--dry-run=server", "-o", "json", "-f", "-").requireOk("dry-run create");
            for (JsonNode t : JSON.readTree(dryRun.output()).path("spec").path("taints")) {
                if (NewcomerHold.TAINT_KEY.equals(t.path("key").asString())) {
                    return "NoExecute".equals(t.path("effect").asString());
                }
            }
            return false;
        });
        lab.kubectl(registering(NO_EXECUTE, stranger, "eeee"), "create", "-f", "-")
                .requireOk("create " + NO_EXECUTE);
        try (KubernetesClient admin = lab.client("admin")) {
            assertThat(taints(admin, NO_EXECUTE)).filteredOn(t -> NewcomerHold.TAINT_KEY.equals(t.getKey()))
                    .singleElement().satisfies(t -> assertThat(t.getEffect()).isEqualTo("NoExecute"));
        }
    }

    @Test
    @Order(1)
    void aRemovedHostBackUnderANewNameIsBornHeldAndTheInventoryDecidesTheRest() {
        lab.lab("kubelet", "add", HOST).requireOk("add host " + HOST);
        Await.until("the Node " + HOST + " registered", Duration.ofSeconds(60),
                () -> lab.kubeletLog(HOST).contains("registered Node " + HOST));
        try (KubernetesClient admin = lab.client("admin")) {
            // before any ledger or inventory: both bindings find no param, a new host is born as it came
            assertThat(held(admin, HOST)).isFalse();

            Node removed = admin.nodes().withName(HOST).get();
            String uuid = removed.getStatus().getNodeInfo().getSystemUUID();
            String mid = removed.getStatus().getNodeInfo().getMachineID();
            lab.lab("kubelet", "stop", HOST).requireOk("stop " + HOST);
            lab.kubectl(null, "delete", "node", HOST, "--as=lab-admin", "--as-group=system:masters",
                    "--as-group=nodegate:break-glass").requireOk("delete " + HOST);
            new TombstoneLedger(admin, NS).record(new Tombstone(HOST, removed.getMetadata().getUid(), uuid, mid,
                    Instant.now(), null, "lab-test"));

            // the binding reads its ConfigMaps through an informer: wait until a dry run comes out tainted
            Await.until("the tombstone in force", Duration.ofSeconds(30), () -> lab.kubectl(
                    registering("t-hold-probe", uuid, ""), "create", "--dry-run=server", "-o", "jsonpath={.spec.taints}", "-f", "-").output()
                    .contains(NewcomerHold.TAINT_KEY));

            // the seed's case: the same host rebooted with its config in place, under another name
            lab.lab("kubelet", "rejoin", HOST, "--as", RENAMED).requireOk("rejoin " + HOST + " as " + RENAMED);
            Await.until("the renamed host registered", Duration.ofSeconds(60),
                    () -> admin.nodes().withName(RENAMED).get() != null);
            assertThat(taints(admin, RENAMED)).filteredOn(t -> NewcomerHold.TAINT_KEY.equals(t.getKey()))
                    .singleElement().satisfies(t -> assertThat(t.getEffect()).isEqualTo("NoSchedule"));
            // the kubelet cannot lift it itself: NodeRestriction refuses a node's change of its own taints
            assertThat(held(admin, RENAMED)).isTrue();

            // a declared inventory: the host under its name with both IDs is born free, anything else held
            admin.resource(InventoryStore.configMap(new NodeInventory(List.of(new Host(DECLARED, DECLARED_UUID,
                    DECLARED_MID, List.of(), null)), List.of()), NS, null)).create();
            Await.until("the inventory in force", Duration.ofSeconds(30), () -> lab.kubectl(
                    registering("t-hold-probe", "4c4c4544-0044-3010-8031-b4c04f449999", "ffff"), "create", "--dry-run=server", "-o",
                    "jsonpath={.spec.taints}", "-f", "-").output().contains(NewcomerHold.TAINT_KEY));
            lab.kubectl(registering(DECLARED, DECLARED_UUID.toUpperCase(), DECLARED_MID), "create", "-f", "-")
                    .requireOk("create the declared Node");
            lab.kubectl(registering(UNDECLARED, "4c4c4544-0044-3010-8031-b4c04f443032",
                            "d02d02d02d02d02d02d02d02d02d02d0"), "create", "-f", "-").requireOk("create an undeclared Node");
            assertThat(held(admin, DECLARED)).as(taints(admin, DECLARED).toString()).isFalse();
            assertThat(held(admin, UNDECLARED)).isTrue();
        }
    }
}
