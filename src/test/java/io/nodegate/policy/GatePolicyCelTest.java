package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.cli.Nodegate;
import io.nodegate.policy.AdmissionSimulator.Decision;
import io.nodegate.policy.AdmissionSimulator.Request;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;

import static io.nodegate.policy.NodeFixtures.kubeletHeartbeat;
import static io.nodegate.policy.NodeFixtures.withAnnotation;
import static io.nodegate.policy.NodeFixtures.withoutAnnotation;
import static io.nodegate.policy.NodeFixtures.withoutAnnotationsMap;
import static io.nodegate.policy.NodeFixtures.withoutGateAnnotations;
import static io.nodegate.policy.NodeFixtures.worker7;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compiles the CEL of the policy that `nodegate policy` prints (parsed back from its YAML, not a copy of the
 * strings) and evaluates it against admission requests shaped like the API server's.
 */
class GatePolicyCelTest {

    private static final String VERDICT = GatePolicy.VERDICT_ANNOTATION;
    private static final List<String> PLAIN_USER = List.of("system:authenticated", "platform:admins");
    private static final List<String> OPERATOR = List.of("system:authenticated", "nodegate:operators");
    private static final List<String> BREAK_GLASS = List.of("system:authenticated", "nodegate:break-glass");
    private static final List<String> KUBELET = List.of("system:nodes", "system:authenticated");

    private static AdmissionSimulator simulator;

    @BeforeAll
    static void emitPolicy() {
        simulator = new AdmissionSimulator(emittedPolicy());
    }

    static ValidatingAdmissionPolicy emittedPolicy(String... extraArgs) {
        StringWriter out = new StringWriter();
        CommandLine cl = Nodegate.newCommandLine();
        cl.setOut(new PrintWriter(out));
        String[] args = new String[extraArgs.length + 1];
        args[0] = "policy";
        System.arraycopy(extraArgs, 0, args, 1, extraArgs.length);
        assertThat(cl.execute(args)).isZero();
        Object parsed = new KubernetesSerialization().unmarshal(out.toString());
        @SuppressWarnings("unchecked")
        List<HasMetadata> objects = (List<HasMetadata>) parsed;
        return objects.stream().filter(ValidatingAdmissionPolicy.class::isInstance)
                .map(ValidatingAdmissionPolicy.class::cast).findFirst().orElseThrow();
    }

    private static Request delete(Map<String, Object> stored, String user, List<String> groups) {
        return new Request("DELETE", "nodes", null, user, groups, null, stored);
    }

    private static Request update(Map<String, Object> stored, Map<String, Object> updated, String user,
                                  List<String> groups) {
        return new Request("UPDATE", "nodes", null, user, groups, updated, stored);
    }

    private static Request statusUpdate(Map<String, Object> stored, Map<String, Object> updated) {
        return new Request("UPDATE", "nodes", "status", "system:node:worker-7", KUBELET, updated, stored);
    }

    private static Request create(Map<String, Object> node, String user, List<String> groups) {
        return new Request("CREATE", "nodes", null, user, groups, node, null);
    }

    @Nested
    class DeleteGate {

        @Test
        void deleteWithPassVerdictIsAllowedForAnyone() {
            Map<String, Object> passed = NodeFixtures.gatedPass(worker7());
            assertThat(simulator.review(delete(passed, "alice", PLAIN_USER)).allowed()).isTrue();
        }

        @Test
        void passOnANodeThatReportsReadyAgainIsDenied() {
            Map<String, Object> back = NodeFixtures.withReady(NodeFixtures.gatedPass(worker7()), "True");
            Decision d = simulator.review(delete(back, "alice", PLAIN_USER));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("node worker-7 may not be deleted")
                    .contains("reports Ready=True again").contains("run nodegate gate again");
        }

        @Test
        void passWithReadyFalseOrWithoutStatusIsAllowed() {
            Map<String, Object> passed = NodeFixtures.gatedPass(worker7());
            assertThat(simulator.review(delete(NodeFixtures.withReady(passed, "False"), "alice", PLAIN_USER))
                    .allowed()).isTrue();
            assertThat(simulator.review(delete(NodeFixtures.withoutStatus(passed), "alice", PLAIN_USER))
                    .allowed()).isTrue();
        }

        @Test
        void aPassWithoutUidAndBootIdIsNotABearerToken() {
            // a verdict written by hand (or by an older nodegate) binds to nothing: denied
            Decision d = simulator.review(delete(withAnnotation(worker7(), VERDICT, "PASS"), "alice", PLAIN_USER));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("is not bound to this Node object");
        }

        @Test
        void aPassForAnotherNodeObjectIsDenied() {
            // the host came back under the same name: a new object (new uid) carrying the old annotations
            Map<String, Object> recreated = withAnnotation(NodeFixtures.gatedPass(worker7()),
                    GatePolicy.GATE_UID_ANNOTATION, "11111111-2222-3333-4444-555555555555");
            Decision d = simulator.review(delete(recreated, "alice", PLAIN_USER));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("not bound to this Node object", "4b1c2f7e-2a57-4c0e-9d55-8c1f0f3e7a11");
        }

        @Test
        void aPassGivenToAnotherBootIsDenied() {
            // the host rebooted and reported Ready=False at boot: a new bootID, heartbeat before gate-at (clock skew)
            Map<String, Object> rebooted = NodeFixtures.withBootId(NodeFixtures.gatedPass(worker7()), "boot-after-reinstall");
            Decision d = simulator.review(delete(NodeFixtures.withReady(rebooted, "False"), "alice", PLAIN_USER));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("another boot", "boot-after-reinstall");
            Map<String, Object> noBootAnnotation = withoutAnnotation(NodeFixtures.gatedPass(worker7()),
                    GatePolicy.GATE_BOOT_ID_ANNOTATION);
            assertThat(simulator.review(delete(noBootAnnotation, "alice", PLAIN_USER)).allowed()).isFalse();
        }

        @Test
        void aHeartbeatAfterTheGateIsDenied() {
            // anyone who may write nodes/status sets Ready=False with a fresh heartbeat; or the kubelet is back
            Map<String, Object> reported = NodeFixtures.withReadyHeartbeat(
                    NodeFixtures.withReady(NodeFixtures.gatedPass(worker7()), "False"), "2026-10-19T06:10:01Z");
            Decision d = simulator.review(delete(reported, "alice", PLAIN_USER));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("reported after the gate", NodeFixtures.GATE_AT);
            Map<String, Object> sameSecond = NodeFixtures.withReadyHeartbeat(NodeFixtures.gatedPass(worker7()),
                    NodeFixtures.GATE_AT);
            assertThat(simulator.review(delete(sameSecond, "alice", PLAIN_USER)).allowed()).isTrue();
        }

        @Test
        void aMissingOrMalformedGateAtIsDeniedWithoutAnEvaluationError() {
            for (String at : List.of("", "yesterday", "2026-10-19 06:10:00", "2026-10-19T06:10:00+09:00")) {
                Map<String, Object> node = withAnnotation(NodeFixtures.gatedPass(worker7()),
                        GatePolicy.GATE_AT_ANNOTATION, at);
                Decision d = simulator.review(delete(node, "alice", PLAIN_USER));
                assertThat(d.allowed()).as(at).isFalse();
                assertThat(d.message()).as(at).contains("gate-at is missing or not an RFC 3339 UTC time");
            }
            Decision missing = simulator.review(delete(withoutAnnotation(NodeFixtures.gatedPass(worker7()),
                    GatePolicy.GATE_AT_ANNOTATION), "alice", PLAIN_USER));
            assertThat(missing.message()).contains("gate-at is missing");
            Map<String, Object> fractional = withAnnotation(NodeFixtures.gatedPass(worker7()),
                    GatePolicy.GATE_AT_ANNOTATION, "2026-10-19T06:10:00.123456789Z");
            assertThat(simulator.review(delete(fractional, "alice", PLAIN_USER)).allowed()).isTrue();
        }

        @Test
        void breakGlassMayDeleteAReadyNode() {
            Map<String, Object> ready = NodeFixtures.withReady(worker7(), "True");
            assertThat(simulator.review(delete(ready, "oncall", BREAK_GLASS)).allowed()).isTrue();
        }

        @Test
        void deleteWithHoldIsDeniedNamingNodeAndVerdict() {
            Decision d = simulator.review(delete(worker7(), "alice", PLAIN_USER));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("node worker-7 may not be deleted")
                    .contains("gate-verdict is \"HOLD\"").contains("nodegate:break-glass");
        }

        @Test
        void deleteWithoutVerdictAnnotationIsDenied() {
            Decision d = simulator.review(delete(withoutAnnotation(worker7(), VERDICT), "alice", PLAIN_USER));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("gate-verdict is missing");
        }

        @Test
        void deleteOfNodeWithoutAnnotationsMapIsDeniedWithoutEvaluationError() {
            Decision d = simulator.review(delete(withoutAnnotationsMap(worker7()), "alice", PLAIN_USER));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).startsWith("nodegate: node worker-7").contains("missing");
        }

        @Test
        void verdictIsCaseSensitiveAndExact() {
            for (String nearMiss : List.of("pass", "PASS ", "PASSED", "")) {
                Map<String, Object> node = withAnnotation(worker7(), VERDICT, nearMiss);
                assertThat(simulator.review(delete(node, "alice", PLAIN_USER)).allowed())
                        .as("verdict '%s'", nearMiss).isFalse();
            }
        }

        @Test
        void breakGlassGroupMayDeleteWithoutPass() {
            assertThat(simulator.review(delete(worker7(), "oncall", BREAK_GLASS)).allowed()).isTrue();
            assertThat(simulator.review(delete(withoutAnnotationsMap(worker7()), "oncall", BREAK_GLASS)).allowed())
                    .isTrue();
        }

        @Test
        void breakGlassIsAGroupNotAUserName() {
            Decision d = simulator.review(delete(worker7(), "nodegate:break-glass", PLAIN_USER));
            assertThat(d.allowed()).isFalse();
        }

        @Test
        void operatorsCannotSkipTheGate() {
            assertThat(simulator.review(delete(worker7(), "op", OPERATOR)).allowed()).isFalse();
        }

        @Test
        void requestWithoutGroupsFieldIsDeniedNotErrored() {
            Decision d = simulator.review(delete(worker7(), "anonymous-ish", null));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("may not be deleted");
        }

        @Test
        void passVerdictOnTheIncomingObjectDoesNotCountOnlyTheStoredOne() {
            // On DELETE the API server gives oldObject = stored Node; object is null. A PASS that is not stored
            // must not help, so the policy reads oldObject.
            Request r = new Request("DELETE", "nodes", null, "alice", PLAIN_USER,
                    withAnnotation(worker7(), VERDICT, "PASS"), worker7());
            assertThat(simulator.review(r).allowed()).isFalse();
        }
    }

    @Nested
    class AnnotationGuard {

        @Test
        void operatorMaySetVerdict() {
            Map<String, Object> stored = worker7();
            assertThat(simulator.review(update(stored, withAnnotation(stored, VERDICT, "PASS"), "op", OPERATOR))
                    .allowed()).isTrue();
        }

        @Test
        void operatorMayAddVerdictToNodeWithoutAnnotationsMap() {
            Map<String, Object> bare = withoutAnnotationsMap(worker7());
            assertThat(simulator.review(update(bare, withAnnotation(bare, VERDICT, "PASS"), "op", OPERATOR))
                    .allowed()).isTrue();
        }

        @Test
        void nonOperatorAddingNodegateAnnotationIsDenied() {
            Map<String, Object> stored = withoutGateAnnotations(worker7());
            Decision d = simulator.review(update(stored, withAnnotation(stored, VERDICT, "PASS"), "bob", PLAIN_USER));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("only members of nodegate:operators")
                    .contains("changes nodegate.io/gate-verdict on node worker-7");
        }

        @Test
        void nonOperatorAddingFirstAnnotationEverIsDenied() {
            Map<String, Object> bare = withoutAnnotationsMap(worker7());
            Decision d = simulator.review(update(bare, withAnnotation(bare, VERDICT, "PASS"), "bob", PLAIN_USER));
            assertThat(d.allowed()).isFalse();
        }

        @Test
        void nonOperatorChangingVerdictIsDenied() {
            Map<String, Object> stored = worker7();
            Decision d = simulator.review(update(stored, withAnnotation(stored, VERDICT, "PASS"), "bob", PLAIN_USER));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("nodegate.io/gate-verdict").doesNotContain("gate-run");
        }

        @Test
        void nonOperatorRemovingNodegateAnnotationIsDenied() {
            Map<String, Object> stored = worker7();
            Decision d = simulator.review(update(stored, withoutAnnotation(stored, "nodegate.io/gate-run"), "bob",
                    PLAIN_USER));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("changes nodegate.io/gate-run on node worker-7");
        }

        @Test
        void nonOperatorDroppingWholeAnnotationsMapIsDenied() {
            Map<String, Object> stored = worker7();
            Decision d = simulator.review(update(stored, withoutAnnotationsMap(stored), "bob", PLAIN_USER));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("nodegate.io/gate-verdict").contains("nodegate.io/gate-run");
        }

        @Test
        void kubeletStatusUpdateLeavingNodegateAnnotationsAloneIsAllowed() {
            Map<String, Object> stored = worker7();
            assertThat(simulator.review(statusUpdate(stored, kubeletHeartbeat(stored))).allowed()).isTrue();
        }

        @Test
        void kubeletStatusUpdateOnUnannotatedNodeIsAllowed() {
            Map<String, Object> bare = withoutAnnotationsMap(worker7());
            assertThat(simulator.review(statusUpdate(bare, kubeletHeartbeat(bare))).allowed()).isTrue();
        }

        @Test
        void approvingOwnDeletionThroughNodesStatusIsDenied() {
            Map<String, Object> stored = worker7();
            Decision d = simulator.review(statusUpdate(stored, withAnnotation(kubeletHeartbeat(stored), VERDICT,
                    "PASS")));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).contains("nodegate.io/gate-verdict");
        }

        @Test
        void controllerEditingOtherAnnotationsAndSpecIsAllowed() {
            Map<String, Object> stored = worker7();
            Map<String, Object> updated = withAnnotation(stored, "rke2.io/node-config-hash", "NEWHASH====");
            updated = withAnnotation(updated, "management.cattle.io/pod-limits", "{}");
            NodeFixtures.metadata(updated).put("labels", Map.of("kubernetes.io/hostname", "worker-7"));
            assertThat(simulator.review(update(stored, updated, "system:serviceaccount:cattle-system:cattle",
                    List.of("system:serviceaccounts", "system:authenticated"))).allowed()).isTrue();
        }

        @Test
        void lookalikeKeysAreNotGuarded() {
            Map<String, Object> stored = worker7();
            Map<String, Object> updated = withAnnotation(stored, "notnodegate.io/gate-verdict", "PASS");
            updated = withAnnotation(updated, "example.com/nodegate.io-note", "x");
            assertThat(simulator.review(update(stored, updated, "bob", PLAIN_USER)).allowed()).isTrue();
        }

        @Test
        void createWithoutNodegateAnnotationsIsAllowed() {
            Map<String, Object> fresh = withoutGateAnnotations(worker7());
            assertThat(simulator.review(create(fresh, "system:node:worker-7", KUBELET)).allowed()).isTrue();
            Map<String, Object> bare = withoutAnnotationsMap(worker7());
            assertThat(simulator.review(create(bare, "system:node:worker-7", KUBELET)).allowed()).isTrue();
        }

        @Test
        void createCarryingAVerdictIsOnlyForOperators() {
            Map<String, Object> withVerdict = withAnnotation(withoutGateAnnotations(worker7()), VERDICT, "PASS");
            Decision kubelet = simulator.review(create(withVerdict, "system:node:worker-7", KUBELET));
            assertThat(kubelet.allowed()).isFalse();
            assertThat(kubelet.message()).contains("nodegate.io/gate-verdict");
            assertThat(simulator.review(create(withVerdict, "op", OPERATOR)).allowed()).isTrue();
        }

        @Test
        void breakGlassIsNotAnOperator() {
            Map<String, Object> stored = worker7();
            assertThat(simulator.review(update(stored, withAnnotation(stored, VERDICT, "PASS"), "oncall",
                    BREAK_GLASS)).allowed()).isFalse();
        }

        @Test
        void updateWithoutGroupsFieldStillWorksForUnrelatedChanges() {
            Map<String, Object> stored = worker7();
            assertThat(simulator.review(update(stored, kubeletHeartbeat(stored), "x", null)).allowed()).isTrue();
            assertThat(simulator.review(update(stored, withAnnotation(stored, VERDICT, "PASS"), "x", null))
                    .allowed()).isFalse();
        }
    }

    @Nested
    class Scope {

        @Test
        void matchesNodesAndNodesStatusButNotOtherSubresources() {
            Map<String, Object> stored = worker7();
            Map<String, Object> changed = withAnnotation(stored, VERDICT, "PASS");
            assertThat(simulator.matches(new Request("UPDATE", "nodes", "status", "u", PLAIN_USER, changed, stored)))
                    .isTrue();
            assertThat(simulator.matches(new Request("UPDATE", "nodes", "proxy", "u", PLAIN_USER, changed, stored)))
                    .isFalse();
            assertThat(simulator.matches(new Request("UPDATE", "pods", null, "u", PLAIN_USER, changed, stored)))
                    .isFalse();
        }

        @Test
        void customGroupsReplaceTheDefaults() {
            AdmissionSimulator custom = new AdmissionSimulator(emittedPolicy(
                    "--operators-group", "platform:node-ops", "--break-glass-group", "sre:oncall"));
            Map<String, Object> stored = worker7();
            Map<String, Object> changed = withAnnotation(stored, VERDICT, "PASS");
            assertThat(custom.review(update(stored, changed, "op", List.of("platform:node-ops"))).allowed()).isTrue();
            assertThat(custom.review(update(stored, changed, "op", OPERATOR)).allowed()).isFalse();
            assertThat(custom.review(delete(stored, "s", List.of("sre:oncall"))).allowed()).isTrue();
            assertThat(custom.review(delete(stored, "s", BREAK_GLASS)).allowed()).isFalse();
        }

        @Test
        void groupNamesCannotInjectCel() {
            String hostile = "ops' || true || '";
            AdmissionSimulator custom = new AdmissionSimulator(emittedPolicy("--operators-group", hostile));
            Map<String, Object> stored = worker7();
            Map<String, Object> changed = withAnnotation(stored, VERDICT, "PASS");
            assertThat(custom.review(update(stored, changed, "bob", PLAIN_USER)).allowed()).isFalse();
            assertThat(custom.review(update(stored, changed, "op", List.of(hostile))).allowed()).isTrue();
        }
    }
}
