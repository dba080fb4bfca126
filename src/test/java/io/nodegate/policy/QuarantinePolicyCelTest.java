package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.policy.AdmissionSimulator.Decision;
import io.nodegate.policy.AdmissionSimulator.Request;
import io.nodegate.testing.CliRun;
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
        CliRun run = CliRun.run("policy", "--quarantine");
        assertThat(run.exitCode()).isZero();
        @SuppressWarnings("unchecked")
        List<HasMetadata> objects = (List<HasMetadata>) new KubernetesSerialization().unmarshal(run.out());
        ValidatingAdmissionPolicy policy = objects.stream().filter(ValidatingAdmissionPolicy.class::isInstance)
                .map(ValidatingAdmissionPolicy.class::cast)
                .filter(p -> p.getMetadata().getName().equals(QuarantinePolicy.NAME)).findFirst().orElseThrow();
        binding = objects.stream().filter(ValidatingAdmissionPolicyBinding.class::isInstance)
                .map(ValidatingAdmissionPolicyBinding.class::cast)
                .filter(b -> b.getMetadata().getName().equals(QuarantinePolicy.NAME)).findFirst().orElseThrow();
        simulator = new AdmissionSimulator(policy);
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
        return new Request("CREATE", "nodes", null, "system:node:" + NodeFixtures.metadata(node).get("name"), KUBELET,
                node, null);
    }

    /** The tombstones ConfigMap as the API server hands it to CEL: metadata plus data. */
    private static Map<String, Object> configMap(TombstoneBook book) {
        Map<String, Object> cm = new LinkedHashMap<>();
        cm.put("apiVersion", "v1");
        cm.put("kind", "ConfigMap");
        cm.put("metadata", Map.of("name", TombstoneBook.CONFIGMAP, "namespace", TombstoneBook.DEFAULT_NAMESPACE));
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
}
