package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.policy.AdmissionSimulator.Decision;
import io.nodegate.policy.AdmissionSimulator.Request;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Machine policy as `nodegate policy --machines` prints it (parsed back from its YAML), evaluated with Google's
 * CEL on DELETE, UPDATE and CREATE requests of the recorded Rancher Machines in src/test/resources/rancher/machines.
 * The annotations a PASS is written as are the gate's (GateService: gate-verdict, gate-at, gate-evidence, gate-uid =
 * the Machine's uid, gate-boot-id, gate-node-name, gate-node-uid). RancherMachineScenarioTest evaluates the policy on
 * a Machine the real gate annotated.
 */
class MachinePolicyCelTest {

    static final String NODE_UID = "5b3d7f19-2c4e-4a6b-8d0f-1a3c5e7b9d2f";
    static final String GATE_AT = "2026-10-19T06:55:00Z";
    /** A Rancher user deleting from the UI: Steve impersonates the user (rancher/steve pkg/server/server.go). */
    static final String UI_USER = "u-b4qkhsnliz";
    static final List<String> UI_GROUPS = List.of("system:authenticated", "system:cattle:authenticated");
    static final List<String> OPERATOR = List.of("system:authenticated", "nodegate:operators");
    static final String CAPI = "system:serviceaccount:cattle-capi-system:capi-manager";
    static final String RANCHER = "system:serviceaccount:cattle-system:rancher";

    static AdmissionSimulator emitted(String... flags) {
        List<String> args = new ArrayList<>(List.of("policy", "--machines"));
        args.addAll(List.of(flags));
        CliRun run = CliRun.run(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.all()).isZero();
        @SuppressWarnings("unchecked")
        List<HasMetadata> objects = (List<HasMetadata>) new KubernetesSerialization().unmarshal(run.out());
        return new AdmissionSimulator(objects.stream().filter(ValidatingAdmissionPolicy.class::isInstance)
                .map(ValidatingAdmissionPolicy.class::cast).findFirst().orElseThrow());
    }

    static final AdmissionSimulator POLICY = emitted();

    /** A recorded Machine as JSON values, with gpu-a11's Node uid and the time its Node went Unknown. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> recorded(String file) {
        try (InputStream in = MachinePolicyCelTest.class.getResourceAsStream("/rancher/machines/" + file)) {
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("NODE_UID", NODE_UID)
                    .replace("CTL1_UID", "9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c5b")
                    .replace("NODE_UNKNOWN_AT", "2026-10-19T06:09:08Z");
            return new tools.jackson.databind.json.JsonMapper().readValue(json, LinkedHashMap.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> at(Map<String, Object> obj, String... path) {
        Map<String, Object> m = obj;
        for (String p : path) {
            m = (Map<String, Object>) m.computeIfAbsent(p, k -> new LinkedHashMap<>());
        }
        return m;
    }

    static String uid(Map<String, Object> machine) {
        return (String) at(machine, "metadata").get("uid");
    }

    /** The Machine as `gate --machine-context --annotate` leaves it after a PASS. */
    static Map<String, Object> judged(Map<String, Object> machine) {
        Map<String, Object> ann = at(machine, "metadata", "annotations");
        ann.put("nodegate.io/gate-verdict", "PASS");
        ann.put("nodegate.io/gate-at", GATE_AT);
        ann.put("nodegate.io/gate-evidence", "sha256:2159aa01");
        ann.put("nodegate.io/gate-uid", uid(machine));
        ann.put("nodegate.io/gate-boot-id", "boot-a11");
        ann.put("nodegate.io/gate-node-name", "gpu-a11");
        ann.put("nodegate.io/gate-node-uid", NODE_UID);
        return machine;
    }

    static Request delete(Map<String, Object> stored, String user, List<String> groups) {
        return new Request("DELETE", "machines", null, user, groups, null, stored, "cluster.x-k8s.io");
    }

    static Request update(Map<String, Object> stored, Map<String, Object> updated, String user, List<String> groups) {
        return new Request("UPDATE", "machines", null, user, groups, updated, stored, "cluster.x-k8s.io");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> copy(Map<String, Object> m) {
        return new tools.jackson.databind.json.JsonMapper().convertValue(m, LinkedHashMap.class);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> condition(Map<String, Object> machine, String type) {
        for (Object c : (List<Object>) at(machine, "status").get("conditions")) {
            if (type.equals(((Map<String, Object>) c).get("type"))) {
                return (Map<String, Object>) c;
            }
        }
        throw new AssertionError("no condition " + type);
    }

    @Test
    void theJudgedMachineMayBeDeletedFromRancher() {
        Decision d = POLICY.review(delete(judged(recorded("machine-custom-rancher-2.13.json")), UI_USER, UI_GROUPS));
        assertThat(d.allowed()).as(d.message()).isTrue();
        // Rancher 2.15 (Cluster API v1.13): the nodeRef has no uid, the PASS is bound by name, uid label and boot
        Decision d2 = POLICY.review(delete(judged(recorded("machine-custom-rancher-2.15.json")), UI_USER, UI_GROUPS));
        assertThat(d2.allowed()).as(d2.message()).isTrue();
    }

    @Test
    void aMachineWithoutAVerdictIsDeniedWithTheCommandToRun() {
        Decision d = POLICY.review(delete(recorded("machine-custom-rancher-2.13.json"), UI_USER, UI_GROUPS));
        assertThat(d.allowed()).isFalse();
        assertThat(d.message()).isEqualTo("nodegate: Machine fleet-default/custom-4b2f0c1d9e8a may not be deleted:"
                + " annotation nodegate.io/gate-verdict is missing, it must be PASS. Clean up the host, then run:"
                + " nodegate gate gpu-a11 --baseline FILE --machine-context RANCHER --machine-cluster prod-gpu"
                + " --annotate. In an emergency a member of nodegate:break-glass can delete it.");
        Map<String, Object> held = judged(recorded("machine-custom-rancher-2.13.json"));
        at(held, "metadata", "annotations").put("nodegate.io/gate-verdict", "HOLD");
        assertThat(POLICY.review(delete(held, UI_USER, UI_GROUPS)).message()).contains("is \"HOLD\", it must be PASS");
    }

    @Test
    void aVerdictCopiedFromAnotherMachineIsDenied() {
        // the judged Machine's annotations, pasted onto the etcd Machine of ctl-1
        Map<String, Object> etcd = recorded("machine-custom-etcd.json");
        at(etcd, "metadata", "annotations").putAll(at(judged(recorded("machine-custom-rancher-2.13.json")),
                "metadata", "annotations"));
        Decision d = POLICY.review(delete(etcd, UI_USER, UI_GROUPS));
        assertThat(d.allowed()).isFalse();
        assertThat(d.message()).contains("its PASS is not bound to this Machine", uid(etcd), "copied from another Machine");
        // the same, with gate-uid rewritten to this Machine's: the nodeRef still names another Node
        at(etcd, "metadata", "annotations").put("nodegate.io/gate-uid", uid(etcd));
        assertThat(POLICY.review(delete(etcd, UI_USER, UI_GROUPS)).message())
                .contains("was given while it pointed at another Node (gpu-a11); it now points at Node ctl-1");
    }

    @Test
    void aNodeRefChangedAfterTheGateIsDenied() {
        Map<String, Object> renamed = judged(recorded("machine-custom-rancher-2.13.json"));
        at(renamed, "status", "nodeRef").put("name", "gpu-a11-new");
        assertThat(POLICY.review(delete(renamed, UI_USER, UI_GROUPS)).message())
                .contains("pointed at another Node (gpu-a11); it now points at Node gpu-a11-new");

        Map<String, Object> recreated = judged(recorded("machine-custom-rancher-2.13.json"));
        at(recreated, "status", "nodeRef").put("uid", "0d9c8b7a-6f5e-4d3c-2b1a-098f7e6d5c4b");
        assertThat(POLICY.review(delete(recreated, UI_USER, UI_GROUPS)).message())
                .contains("another Node object of that name (status.nodeRef.uid is now 0d9c8b7a");

        Map<String, Object> noNode = judged(recorded("machine-custom-rancher-2.13.json"));
        at(noNode, "status").remove("nodeRef");
        assertThat(POLICY.review(delete(noNode, UI_USER, UI_GROUPS)).message()).contains("points at no Node");
    }

    @Test
    void anotherBootOrAHostBackIsDenied() {
        Map<String, Object> rebooted = judged(recorded("machine-custom-rancher-2.13.json"));
        at(rebooted, "status", "nodeInfo").put("bootID", "boot-after-reinstall");
        assertThat(POLICY.review(delete(rebooted, UI_USER, UI_GROUPS)).message())
                .contains("another boot of the host (status.nodeInfo.bootID is now boot-after-reinstall)");

        Map<String, Object> healthy = judged(recorded("machine-custom-rancher-2.13.json"));
        condition(healthy, "NodeHealthy").put("status", "True");
        assertThat(POLICY.review(delete(healthy, UI_USER, UI_GROUPS)).message()).contains("reports healthy again");

        Map<String, Object> flapped = judged(recorded("machine-custom-rancher-2.13.json"));
        condition(flapped, "NodeHealthy").put("lastTransitionTime", "2026-10-19T06:55:01Z");
        assertThat(POLICY.review(delete(flapped, UI_USER, UI_GROUPS)).message())
                .contains("changed health after the gate (NodeHealthy or NodeReady changed after " + GATE_AT);
        // near miss: a transition in the gate's own second is before it
        Map<String, Object> sameSecond = judged(recorded("machine-custom-rancher-2.13.json"));
        condition(sameSecond, "NodeHealthy").put("lastTransitionTime", GATE_AT);
        assertThat(POLICY.review(delete(sameSecond, UI_USER, UI_GROUPS)).allowed()).isTrue();
    }

    @Test
    void malformedOrMissingFieldsAreDenialsNotEvaluationErrors() {
        for (String at : List.of("", "yesterday", "2026-10-19 06:55:00", "2026-10-19T15:55:00+09:00")) {
            Map<String, Object> m = judged(recorded("machine-custom-rancher-2.13.json"));
            at(m, "metadata", "annotations").put("nodegate.io/gate-at", at);
            Decision d = POLICY.review(delete(m, UI_USER, UI_GROUPS));
            assertThat(d.allowed()).isFalse();
            assertThat(d.message()).as(at).contains("gate-at is missing or not an RFC 3339 UTC time");
        }
        Map<String, Object> bare = recorded("machine-custom-rancher-2.13.json");
        bare.remove("status");
        at(bare, "metadata").remove("annotations");
        Decision d = POLICY.review(delete(bare, UI_USER, UI_GROUPS));
        assertThat(d.allowed()).isFalse();
        assertThat(d.message()).startsWith("nodegate: Machine fleet-default/custom-4b2f0c1d9e8a may not be deleted")
                .contains("nodegate gate NODE");
    }

    @Test
    void breakGlassAndExemptIdentitiesAreNotGated() {
        Map<String, Object> unjudged = recorded("machine-custom-rancher-2.13.json");
        assertThat(POLICY.review(delete(unjudged, "kim", List.of("system:authenticated", "nodegate:break-glass")))
                .allowed()).isTrue();
        // Cluster API deleting a cluster's Machines is gated unless exempted
        assertThat(POLICY.review(delete(unjudged, CAPI, List.of("system:serviceaccounts"))).allowed()).isFalse();
        AdmissionSimulator exempting = emitted("--exempt-user", CAPI, "--exempt-user", RANCHER,
                "--exempt-group", "platform:cluster-deleters");
        assertThat(exempting.review(delete(unjudged, CAPI, List.of("system:serviceaccounts"))).allowed()).isTrue();
        assertThat(exempting.review(delete(unjudged, RANCHER, List.of("system:serviceaccounts"))).allowed()).isTrue();
        assertThat(exempting.review(delete(unjudged, "lee", List.of("platform:cluster-deleters"))).allowed()).isTrue();
        assertThat(exempting.review(delete(unjudged, UI_USER, UI_GROUPS)).allowed()).isFalse();
        // a request without groups (encoding/json omits an empty slice) evaluates
        assertThat(POLICY.review(delete(unjudged, UI_USER, null)).allowed()).isFalse();
    }

    @Test
    void nodeDriverMachinesAreLeftAlone() {
        // a vSphere pool's Machine: Cluster API's MachineSet scale-down and remediation must keep working
        Decision d = POLICY.review(delete(recorded("machine-node-driver.json"), CAPI, List.of()));
        assertThat(d.allowed()).isTrue();
        assertThat(d.message()).contains("not matched by matchCondition rancher-custom-machine");
        // the v1beta2 shape of a custom Machine (infrastructureRef.apiGroup) is matched all the same
        Map<String, Object> v1beta2 = recorded("machine-custom-rancher-2.15.json");
        v1beta2.put("apiVersion", "cluster.x-k8s.io/v1beta2");
        at(v1beta2, "spec").put("infrastructureRef", new LinkedHashMap<>(Map.of("apiGroup", "rke.cattle.io",
                "kind", "CustomMachine", "name", "custom-4b2f0c1d9e8a")));
        assertThat(POLICY.review(delete(v1beta2, UI_USER, UI_GROUPS)).allowed()).isFalse();
        assertThat(POLICY.review(delete(judged(v1beta2), UI_USER, UI_GROUPS)).allowed()).isTrue();
    }

    @Test
    void onlyOperatorsWriteTheVerdictWhileControllersKeepWritingMachines() {
        Map<String, Object> stored = recorded("machine-custom-rancher-2.13.json");
        Map<String, Object> selfApproved = judged(copy(stored));
        Decision d = POLICY.review(update(stored, selfApproved, UI_USER, UI_GROUPS));
        assertThat(d.allowed()).isFalse();
        assertThat(d.message()).contains("only members of nodegate:operators", "nodegate.io/gate-verdict",
                "on Machine fleet-default/custom-4b2f0c1d9e8a");
        assertThat(POLICY.review(update(stored, selfApproved, "kim", OPERATOR)).allowed()).isTrue();
        // Cluster API and Rancher update Machines all the time: labels, the pre-terminate hook, status
        Map<String, Object> controllerWrite = copy(stored);
        at(controllerWrite, "metadata", "annotations").put(
                "pre-terminate.delete.hook.machine.cluster.x-k8s.io/rke-bootstrap-cleanup", "rke-bootstrap-controller");
        at(controllerWrite, "status").put("phase", "Deleting");
        assertThat(POLICY.review(update(stored, controllerWrite, RANCHER, List.of("system:serviceaccounts")))
                .allowed()).isTrue();
        // removing a HOLD is a change too
        Map<String, Object> held = copy(stored);
        at(held, "metadata", "annotations").put("nodegate.io/gate-verdict", "HOLD");
        assertThat(POLICY.review(update(held, copy(stored), UI_USER, UI_GROUPS)).allowed()).isFalse();
        // a CREATE carrying a verdict
        Request create = new Request("CREATE", "machines", null, UI_USER, UI_GROUPS, judged(copy(stored)), null,
                "cluster.x-k8s.io");
        assertThat(POLICY.review(create).allowed()).isFalse();
        assertThat(POLICY.review(new Request("CREATE", "machines", null, RANCHER, List.of(), copy(stored), null,
                "cluster.x-k8s.io")).allowed()).isTrue();
    }
}
