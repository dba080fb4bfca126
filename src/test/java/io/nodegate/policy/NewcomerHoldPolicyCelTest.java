package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.MutatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.MutatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.NewcomerHold;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeInventory;
import io.nodegate.model.NodeInventory.Host;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.TombstoneShards;
import io.nodegate.source.kube.StateAssembler;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The newcomer hold as `nodegate policy --hold` prints it (parsed back from its YAML), evaluated with Google's CEL on
 * the CREATE a registering kubelet sends (its Node with status.nodeInfo, pkg/kubelet/kubelet_node_status.go), with
 * the tombstones ledger as {@link TombstoneBook} writes it and the inventory as {@link NodeInventory} writes it. The
 * watch's rule ({@link NewcomerHold#reasons}) is the reference: on a Node alone (no other live Node to share an
 * identity with, which only the watch can see) the two must agree.
 */
class NewcomerHoldPolicyCelTest {

    private static final String A02_UUID = "4c4c4544-0031-3510-8052-b4c04f4e3332";
    private static final String A02_MID = "a02a02a02a02a02a02a02a02a02a02a0";
    private static final String B01_UUID = "4c4c4544-0042-3010-8031-b4c04f423031";
    private static final String B01_MID = "b01b01b01b01b01b01b01b01b01b01b0";
    private static final String NS = TombstoneBook.DEFAULT_NAMESPACE;

    private static MutatingSimulator simulator;
    private static List<MutatingAdmissionPolicyBinding> bindings;

    @BeforeAll
    static void emit() {
        CliRun run = CliRun.run("policy", "--hold", "--no-rancher");
        assertThat(run.exitCode()).as(run.all()).isZero();
        @SuppressWarnings("unchecked")
        List<HasMetadata> objects = (List<HasMetadata>) new KubernetesSerialization().unmarshal(run.out());
        MutatingAdmissionPolicy policy = objects.stream().filter(MutatingAdmissionPolicy.class::isInstance)
                .map(MutatingAdmissionPolicy.class::cast).findFirst().orElseThrow();
        assertThat(policy.getApiVersion()).isEqualTo("admissionregistration.k8s.io/v1beta1");
        bindings = objects.stream().filter(MutatingAdmissionPolicyBinding.class::isInstance)
                .map(MutatingAdmissionPolicyBinding.class::cast).toList();
        assertThat(bindings).extracting(b -> b.getMetadata().getName())
                .containsExactly(NewcomerHoldPolicy.TOMBSTONES_BINDING, NewcomerHoldPolicy.INVENTORY_BINDING);
        simulator = new MutatingSimulator(policy);
    }

    /** The Node a kubelet POSTs at registration: no taints unless registered with them (--register-with-taints). */
    static Map<String, Object> registering(String name, String systemUuid, String machineId) {
        Map<String, Object> node = NodeFixtures.worker7();
        Map<String, Object> meta = NodeFixtures.metadata(node);
        for (String serverSet : List.of("uid", "resourceVersion", "creationTimestamp", "finalizers", "annotations")) {
            meta.remove(serverSet);
        }
        meta.put("name", name);
        node.put("spec", new LinkedHashMap<String, Object>());
        @SuppressWarnings("unchecked")
        Map<String, Object> nodeInfo = (Map<String, Object>) ((Map<String, Object>) node.get("status")).get("nodeInfo");
        nodeInfo.put("systemUUID", systemUuid);
        nodeInfo.put("machineID", machineId);
        return node;
    }

    private static Map<String, Object> configMap(String name, Map<String, String> data, Map<String, String> labels) {
        Map<String, Object> cm = new LinkedHashMap<>();
        cm.put("apiVersion", "v1");
        cm.put("kind", "ConfigMap");
        cm.put("metadata", Map.of("name", name, "namespace", NS, "labels", labels));
        if (!data.isEmpty()) {
            cm.put("data", new LinkedHashMap<>(data));
        }
        return cm;
    }

    private static Map<String, Object> ledger(TombstoneBook book) {
        return configMap(TombstoneBook.CONFIGMAP, book.data(), Map.of(TombstoneShards.LABEL, TombstoneShards.LABEL_VALUE));
    }

    private static Map<String, Object> inventory(Host... hosts) {
        return configMap(NodeInventory.CONFIGMAP, new NodeInventory(List.of(hosts), List.of()).data(),
                Map.of(NodeInventory.LABEL, NodeInventory.LABEL_VALUE));
    }

    private static TombstoneBook a02Removed() {
        return TombstoneBook.empty().with(new Tombstone("gpu-a02", "uid-old", A02_UUID, A02_MID,
                Instant.parse("2026-10-21T06:31:10Z"), "c0ffee", "kim"));
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> taints(Map<String, Object> node) {
        Object spec = node.get("spec");
        Object taints = spec == null ? null : ((Map<String, Object>) spec).get("taints");
        return taints == null ? List.of() : (List<Map<String, Object>>) taints;
    }

    private static boolean held(MutatingSimulator.Result r) {
        assertThat(r.error()).isNull();
        return taints(r.object()).stream().anyMatch(t -> NewcomerHold.TAINT_KEY.equals(t.get("key")));
    }

    private static MutatingSimulator.Result create(Map<String, Object> node, List<Map<String, Object>> configMaps) {
        return simulator.create(node, bindings, configMaps);
    }

    @Test
    void theSeedsHostBackUnderANewNameGetsTheTaintInItsCreate() {
        MutatingSimulator.Result r = create(registering("new-01", A02_UUID.toUpperCase(), A02_MID),
                List.of(ledger(a02Removed())));

        assertThat(taints(r.object())).containsExactly(Map.of("key", "nodegate.io/unaccepted", "effect", "NoSchedule"));
        assertThat(r.applied()).singleElement().asString().contains(NewcomerHoldPolicy.TOMBSTONES_BINDING,
                "/spec/taints");
    }

    /**
     * `--hold-effect NoExecute`: the same rule, the taint with the effect NoExecute (for hosts that must not run
     * anything), and a Node registered with the hold already, whatever its effect, is left as it came.
     */
    @Test
    void withHoldEffectNoExecuteTheTaintIsNoExecute() {
        CliRun run = CliRun.run("policy", "--hold", "--hold-effect", "NoExecute", "--no-rancher");
        assertThat(run.exitCode()).as(run.all()).isZero();
        @SuppressWarnings("unchecked")
        List<HasMetadata> objects = (List<HasMetadata>) new KubernetesSerialization().unmarshal(run.out());
        MutatingAdmissionPolicy policy = objects.stream().filter(MutatingAdmissionPolicy.class::isInstance)
                .map(MutatingAdmissionPolicy.class::cast).findFirst().orElseThrow();
        List<MutatingAdmissionPolicyBinding> noExecuteBindings = objects.stream()
                .filter(MutatingAdmissionPolicyBinding.class::isInstance)
                .map(MutatingAdmissionPolicyBinding.class::cast).toList();
        assertThat(noExecuteBindings).isEqualTo(bindings);
        MutatingSimulator noExecute = new MutatingSimulator(policy);

        MutatingSimulator.Result r = noExecute.create(registering("new-01", A02_UUID, A02_MID), noExecuteBindings,
                List.of(ledger(a02Removed())));
        assertThat(r.error()).isNull();
        assertThat(taints(r.object())).containsExactly(Map.of("key", "nodegate.io/unaccepted", "effect", "NoExecute"));
        // not in the inventory: held, NoExecute too
        MutatingSimulator.Result undeclared = noExecute.create(registering("gpu-c01", B01_UUID, B01_MID),
                noExecuteBindings, List.of(inventory(new Host("gpu-b02", A02_UUID, A02_MID, List.of(), null))));
        assertThat(taints(undeclared.object())).extracting(t -> t.get("effect")).containsExactly("NoExecute");
        // nothing holds it: left as it came
        Map<String, Object> unrelated = registering("gpu-b01", B01_UUID, B01_MID);
        assertThat(noExecute.create(unrelated, noExecuteBindings, List.of(ledger(a02Removed()))).object())
                .isEqualTo(unrelated);
        // registered with the NoSchedule hold already: one hold taint is enough, none is added
        Map<String, Object> node = registering("new-01", A02_UUID, A02_MID);
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) node.get("spec");
        spec.put("taints", new ArrayList<>(List.of(Map.of("key", NewcomerHold.TAINT_KEY, "effect", "NoSchedule"))));
        assertThat(noExecute.create(node, noExecuteBindings, List.of(ledger(a02Removed()))).applied()).isEmpty();
    }

    @Test
    void aHoldEffectOtherThanNoScheduleOrNoExecuteOrWithoutHoldIsAUsageError() {
        CliRun bad = CliRun.run("policy", "--hold", "--hold-effect", "PreferNoSchedule", "--no-rancher");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--hold-effect must be NoSchedule or NoExecute, got 'PreferNoSchedule'");
        assertThat(bad.out()).isEmpty();
        // Kubernetes spells effects exactly so; a lower-case one would be refused by the API server at apply
        assertThat(CliRun.run("policy", "--hold", "--hold-effect", "noexecute").exitCode()).isEqualTo(2);
        CliRun alone = CliRun.run("policy", "--hold-effect", "NoExecute", "--no-rancher");
        assertThat(alone.exitCode()).isEqualTo(2);
        assertThat(alone.err()).contains("--hold-effect goes with --hold");
        assertThat(alone.out()).isEmpty();
        CliRun machines = CliRun.run("policy", "--machines", "--hold-effect", "NoExecute");
        assertThat(machines.exitCode()).isEqualTo(2);
        assertThat(machines.err()).contains("--hold-effect belongs to the downstream cluster's Node policy");
    }

    @Test
    void theOldNameAndAMachineIdAloneAreHeldTooUnlessTheFirmwareUuidsDisagree() {
        assertThat(held(create(registering("gpu-a02", B01_UUID, B01_MID), List.of(ledger(a02Removed()))))).isTrue();
        assertThat(held(create(registering("new-02", "", A02_MID), List.of(ledger(a02Removed()))))).isTrue();
        // another firmware UUID with the removed host's machine-id: an image's machine-id, not the host
        assertThat(held(create(registering("new-03", B01_UUID, A02_MID), List.of(ledger(a02Removed()))))).isFalse();
    }

    @Test
    void anUnrelatedNewcomerWithoutAnInventoryIsLeftAsItCame() {
        Map<String, Object> node = registering("gpu-b01", B01_UUID, B01_MID);
        MutatingSimulator.Result r = create(node, List.of(ledger(a02Removed())));
        assertThat(r.applied()).isEmpty();
        assertThat(r.object()).isEqualTo(node);
        // no ledger and no inventory at all: both bindings find no param and allow
        assertThat(create(node, List.of()).applied()).isEmpty();
    }

    @Test
    void theTaintIsAppendedToTheKubeletsOwnTaintsAndNeverTwice() {
        Map<String, Object> node = registering("new-01", A02_UUID, A02_MID);
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) node.get("spec");
        spec.put("taints", new ArrayList<>(List.of(Map.of("key", "gpu", "value", "true", "effect", "NoSchedule"))));
        // tombstoned and not in the inventory: two params hold it, one taint results
        MutatingSimulator.Result r = create(node, List.of(ledger(a02Removed()),
                inventory(new Host("gpu-b01", B01_UUID, B01_MID, List.of(), null))));
        assertThat(taints(r.object())).extracting(t -> t.get("key")).containsExactly("gpu", NewcomerHold.TAINT_KEY);
        assertThat(r.applied()).hasSize(1);

        // a kubelet registered with the hold already (--register-with-taints): left as it is
        spec.put("taints", new ArrayList<>(List.of(Map.of("key", NewcomerHold.TAINT_KEY, "effect", "NoExecute"))));
        assertThat(create(node, List.of(ledger(a02Removed()))).applied()).isEmpty();
    }

    @Test
    void aNodeThatExistedAtRemovalSharingTheIdentityIsNotHeldForIt() {
        String uuid = "42000000-aaaa-bbbb-cccc-000000000001";
        TombstoneBook book = TombstoneBook.empty().with(new Tombstone("vm-1", "uid-vm-1", uuid,
                "aaaa1111aaaa1111aaaa1111aaaa1111", Instant.parse("2026-10-26T06:31:10Z"), null, "kim", null,
                List.of("vm-twin"), List.of()));
        assertThat(held(create(registering("vm-twin", uuid, "bbbb2222bbbb2222bbbb2222bbbb2222"),
                List.of(ledger(book))))).isFalse();
        assertThat(held(create(registering("vm-3", uuid, "cccc3333cccc3333cccc3333cccc3333"),
                List.of(ledger(book))))).isTrue();
    }

    @Test
    void theInventoryPlacesOnlyAHostUnderItsNameWithEveryDeclaredIdentity() {
        Host both = new Host("gpu-b01", B01_UUID, B01_MID, List.of(), null);
        Host uuidOnly = new Host("gpu-b02", "4c4c4544-0042-3010-8031-b4c04f423032", null, List.of(), null);
        var inv = List.of(inventory(both, uuidOnly));

        assertThat(held(create(registering("gpu-b01", B01_UUID.toUpperCase(), B01_MID), inv))).isFalse();
        assertThat(held(create(registering("gpu-b02", "4c4c4544-0042-3010-8031-b4c04f423032", "anything0000"),
                inv))).isFalse();
        // a declared host back under another name, one identity changed, nobody declared
        assertThat(held(create(registering("new-b01", B01_UUID, B01_MID), inv))).isTrue();
        assertThat(held(create(registering("gpu-b01", B01_UUID, "0d6c1e0f4a4b4c3d9e8f7a6b5c4d3e2f"), inv))).isTrue();
        assertThat(held(create(registering("gpu-c01", "4c4c4544-0043-3010-8031-b4c04f433031", "c01"), inv))).isTrue();
        // an inventory with no host at all declares that no Node is expected
        assertThat(held(create(registering("gpu-b01", B01_UUID, B01_MID), List.of(inventory())))).isTrue();
        // a ConfigMap of that name elsewhere is not the inventory
        Map<String, Object> elsewhere = inventory();
        elsewhere.put("metadata", Map.of("name", NodeInventory.CONFIGMAP, "namespace", "default"));
        assertThat(held(create(registering("gpu-c01", "4c4c4544-0043-3010-8031-b4c04f433031", "c01"),
                List.of(elsewhere)))).isFalse();
    }

    /**
     * The same Nodes, ledgers and inventories through the watch's rule and the emitted CEL. A Node alone in the
     * cluster: what needs the other Nodes (an identity shared with an older one, a declared identity someone else
     * reports too) is the watch's alone, and is not compared here.
     */
    @Test
    void theWatchsRuleAndTheCelAgreeOnANodeAlone() {
        TombstoneBook twin = TombstoneBook.empty().with(new Tombstone("vm-1", "uid-vm-1", B01_UUID, null,
                Instant.parse("2026-10-26T06:31:10Z"), null, "kim", null, List.of("vm-twin"), List.of()));
        TombstoneBook midOnly = TombstoneBook.empty().with(new Tombstone("gpu-m", "uid-m", null, B01_MID,
                Instant.parse("2026-10-26T06:31:10Z"), null, "kim"));
        // the twin was live when vm-1 was removed, sharing its firmware UUID but not its machine-id
        TombstoneBook twinOtherMachineId = TombstoneBook.empty().with(new Tombstone("vm-1", "uid-vm-1", B01_UUID,
                A02_MID, Instant.parse("2026-10-26T06:31:10Z"), null, "kim", null, List.of("vm-twin"), List.of()));
        List<TombstoneBook> books = List.of(TombstoneBook.empty(), a02Removed(), twin, midOnly, twinOtherMachineId);
        List<NodeInventory> inventories = new ArrayList<>();
        inventories.add(null);
        inventories.add(new NodeInventory(List.of(), List.of()));
        inventories.add(new NodeInventory(List.of(new Host("new-01", A02_UUID, A02_MID, List.of(), null),
                new Host("vm-twin", B01_UUID, null, List.of(), null),
                new Host("gpu-m", null, B01_MID, List.of(), null)), List.of()));
        List<Map<String, Object>> nodes = List.of(registering("new-01", A02_UUID, A02_MID),
                registering("gpu-a02", B01_UUID, B01_MID), registering("vm-twin", B01_UUID, ""),
                registering("vm-twin", B01_UUID.toUpperCase(), A02_MID), registering("new-03", "", B01_MID),
                registering("gpu-m", B01_UUID, B01_MID), registering("new-04", "", ""),
                registering("vm-twin", " " + B01_UUID + "\t", "00000000000000000000000000000000"));
        int compared = 0;
        int heldCount = 0;
        for (TombstoneBook book : books) {
            for (NodeInventory inv : inventories) {
                for (Map<String, Object> json : nodes) {
                    NodeInfo node = StateAssembler.incremental().node(json);
                    ClusterState state = ClusterState.builder(Instant.parse("2026-10-27T00:00:00Z"), "test")
                            .nodes(List.of(node)).tombstones(Collected.of(book.tombstones())).inventory(inv).build();
                    List<String> reasons = NewcomerHold.reasons(node, state);
                    List<Map<String, Object>> params = new ArrayList<>();
                    if (!book.isEmpty()) {
                        params.add(ledger(book));
                    }
                    if (inv != null) {
                        params.add(configMap(NodeInventory.CONFIGMAP, inv.data(),
                                Map.of(NodeInventory.LABEL, NodeInventory.LABEL_VALUE)));
                    }
                    assertThat(held(create(json, params)))
                            .as("%s (%s) with ledger %s and inventory %s; the watch says %s",
                                    node.name(), node.systemInfo(), book.data().keySet(),
                                    inv == null ? null : inv.data().keySet(), reasons)
                            .isEqualTo(!reasons.isEmpty());
                    compared++;
                    heldCount += reasons.isEmpty() ? 0 : 1;
                }
            }
        }
        assertThat(compared).isEqualTo(books.size() * inventories.size() * nodes.size());
        // both answers are among them, each many times
        assertThat(heldCount).isBetween(20, compared - 20);
    }
}
