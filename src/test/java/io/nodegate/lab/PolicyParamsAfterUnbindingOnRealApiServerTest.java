package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.lifecycle.quarantine.TombstoneLedger;
import io.nodegate.model.Tombstone;
import io.nodegate.policy.QuarantinePolicy;
import io.nodegate.testing.Await;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What kube-apiserver 1.34 does to an admission policy whose parameters are ConfigMaps once its binding has been
 * deleted, shown with the quarantine on a lab of its own. The policy source stops its ConfigMap informer when no
 * binding names that kind any more; the informer comes from the apiserver's shared factory, which never starts one
 * twice, so a binding created again reads a store frozen at that moment (kubernetes/kubernetes issue 130887, pull
 * request 141015). The quarantine then still refuses the hosts tombstoned before, and admits a host tombstoned
 * after, with no error anywhere, until the apiserver restarts. The hold policy's bindings take their ConfigMaps from
 * the same informer, which is how removing `policy --hold` blinded the quarantine in NewcomerHoldPolicyOnRealApiServerTest's
 * first runs. `rejoin-risk` asks the apiserver itself with a dry run, so it answers "yes" for such a host where the
 * objects alone would say "no". docs/policy.md says what an operator must do (restart the apiservers; pause a policy by its binding's
 * validationActions, never by deleting the binding), and this test runs both; it fails once a Kubernetes version the
 * lab builds no longer behaves so, and the caution can go.
 */
class PolicyParamsAfterUnbindingOnRealApiServerTest {

    private static final String NS = "nodegate-system";
    private static final String BEFORE = "t-unbind-before";
    private static final String AFTER = "t-unbind-after";
    private static final String PAUSED = "t-unbind-paused";

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static RealControlPlane lab;

    @BeforeAll
    static void start() {
        lab = RealControlPlane.start(1, 1, "unbind");
    }

    @AfterAll
    static void stop() {
        if (lab != null) {
            lab.down().requireOk("bin/lab down");
            lab.deleteDirectory();
        }
    }

    /** A removed host's tombstone, with a systemUUID and machineID of its own (so a new name is refused too). */
    private static Tombstone tombstone(String name) {
        String hex = String.format("%012x", name.hashCode() & 0xffffffffL);
        return new Tombstone(name, "uid-" + name, "4c4c4544-0000-3010-8031-" + hex, "00000000000000000000" + hex,
                Instant.now(), null, "lab-test");
    }

    /**
     * What the apiserver answers a server-side dry run of a Node CREATE under this name: true when the quarantine
     * refuses it as a removed host, false when it is admitted, null for any other answer (an apiserver starting up,
     * a policy not synced yet), whose output {@link #refused} then shows.
     */
    private static Boolean quarantineAnswer(String name) {
        RealControlPlane.Result r = lab.kubectl(LabNodes.probe(name), "create",
                "--dry-run=server", "-f", "-");
        lastAnswer = r.output();
        if (r.code() == 0) {
            return false;
        }
        return r.output().contains("ValidatingAdmissionPolicy '" + QuarantinePolicy.NAME + "'")
                && r.output().contains("is a removed host") ? Boolean.TRUE : null;
    }

    private static String lastAnswer = "";

    /** Whether the quarantine refuses this name; any answer but a refusal or an admission fails the test. */
    private static boolean refused(String name) {
        Boolean answer = quarantineAnswer(name);
        assertThat(answer).as("the only answers expected here are the quarantine's refusal and an admission: "
                + lastAnswer).isNotNull();
        return answer;
    }

    @Test
    void aBindingDeletedAndCreatedAgainLeavesTheQuarantineBlindToNewTombstonesUntilTheApiserverRestarts() {
        try (KubernetesClient admin = lab.client("admin")) {
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
                    .create();
            TombstoneLedger ledger = new TombstoneLedger(admin, NS);
            ledger.record(tombstone(BEFORE));
            admin.resource(QuarantinePolicy.policy()).create();
            admin.resource(QuarantinePolicy.binding(NS)).create();
            Await.until("the quarantine in force", Duration.ofSeconds(30), () -> refused(BEFORE));

            // the binding deleted (as `kubectl delete -f` of the policies would) until the apiserver has let go of it
            admin.resource(QuarantinePolicy.binding(NS)).delete();
            Await.until("the binding gone from the apiserver's view", Duration.ofSeconds(30), () -> !refused(BEFORE));

            // created again: the tombstones written before are refused again, from the store as it was
            admin.resource(QuarantinePolicy.binding(NS)).create();
            Await.until("the quarantine in force again", Duration.ofSeconds(30), () -> refused(BEFORE));

            // a host tombstoned now: in etcd, and not seen. A running informer delivers a change in about a second
            // (the waits above); this one is given twenty, and a refusal at any point means the defect is gone.
            ledger.record(tombstone(AFTER));
            assertThat(new TombstoneLedger(admin, NS).find(AFTER)).as("the tombstone is stored")
                    .isPresent();
            long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < until) {
                assertThat(refused(AFTER)).as("kube-apiserver saw a tombstone written after the binding was created "
                        + "again: the caution in docs/policy.md may no longer hold for this version").isFalse();
            }

            // rejoin-risk asks the apiserver itself: the objects say "refused", its dry run says otherwise
            JsonNode blind = rejoinRisk(AFTER);
            assertThat(blind.path("canComeBack").asString()).as(blind.toString()).isEqualTo("yes");
            assertThat(blind.path("summary").asString()).startsWith("yes (the apiserver admits its name");
            JsonNode before = rejoinRisk(BEFORE);
            assertThat(before.path("canComeBack").asString()).as(before.toString()).isEqualTo("no");
            assertThat(before.toString()).contains("the apiserver refused a server-side dry run of a Node named "
                    + BEFORE);

            // the remedy the docs give: restart the apiserver; its new informer reads the ledger as it is
            lab.lab("server", "stop", "1").requireOk("stop the apiserver");
            lab.lab("server", "start", "1").requireOk("start the apiserver");
            // while it starts, other answers come (no connection, a policy not synced yet): wait for the refusal
            Await.until("the restarted apiserver refuses the host tombstoned after", Duration.ofSeconds(180),
                    () -> Boolean.TRUE.equals(quarantineAnswer(AFTER)));
            assertThat(refused(BEFORE)).isTrue();
            assertThat(rejoinRisk(AFTER).path("canComeBack").asString()).isEqualTo("no");

            // the pause docs/policy.md gives instead: the binding kept, its action Audit, then Deny again; the
            // informer lives on, so a host tombstoned during the pause is refused once it ends
            admin.resource(withActions(admin, "Audit")).update();
            Await.until("the quarantine paused", Duration.ofSeconds(30), () -> !refused(BEFORE));
            ledger.record(tombstone(PAUSED));
            admin.resource(withActions(admin, "Deny")).update();
            Await.until("the host tombstoned during the pause refused after it", Duration.ofSeconds(30),
                    () -> refused(PAUSED));
        }
    }

    /** `nodegate rejoin-risk NAME -o json` against the lab as its admin: the one host's answer. */
    private static JsonNode rejoinRisk(String name) {
        CliRun run = CliRun.run("rejoin-risk", name, "-o", "json", "--kubeconfig", lab.kubeconfig().toString(),
                "--context", "admin");
        assertThat(run.exitCode()).as(run.all()).isIn(0, 5);
        try {
            return JSON.readTree(run.out()).path("hosts").path(0);
        } catch (RuntimeException e) {
            throw new AssertionError("rejoin-risk printed no JSON: " + run.all(), e);
        }
    }

    private static ValidatingAdmissionPolicyBinding withActions(KubernetesClient admin, String action) {
        ValidatingAdmissionPolicyBinding b = admin.admissionRegistration().v1().validatingAdmissionPolicyBindings()
                .withName(QuarantinePolicy.NAME).get();
        b.getSpec().setValidationActions(java.util.List.of(action));
        return b;
    }
}
