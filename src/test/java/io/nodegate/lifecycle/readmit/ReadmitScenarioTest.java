package io.nodegate.lifecycle.readmit;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.CliRun;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Seed 000's returned hosts (gpu-a07..a09 from cluster B), played by gpu-a10: keep the Node, swap the password. */
public class ReadmitScenarioTest extends SeededClusterTest {

    @BeforeEach
    void setUp() {
        assertThat(seedAndSaveBaseline().exitCode()).isZero();
        // readmission happens days later; the server stamps new objects with the real clock
        clock.set(Instant.now());
    }

    Node node() {
        return api.client().nodes().withName("gpu-a10").get();
    }

    boolean secretExists() {
        return api.client().secrets().inNamespace("kube-system").withName("gpu-a10.node-password.rke2").get() != null;
    }

    /** Rancher's namespace: Jobs are looked for only when it exists (a NotFound there means no Rancher). */
    public static io.fabric8.kubernetes.api.model.Namespace cattleSystem() {
        return new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata().withName("cattle-system")
                .endMetadata().build();
    }

    public static Job failedUpgraderJob() {
        return new JobBuilder().withNewMetadata().withName("apply-system-agent-upgrader-on-gpu-a10-with-5d1c0ffee")
                .withNamespace("cattle-system").endMetadata().withNewSpec().withNewTemplate().withNewSpec()
                .endSpec().endTemplate().endSpec()
                .withNewStatus().addNewCondition().withType("Failed").withStatus("True").withReason("BackoffLimitExceeded")
                .endCondition().withFailed(1).endStatus().build();
    }

    @Test
    void planChangesNothingYesDeletesOnlyTheSecretVerifyFollowsTheHost() throws Exception {
        String uid = node().getMetadata().getUid();
        CliRun plan = cli("readmit", "gpu-a10", "--baseline", baseline.toString());
        assertThat(plan.exitCode()).as(plan.all()).isZero();
        assertThat(plan.out()).contains("would delete Secret kube-system/gpu-a10.node-password.rke2",
                "INSTALL_RKE2_VERSION=v1.34.3+rke2r3", "rke2-uninstall.sh", "node-name: gpu-a10");
        assertThat(secretExists()).isTrue();

        CliRun yes = cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--yes");
        assertThat(yes.exitCode()).as(yes.all()).isZero();
        assertThat(yes.out()).contains("deleted Secret kube-system/gpu-a10.node-password.rke2");
        assertThat(secretExists()).isFalse();
        // every read of the Secret and the DELETE's answer carried its metadata only: its value never crossed the wire
        String hash = java.util.Base64.getEncoder().encodeToString(SeedCluster.SECRET_VALUE.getBytes());
        assertThat(api.answersSent()).isNotEmpty().allSatisfy(body -> assertThat(body).doesNotContain(hash));
        assertThat(api.requestAccepts()).filteredOn(r -> r.startsWith("DELETE ") && r.contains("/secrets/"))
                .singleElement().asString().contains("as=PartialObjectMetadata");
        assertThat(node().getMetadata().getUid()).isEqualTo(uid);
        assertThat(node().getSpec().getUnschedulable()).isTrue();
        assertThat(api.client().secrets().inNamespace("kube-system").withName("gpu-a11.node-password.rke2").get()).isNotNull();

        CliRun early = cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--verify");
        assertThat(early.exitCode()).isEqualTo(5);
        assertThat(early.out()).contains("Ready is Unknown", "bootID unchanged", "no node-password Secret for gpu-a10");

        hostRejoins("uuid-a10");
        api.create(cattleSystem(), failedUpgraderJob());
        CliRun blocked = cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--verify");
        assertThat(blocked.exitCode()).as(blocked.all()).isEqualTo(5);
        assertThat(blocked.out()).contains("Failed Job cattle-system/apply-system-agent-upgrader-on-gpu-a10-with-5d1c0ffee")
                .doesNotContain("still there").doesNotContain("lost");

        CliRun done = cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--verify", "--yes");
        assertThat(done.exitCode()).as(done.all()).isZero();
        assertThat(done.out()).contains("PASS", "deleted Failed Job cattle-system/apply-system-agent-upgrader-on-gpu-a10");
        assertThat(api.client().batch().v1().jobs().inNamespace("cattle-system").list().getItems()).isEmpty();

        String encoded = java.util.Base64.getEncoder().encodeToString(SeedCluster.SECRET_VALUE.getBytes());
        try (Stream<Path> s = Files.walk(evidence)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                assertThat(Files.readString(p)).as(p.toString()).doesNotContain(encoded).doesNotContain(SeedCluster.SECRET_VALUE);
            }
        }
    }

    @Test
    void anotherHostUnderTheSameNameFailsIdentity() throws Exception {
        assertThat(cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--yes").exitCode()).isZero();
        hostRejoins("uuid-some-other-board");
        CliRun v = cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--verify");
        assertThat(v.exitCode()).isEqualTo(5);
        assertThat(v.out()).contains("systemUUID uuid-some-other-board differs from the baseline's uuid-a10");
    }

    @Test
    void readmitOfAGoneNodeIsRefused() throws IOException {
        api.delete(node());
        CliRun r = cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--yes");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("is gone (NotFound)");
        assertThat(secretExists()).isTrue();
    }

    /** A run whose verdict is not PASS changes nothing, even with --yes: the Failed Job stays until the host holds. */
    @Test
    void verifyYesOnAHostThatIsNotBackDeletesNoJob() throws Exception {
        assertThat(cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--yes").exitCode()).isZero();
        api.create(cattleSystem(), failedUpgraderJob());
        CliRun early = cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--verify", "--yes");
        assertThat(early.exitCode()).as(early.all()).isEqualTo(5);
        assertThat(early.out()).contains("Ready is Unknown", "--yes deleted nothing")
                .doesNotContain("deleted Failed Job");
        assertThat(api.client().batch().v1().jobs().inNamespace("cattle-system").list().getItems()).hasSize(1);
    }

    /**
     * The Node was deleted and the host registered anew under its name: cordon, roles and taints start empty, so
     * --verify asks for the baseline's role labels and taints re-applied, not for a cordon that cannot have been kept.
     */
    @Test
    void aNodeRegisteredAnewIsCheckedForWhatWasReappliedNotForAKeptCordon() throws Exception {
        Node old = node();
        assertThat(old.getSpec().getUnschedulable()).isTrue();
        assertThat(cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--yes").exitCode()).isZero();
        api.delete(old);
        Instant deleted = clock.instant();
        while (Instant.now().isBefore(deleted.plusSeconds(1))) {
            Thread.sleep(50); // creation timestamps have whole seconds
        }
        Node fresh = SeedCluster.node("gpu-a10", "198.51.100.110", "True", false, java.util.Map.of(), "boot-a10-new",
                "uuid-a10", 8, Instant.now(), null);
        fresh.getStatus().getNodeInfo().setKernelVersion(old.getStatus().getNodeInfo().getKernelVersion());
        fresh.getStatus().getNodeInfo().setKubeletVersion(old.getStatus().getNodeInfo().getKubeletVersion());
        fresh.getSpec().setTaints(new java.util.ArrayList<>());
        api.create(fresh, SeedCluster.secret("gpu-a10"));

        CliRun v = cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--verify", "-o", "json");
        assertThat(v.out()).doesNotContain("cordon true -> false");
        tools.jackson.databind.JsonNode checks = tools.jackson.databind.json.JsonMapper.builder().build()
                .readTree(v.out()).get("checks");
        java.util.List<String> ids = new java.util.ArrayList<>();
        checks.forEach(c -> ids.add(c.get("id").asString()));
        assertThat(ids).contains("reapplied").doesNotContain("kept");
        // the baseline's GPU taint was not put back on the new Node: that is what the check says
        assertThat(v.out()).contains("not re-applied to the new Node");
    }
}
