package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.TombstoneShards;
import io.nodegate.model.NodeInfo;
import io.nodegate.source.kube.StateAssembler;
import io.nodegate.policy.AdmissionSimulator.Decision;
import io.nodegate.policy.AdmissionSimulator.Request;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The quarantine policy as `nodegate policy --quarantine` prints it (parsed back from its YAML), evaluated with
 * Google's CEL on the CREATE a registering kubelet sends: a Node built by initialNode() with its status, so
 * status.nodeInfo carries systemUUID and machineID (pkg/kubelet/kubelet_node_status.go). The parameter is the
 * tombstones ConfigMap exactly as {@link TombstoneBook} writes it.
 */
class QuarantinePolicyCelTest {

    private static final String GPU_A07_UUID = "4C4C4544-0037-3010-8047-B4C04F443037";
    private static final String GPU_A07_MID = "9b1f0c5e2d7a4e6f8a3b2c1d0e9f8a07";
    private static final List<String> KUBELET = List.of("system:nodes", "system:authenticated");

    private static AdmissionSimulator simulator;
    private static ValidatingAdmissionPolicyBinding binding;

    @BeforeAll
    static void emit() {
        EmittedQuarantine emitted = EmittedQuarantine.load();
        binding = emitted.binding();
        simulator = emitted.simulator();
    }

    /** The Node a kubelet POSTs at registration: metadata, spec and the status its setters filled in. */
    private static Map<String, Object> registering(String name, String systemUuid, String machineId) {
        Map<String, Object> node = NodeFixtures.worker7();
        Map<String, Object> meta = NodeFixtures.metadata(node);
        for (String serverSet : List.of("uid", "resourceVersion", "creationTimestamp", "finalizers", "annotations")) {
            meta.remove(serverSet);
        }
        meta.put("name", name);
        @SuppressWarnings("unchecked")
        Map<String, Object> labels = (Map<String, Object>) meta.get("labels");
        labels.put("kubernetes.io/hostname", name);
        @SuppressWarnings("unchecked")
        Map<String, Object> status = (Map<String, Object>) node.get("status");
        @SuppressWarnings("unchecked")
        Map<String, Object> nodeInfo = (Map<String, Object>) status.get("nodeInfo");
        nodeInfo.put("systemUUID", systemUuid);
        nodeInfo.put("machineID", machineId);
        status.put("conditions", List.of(Map.of("type", "Ready", "status", "False", "reason", "KubeletNotReady",
                "message", "container runtime status check may not have completed yet",
                "lastHeartbeatTime", "2026-10-26T07:02:11Z", "lastTransitionTime", "2026-10-26T07:02:11Z")));
        return node;
    }

    private static Request create(Map<String, Object> node) {
        return EmittedQuarantine.create(node);
    }

    /** A ledger shard as the API server hands it to CEL: metadata (labelled as TombstoneLedger writes it) plus data. */
    private static Map<String, Object> configMap(TombstoneBook book) {
        return shard(TombstoneBook.CONFIGMAP, book, true);
    }

    private static Map<String, Object> shard(String name, TombstoneBook book, boolean labelled) {
        Map<String, Object> cm = new LinkedHashMap<>();
        cm.put("apiVersion", "v1");
        cm.put("kind", "ConfigMap");
        cm.put("metadata", Map.of("name", name, "namespace", TombstoneBook.DEFAULT_NAMESPACE,
                "labels", labelled ? Map.of(TombstoneShards.LABEL, TombstoneShards.LABEL_VALUE) : Map.of()));
        if (!book.isEmpty()) {
            cm.put("data", new LinkedHashMap<>(book.data()));
        }
        return cm;
    }

    private static TombstoneBook gpuA07Removed() {
        return TombstoneBook.empty().with(new Tombstone("gpu-a07", "5d0c2f0e-uid", GPU_A07_UUID, GPU_A07_MID,
                Instant.parse("2026-10-26T06:31:10Z"), "e3b0c442", "kim via kubeconfig user ops-kim"));
    }

    private Decision review(Map<String, Object> node, TombstoneBook book) {
        return simulator.review(create(node), binding, book == null ? null : configMap(book));
    }

    @Test
    void aRenamedHostWhoseSystemUuidIsTombstonedIsDenied() {
        // the receiving team renamed the host and reinstalled the OS: new name, new machine-id, same firmware UUID
        Decision d = review(registering("new-07", GPU_A07_UUID, "0d6c1e0f4a4b4c3d9e8f7a6b5c4d3e2f"), gpuA07Removed());

        assertThat(d.allowed()).isFalse();
        assertThat(d.message()).isEqualTo("nodegate: node new-07 is a removed host (systemUUID "
                + GPU_A07_UUID.toLowerCase() + " is tombstoned as gpu-a07 in ConfigMap nodegate-tombstones). If it is"
                + " meant to come back, run nodegate readmit gpu-a07 --yes first; otherwise clean the host"
                + " (rke2-uninstall.sh).");
    }

    @Test
    void theOldNameAndTheMachineIdAreDeniedToo() {
        assertThat(review(registering("gpu-a07", "11111111-2222-3333-4444-555555555555", "ffff"), gpuA07Removed()))
                .satisfies(d -> assertThat(d.message()).contains("(name gpu-a07 is tombstoned as gpu-a07"));
        assertThat(review(registering("b-gpu-07", "", GPU_A07_MID.toUpperCase()), gpuA07Removed()))
                .satisfies(d -> assertThat(d.message()).contains("(machineID " + GPU_A07_MID + " is tombstoned"));
    }

    /**
     * VMs built from the removed host's image, whose /etc/machine-id was not emptied, carry its machineID under their
     * own firmware UUIDs: the machineID is then the image's, and the Java matcher (NG302) sees no return. The
     * quarantine agrees. A tombstone that recorded no systemUUID cannot be contradicted, so its machineID still
     * refuses any Node.
     */
    @Test
    void aNodeBuiltFromTheRemovedHostsImageIsAllowedUnlessATombstoneOfItsMachineIdHasNoSystemUuid() {
        Map<String, Object> fromImage = registering("vm-b12", "4C4C4544-0043-3010-8031-B4C04F433031", GPU_A07_MID);
        Instant removedAt = Instant.parse("2026-10-26T06:31:10Z");
        assertThat(review(fromImage, gpuA07Removed()).allowed()).isTrue();

        TombstoneBook machineIdOnly = TombstoneBook.empty().with(new Tombstone("gpu-a07", "5d0c2f0e-uid", null,
                GPU_A07_MID, removedAt, null, "kim"));
        assertThat(review(fromImage, machineIdOnly).message())
                .contains("(machineID " + GPU_A07_MID + " is tombstoned as gpu-a07 in ConfigMap");

        // two removed hosts with the machineID, one of them recorded without a systemUUID: that one refuses
        TombstoneBook both = gpuA07Removed().with(new Tombstone("vm-a08", "uid-a08", null, GPU_A07_MID, removedAt,
                null, "kim"));
        assertThat(review(fromImage, both).message())
                .contains("(machineID " + GPU_A07_MID + " is tombstoned as gpu-a07 vm-a08 in ConfigMap");
        // the host itself, back under a new name, is refused by its systemUUID as before
        assertThat(review(registering("new-07", GPU_A07_UUID, GPU_A07_MID), gpuA07Removed()).message())
                .contains("(systemUUID " + GPU_A07_UUID.toLowerCase() + " is tombstoned as gpu-a07");
    }

    @Test
    void anUnrelatedNewHostIsAllowed() {
        assertThat(review(registering("gpu-c01", "4C4C4544-0043-3010-8031-B4C04F433031",
                "aa00bb11cc22dd33ee44ff5566778899"), gpuA07Removed()).allowed()).isTrue();
    }

    @Test
    void aHostWhoseTombstoneWasRemovedIsAllowed() {
        TombstoneBook readmitted = gpuA07Removed().without("gpu-a07");

        assertThat(readmitted.data()).isEmpty();
        assertThat(review(registering("new-07", GPU_A07_UUID, GPU_A07_MID), readmitted).allowed()).isTrue();
    }

    @Test
    void allZeroAndEmptyIdsNeverMatch() {
        // a board that reports a zero UUID was removed: its tombstone indexes no UUID, and a zero UUID is never looked up
        TombstoneBook zeroRemoved = TombstoneBook.empty().with(new Tombstone("lab-1", "uid-lab-1",
                "00000000-0000-0000-0000-000000000000", "", Instant.parse("2026-10-26T06:00:00Z"), null, "kim"));
        assertThat(zeroRemoved.data()).containsOnlyKeys("node.lab-1");

        assertThat(review(registering("lab-2", "00000000-0000-0000-0000-000000000000", ""), zeroRemoved).allowed())
                .isTrue();
        assertThat(review(registering("lab-3", "", ""), gpuA07Removed()).allowed()).isTrue();
        // and a Node without status at all (kubectl create of a bare Node) evaluates without error
        Map<String, Object> bare = registering("bare-1", "x", "y");
        bare.remove("status");
        assertThat(review(bare, gpuA07Removed()).allowed()).isTrue();
    }

    @Test
    void aMissingConfigMapFailsOpenAsDocumented() {
        // before the first removal there is no ConfigMap: every registration must still work
        assertThat(binding.getSpec().getParamRef().getParameterNotFoundAction()).isEqualTo("Allow");
        assertThat(review(registering("gpu-c02", GPU_A07_UUID, GPU_A07_MID), null).allowed()).isTrue();
        // an existing but empty ConfigMap (no data key at all) evaluates and allows
        assertThat(review(registering("gpu-c02", GPU_A07_UUID, GPU_A07_MID), TombstoneBook.empty()).allowed()).isTrue();
    }

    @Test
    void onlyNodeCreatesAreMatchedSoHeartbeatsOfExistingNodesAreNeverJudged() {
        Map<String, Object> node = registering("gpu-a07", GPU_A07_UUID, GPU_A07_MID);
        Decision statusUpdate = simulator.review(new Request("UPDATE", "nodes", "status", "system:node:gpu-a07", KUBELET,
                node, node), binding, configMap(gpuA07Removed()));
        assertThat(statusUpdate.allowed()).isTrue();
        assertThat(statusUpdate.message()).isEqualTo("not matched");
        assertThat(binding.getSpec().getParamRef().getNamespace()).isEqualTo("nodegate-system");
    }

    // ---- the quarantine cannot lock out a Node that existed when the tombstone was written ----

    @Test
    void aNodeThatExistedAtRemovalAndSharesTheTombstonedUuidIsAllowedANewNameIsDenied() {
        // cloned VMs: vm-twin shares the removed vm-1's firmware UUID and was a live Node when vm-1 was removed.
        // A kubelet POSTs its Node at every start (tryRegisterWithAPIServer, pkg/kubelet/kubelet_node_status.go) and
        // admission runs before the API server finds that it exists (Store.Create in apiserver's
        // pkg/registry/generic/registry/store.go): without the exemption vm-twin's next restart is refused forever.
        String uuid = "42000000-aaaa-bbbb-cccc-000000000001";
        TombstoneBook book = TombstoneBook.empty().with(new Tombstone("vm-1", "uid-vm-1", uuid,
                "aaaa1111aaaa1111aaaa1111aaaa1111", Instant.parse("2026-10-26T06:31:10Z"), null, "kim", null,
                List.of("vm-twin"), List.of()));
        assertThat(book.data()).containsEntry("exempt.systemuuid." + uuid, "vm-twin");

        Decision restart = review(registering("vm-twin", uuid.toUpperCase(), "bbbb2222bbbb2222bbbb2222bbbb2222"), book);
        assertThat(restart.allowed()).as(restart.message()).isTrue();

        Decision newcomer = review(registering("vm-3", uuid, "cccc3333cccc3333cccc3333cccc3333"), book);
        assertThat(newcomer.allowed()).isFalse();
        assertThat(newcomer.message()).contains("systemUUID " + uuid + " is tombstoned as vm-1");
        // the exemption is per identity: vm-twin carrying the removed host's machine-id is not exempt from that
        Decision twinWithRemovedMachineId = review(registering("vm-twin", uuid, "aaaa1111aaaa1111aaaa1111aaaa1111"),
                book);
        assertThat(twinWithRemovedMachineId.allowed()).isFalse();
        assertThat(twinWithRemovedMachineId.message()).contains("machineID aaaa1111aaaa1111aaaa1111aaaa1111");
        // and the removed host's own name never is
        assertThat(review(registering("vm-1", uuid, "bbbb2222bbbb2222bbbb2222bbbb2222"), book).allowed()).isFalse();
    }

    @Test
    void anExemptionHoldsOnlyIfTheNodeExistedWhenEveryTombstoneWithThatIdWasWritten() {
        String uuid = "42000000-aaaa-bbbb-cccc-000000000005";
        Instant t0 = Instant.parse("2026-10-26T06:31:10Z");
        TombstoneBook book = TombstoneBook.empty()
                .with(new Tombstone("vm-1", "uid-1", uuid, null, t0, null, "kim", null, List.of("vm-twin"), List.of()))
                // vm-2 was removed later, when vm-twin did not exist (it came back afterwards)
                .with(new Tombstone("vm-2", "uid-2", uuid, null, t0.plusSeconds(3600), null, "kim", null, List.of(),
                        List.of()));
        assertThat(book.data()).doesNotContainKey("exempt.systemuuid." + uuid);
        assertThat(review(registering("vm-twin", uuid, ""), book).allowed()).isFalse();
    }

    @Test
    void everyShardIsAParamAndAnUnlabelledOneIsNotSeen() {
        // the binding selects shards by label; the API server evaluates the policy once per shard, any denial denies
        TombstoneBook first = gpuA07Removed();
        TombstoneBook second = TombstoneBook.empty().with(new Tombstone("gpu-b01", "uid-b01",
                "4C4C4544-0042-3010-8031-B4C04F423031", null, Instant.parse("2026-10-27T01:00:00Z"), null, "lee"));
        List<Map<String, Object>> shards = List.of(shard("nodegate-tombstones", first, true),
                shard("nodegate-tombstones-1", second, true));

        Decision d = simulator.review(create(registering("new-b01", "4c4c4544-0042-3010-8031-b4c04f423031", "")),
                binding, shards);
        assertThat(d.allowed()).isFalse();
        assertThat(d.message()).contains("tombstoned as gpu-b01 in ConfigMap nodegate-tombstones-1");
        assertThat(simulator.review(create(registering("new-07", GPU_A07_UUID, "")), binding, shards).allowed())
                .isFalse();
        assertThat(simulator.review(create(registering("gpu-c01", "4C4C4544-0043-3010-8031-B4C04F433031", "")),
                binding, shards).allowed()).isTrue();

        // a ledger written before shards had no label: the policy does not see it (readers say so in a note)
        assertThat(simulator.review(create(registering("new-07", GPU_A07_UUID, "")), binding,
                List.of(shard("nodegate-tombstones", first, false))).message())
                .isEqualTo("parameter not found: allowed by the binding");
    }

    // ---- one identity rule in the Java matcher and the CEL ----

    /**
     * The same raw systemUUID and machineID values, as a kubelet could send them, fed to the Java matcher (the Node
     * JSON through the model mapper, then Tombstone.matchOf, what NG302 does) and to the emitted CEL: they must agree
     * on every one. Before, Java trimmed whitespace and the CEL did not.
     */
    @Test
    void theJavaMatcherAndTheCelAgreeOnEveryIdentityInput() {
        Tombstone t = new Tombstone("gpu-a07", "uid-a07", GPU_A07_UUID, GPU_A07_MID,
                Instant.parse("2026-10-26T06:31:10Z"), null, "kim");
        TombstoneBook book = TombstoneBook.empty().with(t);
        String upper = GPU_A07_UUID;
        String lower = GPU_A07_UUID.toLowerCase();
        List<String> uuids = List.of(upper, lower, "  " + upper + "  ", "\t" + lower + "\n", "\u000b" + upper + "\f\r",
                upper + "\u00a0", "\u2003" + upper, upper + "\u2028", "\u0085" + upper, upper.replace("-", " "),
                "00000000-0000-0000-0000-000000000000", " 00000000-0000-0000-0000-000000000000 ", "", "   ", "-",
                upper + "x", "4C4C4544-0037-3010-8047-B4C04F443037".repeat(4), "Not Settable");
        List<String> expectedMatch = List.of(upper, lower, "  " + upper + "  ", "\t" + lower + "\n",
                "\u000b" + upper + "\f\r");
        int agreed = 0;
        for (String raw : uuids) {
            for (boolean asMachineId : List.of(false, true)) {
                String value = asMachineId ? raw.replace(upper, GPU_A07_MID.toUpperCase())
                        .replace(lower, GPU_A07_MID) : raw;
                Map<String, Object> json = asMachineId ? registering("n-1", "", value) : registering("n-1", value, "");
                NodeInfo node = StateAssembler.incremental().node(json);
                boolean java = t.matchOf(node, false) != null;
                Decision cel = review(json, book);
                assertThat(java).as("Java vs CEL for %s %s (CEL: %s)", asMachineId ? "machineID" : "systemUUID",
                        printable(value), cel.message()).isEqualTo(!cel.allowed());
                assertThat(java).as("expected match for %s", printable(value))
                        .isEqualTo(expectedMatch.contains(raw));
                agreed++;
            }
        }
        assertThat(agreed).isEqualTo(uuids.size() * 2);
    }

    /**
     * Both identities at once, through the Java matcher and the CEL: tombstones that recorded both, only the
     * systemUUID or only the machineID (alone and together in one shard), against a new name reporting the same,
     * another or no systemUUID with the same, another or no machineID. Where only the machineID matches, the
     * systemUUIDs decide.
     */
    @Test
    void theJavaMatcherAndTheCelAgreeOnEveryPairOfIdentities() {
        Instant at = Instant.parse("2026-10-26T06:31:10Z");
        String otherUuid = "4C4C4544-0043-3010-8031-B4C04F433031";
        String otherMid = "aa00bb11cc22dd33ee44ff5566778899";
        Tombstone full = new Tombstone("gpu-a07", "uid-a07", GPU_A07_UUID, GPU_A07_MID, at, null, "kim");
        Tombstone uuidOnly = new Tombstone("gpu-a07", "uid-a07", GPU_A07_UUID, null, at, null, "kim");
        Tombstone midOnly = new Tombstone("vm-a08", "uid-a08", null, GPU_A07_MID, at, null, "kim");
        List<List<Tombstone>> ledgers = List.of(List.of(full), List.of(uuidOnly), List.of(midOnly),
                List.of(full, midOnly), List.of(uuidOnly, midOnly));
        int compared = 0;
        int refused = 0;
        for (List<Tombstone> tombstones : ledgers) {
            TombstoneBook book = TombstoneBook.empty();
            for (Tombstone t : tombstones) {
                book = book.with(t);
            }
            for (String uuid : List.of(GPU_A07_UUID, otherUuid, "")) {
                for (String mid : List.of(GPU_A07_MID, otherMid, "")) {
                    Map<String, Object> json = registering("new-07", uuid, mid);
                    NodeInfo node = StateAssembler.incremental().node(json);
                    boolean java = tombstones.stream().anyMatch(t -> t.matchOf(node, false) != null);
                    Decision cel = review(json, book);
                    assertThat(!cel.allowed()).as("CEL vs Java for systemUUID '%s', machineID '%s', tombstones %s (%s)",
                            uuid, mid, book.data().keySet(), cel.message()).isEqualTo(java);
                    compared++;
                    refused += java ? 1 : 0;
                }
            }
        }
        assertThat(compared).isEqualTo(ledgers.size() * 9);
        // the image's case is among them: the machineID alone under another systemUUID, both ways
        assertThat(refused).isBetween(10, compared - 10);
    }

    private static String printable(String s) {
        StringBuilder out = new StringBuilder("'");
        s.codePoints().forEach(c -> out.append(c < 0x20 || c > 0x7e ? String.format("\\u%04x", c)
                : String.valueOf((char) c)));
        return out.append("'").toString();
    }
}
