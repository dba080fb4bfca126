package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.policy.AdmissionSimulator.Decision;
import io.nodegate.policy.AdmissionSimulator.Request;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hand-over cordon policy exactly as `nodegate policy` prints it (parsed back from its YAML), evaluated with
 * Google's CEL through its binding, as kube-apiserver does: once per NodeHandover, denied when any denies. The
 * parameter is the hand-over record of examples/handover-case-2 (nodegate's own NodeHandover, open, gpu-a06..a10);
 * the Node is worker-7's stored object (cordoned by kubectl, src/test/resources/policy/node-worker-7.json) under the
 * name gpu-a07, and the uncordon is the object `kubectl uncordon` leaves: spec.unschedulable removed (its strategic
 * merge patch sets it to null, k8s.io/kubectl pkg/drain/cordon.go).
 */
class HandoverCordonPolicyCelTest {

    private static final List<String> PLAIN_USER = List.of("system:authenticated", "platform:admins");
    private static final String HANDOVER = "a06-a10-to-recv";

    private static ValidatingAdmissionPolicy policy;
    private static ValidatingAdmissionPolicyBinding binding;
    private static AdmissionSimulator simulator;
    private static Map<String, Object> openHandover;

    @BeforeAll
    static void emit() throws IOException {
        CliRun run = CliRun.run("policy");
        assertThat(run.exitCode()).as(run.all()).isZero();
        @SuppressWarnings("unchecked")
        List<HasMetadata> objects = (List<HasMetadata>) new KubernetesSerialization().unmarshal(run.out());
        policy = objects.stream().filter(ValidatingAdmissionPolicy.class::isInstance)
                .map(ValidatingAdmissionPolicy.class::cast)
                .filter(p -> p.getMetadata().getName().equals(HandoverCordonPolicy.NAME)).findFirst().orElseThrow();
        binding = objects.stream().filter(ValidatingAdmissionPolicyBinding.class::isInstance)
                .map(ValidatingAdmissionPolicyBinding.class::cast)
                .filter(b -> b.getMetadata().getName().equals(HandoverCordonPolicy.NAME)).findFirst().orElseThrow();
        simulator = new AdmissionSimulator(policy);
        @SuppressWarnings("unchecked")
        Map<String, Object> record = new KubernetesSerialization().unmarshal(
                Files.readString(Path.of("examples/handover-case-2/nodehandover.json")), Map.class);
        openHandover = record;
    }

    @Test
    void theBundleCarriesItAndItCannotBlockWhatItDoesNotUnderstand() {
        assertThat(policy.getSpec().getFailurePolicy())
                .as("a missing NodeHandover CRD must not refuse every Node update").isEqualTo("Ignore");
        assertThat(policy.getSpec().getParamKind().getKind()).isEqualTo("NodeHandover");
        assertThat(binding.getSpec().getParamRef().getNamespace()).as("NodeHandover is cluster-scoped").isNull();
        assertThat(binding.getSpec().getParamRef().getParameterNotFoundAction()).isEqualTo("Allow");
    }

    @Test
    void aPlainUncordonOfAnOpenHandoversNodeIsRefusedWithTheHandoversName() {
        Decision d = review(uncordon(null), List.of(openHandover));
        assertThat(d.allowed()).isFalse();
        assertThat(d.message()).contains("gpu-a07", HANDOVER, "nodegate.io/uncordon-reason=" + HANDOVER);
    }

    @Test
    void anUncordonThatNamesTheHandoverGoesThrough() {
        assertThat(review(uncordon(HANDOVER), List.of(openHandover)).allowed()).isTrue();
        assertThat(review(uncordon(HANDOVER + ": lee agreed, the burn-in failed"), List.of(openHandover)).allowed())
                .isTrue();
        assertThat(review(uncordon("other-handover"), List.of(openHandover)).allowed()).as("another name").isFalse();
        assertThat(review(uncordon(HANDOVER + "-2"), List.of(openHandover)).allowed()).as("a longer name").isFalse();
    }

    @Test
    void closedHandoversOtherNodesAndNoHandoverAtAllAllow() {
        Map<String, Object> closed = copy(openHandover);
        spec(closed).put("closed", Map.of("by", "lee", "at", "2026-10-30T00:00:00Z", "reason", "done"));
        assertThat(review(uncordon(null), List.of(closed)).allowed()).as("closed").isTrue();
        assertThat(review(uncordon(null), List.of()).allowed()).as("no NodeHandover").isTrue();

        Map<String, Object> other = copy(openHandover);
        spec(other).put("nodes", List.of("gpu-b01"));
        assertThat(review(uncordon(null), List.of(other)).allowed()).as("not a target").isTrue();
        // one open hand-over naming the node among others is enough to refuse
        assertThat(review(uncordon(null), List.of(closed, other, openHandover)).allowed()).isFalse();
    }

    @Test
    void onlyAnUncordonIsLookedAt() {
        Map<String, Object> cordoned = gpuA07();
        // a label change on the cordoned node, a kubelet's or a controller's update: not an uncordon
        Map<String, Object> relabelled = NodeFixtures.withAnnotation(cordoned, "example.com/rack", "r12");
        assertThat(review(update(cordoned, relabelled), List.of(openHandover)).allowed()).isTrue();
        // cordoning is always allowed
        Map<String, Object> uncordoned = copy(cordoned);
        spec(uncordoned).remove("unschedulable");
        assertThat(review(update(uncordoned, cordoned), List.of(openHandover)).allowed()).isTrue();
        // an update that writes unschedulable: false explicitly is an uncordon too
        Map<String, Object> explicitFalse = copy(cordoned);
        spec(explicitFalse).put("unschedulable", false);
        assertThat(review(update(cordoned, explicitFalse), List.of(openHandover)).allowed()).isFalse();
    }

    @Test
    void anyoneMayWriteTheReasonsButNoOtherNodegateAnnotation() {
        AdmissionSimulator gate = new AdmissionSimulator(GatePolicyCelTest.emittedPolicy());
        Map<String, Object> stored = NodeFixtures.worker7();
        for (String reason : GatePolicy.REASON_ANNOTATIONS) {
            Map<String, Object> annotated = NodeFixtures.withAnnotation(stored, reason, "RMA 4411: bad DIMM");
            assertThat(gate.review(new Request("UPDATE", "nodes", null, "alice", PLAIN_USER, annotated, stored))
                    .allowed()).as(reason).isTrue();
            assertThat(gate.review(new Request("UPDATE", "nodes", null, "alice", PLAIN_USER,
                    NodeFixtures.withoutAnnotation(annotated, reason), annotated)).allowed()).as(reason).isTrue();
        }
        Map<String, Object> verdict = NodeFixtures.withAnnotation(stored, GatePolicy.VERDICT_ANNOTATION, "PASS");
        assertThat(gate.review(new Request("UPDATE", "nodes", null, "alice", PLAIN_USER, verdict, stored)).allowed())
                .as("the verdict stays the operators'").isFalse();
    }

    private static Decision review(Request request, List<Map<String, Object>> handovers) {
        return simulator.review(request, binding, handovers);
    }

    /** kubectl uncordon of gpu-a07, with the uncordon reason it carries (null: none). */
    private static Request uncordon(String reason) {
        Map<String, Object> stored = gpuA07();
        Map<String, Object> updated = copy(stored);
        spec(updated).remove("unschedulable");
        if (reason != null) {
            updated = NodeFixtures.withAnnotation(updated, HandoverCordonPolicy.UNCORDON_REASON_ANNOTATION, reason);
        }
        return update(stored, updated);
    }

    private static Request update(Map<String, Object> stored, Map<String, Object> updated) {
        return new Request("UPDATE", "nodes", null, "alice", PLAIN_USER, updated, stored);
    }

    private static Map<String, Object> gpuA07() {
        Map<String, Object> node = NodeFixtures.worker7();
        NodeFixtures.metadata(node).put("name", "gpu-a07");
        return node;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(Map<String, Object> object) {
        return (Map<String, Object>) object.get("spec");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> copy(Map<String, Object> object) {
        KubernetesSerialization json = new KubernetesSerialization();
        return new LinkedHashMap<>(json.unmarshal(json.asJson(object), Map.class));
    }
}
