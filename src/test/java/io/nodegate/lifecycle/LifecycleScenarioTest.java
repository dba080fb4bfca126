package io.nodegate.lifecycle;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.CliRun;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Seed 000's cases end to end over HTTP: baseline, gate, remove with the cascade, verify-gone. */
class LifecycleScenarioTest extends SeededClusterTest {

    @BeforeEach
    void setUp() {
        seedAtGateTime();
    }

    CliRun gate(String node, String... extra) {
        List<String> args = new java.util.ArrayList<>(List.of("gate", node, "--baseline", baseline.toString()));
        args.addAll(List.of(extra));
        return cli(args.toArray(String[]::new));
    }

    CliRun remove(String node, String... extra) {
        List<String> args = new java.util.ArrayList<>(List.of("remove", node, "--baseline", baseline.toString()));
        args.addAll(List.of(extra));
        return cli(args.toArray(String[]::new));
    }

    Node node(String name) {
        return api.client().nodes().withName(name).get();
    }

    /** The garbage collector and PodGC of a real cluster, with the seed's timings scaled to poll steps. */
    protected void playGarbageCollector(String node) {
        clock.schedule(Duration.ofSeconds(3), () -> {
            api.client().leases().inNamespace("kube-node-lease").withName(node).delete();
            api.client().storage().v1().csiNodes().withName(node).delete();
        });
        clock.schedule(Duration.ofSeconds(20), () ->
                api.client().secrets().inNamespace("kube-system").withName(node + ".node-password.rke2").delete());
        clock.schedule(Duration.ofSeconds(56), () -> api.client().pods().inNamespace("kube-system")
                .withName("rke2-canal-" + node).delete());
        clock.schedule(Duration.ofSeconds(80), () -> api.client().pods().inNamespace("gpu-operator")
                .withName("nvidia-dcgm-exporter-" + node).delete());
    }

    @Test
    void baselineRecordsTargetsControlAndCountsButNoSecretData() throws IOException {
        String json = Files.readString(baseline);
        // the API server's clock (its Date header), which the seed's t0 was anchored to just before
        java.time.Instant ts = io.nodegate.lifecycle.evidence.EvidenceStore.readJson(baseline,
                io.nodegate.lifecycle.baseline.Baseline.class).baselineTs();
        assertThat(ts).isBetween(seed.t0.minusSeconds(5), java.time.Instant.now());
        assertThat(json).contains("boot-a11", "uuid-a11",
                "\"nvidia.com/gpu\" : 24", "rke2-canal", "gpu-a11.node-password.rke2", "\"pods\" : 3");
        assertThat(json).doesNotContain(SeedCluster.SECRET_VALUE);
    }

    @Test
    void gpuA11PassesIsRemovedCascadeFollowedAndNothingLeaks() throws IOException {
        CliRun g = gate("gpu-a11", "--removed-at", seed.a11Reply, "--reply-from", "infra-kim",
                "--reply", "15:09 정리 완료", "--annotate");
        assertThat(g.exitCode()).as(g.all()).isZero();
        assertThat(g.out()).contains("gate gpu-a11: PASS", "leaseRenewTime: " + seed.a11Lease);
        assertThat(node("gpu-a11").getMetadata().getAnnotations()).containsEntry("nodegate.io/gate-verdict", "PASS")
                .hasEntrySatisfying("nodegate.io/gate-evidence", v -> assertThat(v).startsWith("sha256:"));

        clock.advance(Duration.ofMinutes(2));
        String a11Uid = node("gpu-a11").getMetadata().getUid();
        playGarbageCollector("gpu-a11");
        String a11AsServed = get(api.url() + "/api/v1/nodes/gpu-a11");
        CliRun r = remove("gpu-a11");
        assertThat(r.exitCode()).as(r.all()).isZero();
        assertThat(r.out()).contains("deleted Node gpu-a11", "still there", "cascade complete");
        // progress on change, plus a heartbeat every 10 s: never the same line at every 2 s poll
        List<String> progress = r.out().lines().filter(l -> l.contains("still there")).toList();
        for (int i = 1; i < progress.size(); i++) {
            String before = progress.get(i - 1).replaceFirst("^\\+(\\d+)s: ", "");
            String now = progress.get(i).replaceFirst("^\\+(\\d+)s: ", "");
            long gap = Long.parseLong(progress.get(i).replaceAll("^\\+(\\d+)s:.*", "$1"))
                    - Long.parseLong(progress.get(i - 1).replaceAll("^\\+(\\d+)s:.*", "$1"));
            assertThat(!before.equals(now) || gap >= 10).as(progress.get(i - 1) + " / " + progress.get(i)).isTrue();
        }
        assertThat(node("gpu-a11")).isNull();
        assertThat(node("gpu-a10")).isNotNull();

        Path removal;
        try (Stream<Path> s = Files.list(evidence)) {
            removal = s.filter(p -> p.getFileName().toString().startsWith("remove-gpu-a11-")).findFirst().orElseThrow();
        }
        assertThat(Files.readString(removal.resolve("node.json"))).contains("\"uid\":\"" + a11Uid + "\"")
                .as("the Node's JSON exactly as the server sent it, not a re-serialised copy")
                .isEqualTo(a11AsServed.endsWith("\n") ? a11AsServed : a11AsServed + "\n");
        assertThat(Files.readString(removal.resolve("lease.json"))).contains("\"holderIdentity\":\"gpu-a11\"");
        assertThat(Files.readString(removal.resolve("node-password-secret.json")))
                .contains("gpu-a11.node-password.rke2").doesNotContain("\"data\"");
        assertNoSecretValue(g, r);

        CliRun v = cli("verify-gone", "--baseline", baseline.toString(), "--name-pattern", "^new-");
        assertThat(v.exitCode()).as(v.all()).isZero();
        assertThat(v.out()).contains("verify-gone", "PASS", "selfTest: IP query with the control node's [192.0.2.50] -> [keep-1]",
                "gpu-a10: bootID boot-a10");
        // no etcd source: the member comparison did not run, and is never printed as PASS
        assertThat(v.out()).startsWith("verify-gone (baseline ").contains("): PASS (not checked: etcd, kubelet-ports, fleet, bmc)\n")
                .contains("not checked etcd members unchanged").doesNotContainPattern("PASS\\s+etcd members");
        assertNoSecretValue(v);

        CliRun again = remove("gpu-a11");
        assertThat(again.exitCode()).isEqualTo(5);
        assertThat(again.err()).contains("already gone");
    }

    @Test
    void gpuA10WithLeaseFrozenDaysEarlierHoldsAndShowsWhy() {
        String replyLocal = java.time.LocalDateTime.ofInstant(seed.t0.plus(Duration.ofMinutes(40)),
                java.time.ZoneId.of("Asia/Seoul")).toString().replace('T', ' ');
        CliRun g = gate("gpu-a10", "--removed-at", replyLocal, "--tz", "Asia/Seoul");
        assertThat(g.exitCode()).as(g.all()).isEqualTo(4);
        assertThat(g.out()).contains("HOLD", "leaseRenewTime: " + seed.a10Lease, "readyLastHeartbeatTime",
                "readyLastTransitionTime", "bootID: boot-a10", "before the reported removal");
        CliRun r = remove("gpu-a10");
        assertThat(r.exitCode()).isEqualTo(5);
        assertThat(r.err()).contains("HOLD, not PASS");
        assertThat(node("gpu-a10")).isNotNull();
    }

    @Test
    void gpuA10WithOverrideIsRemovedAndTheDecisionRecorded() throws IOException {
        assertThat(gate("gpu-a10").exitCode()).isEqualTo(4);
        playGarbageCollector("gpu-a10");
        CliRun r = remove("gpu-a10", "--override", "kim: same reply source as gpu-a11; risk accepted");
        assertThat(r.exitCode()).as(r.all()).isZero();
        assertThat(node("gpu-a10")).isNull();
        try (Stream<Path> s = Files.walk(evidence)) {
            Path rec = s.filter(p -> p.getFileName().toString().equals("removal.json")).findFirst().orElseThrow();
            assertThat(Files.readString(rec)).contains("risk accepted", "\"cascadeComplete\" : true",
                    "override of gate HOLD (gate-gpu-a10-");
        }
    }

    @Test
    void rebootThatReRegisteredFailsOnBootId() {
        Node n = node("gpu-a11");
        n.getStatus().getNodeInfo().setBootID("boot-a11-after-reboot");
        api.apply(n);
        CliRun g = gate("gpu-a11", "--removed-at", seed.a11Reply);
        assertThat(g.exitCode()).as(g.all()).isEqualTo(5);
        assertThat(g.out()).contains("FAIL", "bootID changed boot-a11 -> boot-a11-after-reboot");
    }

    @Test
    void missingControlNodeMakesTheRunInvalid() {
        api.delete(node("keep-1"));
        CliRun g = gate("gpu-a11", "--removed-at", seed.a11Reply);
        assertThat(g.exitCode()).as(g.all()).isEqualTo(3);
        assertThat(g.out()).contains("INVALID", "control node keep-1 not found");
    }

    @Test
    void nodeRecreatedBetweenGateAndRemoveIsNotDeleted() {
        assertThat(gate("gpu-a11", "--removed-at", seed.a11Reply).exitCode()).isZero();
        Node old = node("gpu-a11");
        api.delete(old);
        Node again = SeedCluster.node("gpu-a11", "192.0.2.11", "True", false, java.util.Map.of(), "boot-new",
                "uuid-a11", 8, seed.gateTime, null);
        api.create(again);
        String newUid = node("gpu-a11").getMetadata().getUid();
        assertThat(newUid).isNotEqualTo(old.getMetadata().getUid());
        CliRun r = remove("gpu-a11");
        assertThat(r.exitCode()).isEqualTo(5);
        assertThat(r.err()).contains("uid " + newUid, "recreated");
        assertThat(node("gpu-a11").getMetadata().getUid()).isEqualTo(newUid);
    }

    @Test
    void gateRecordAgainstAnotherBaselineIsRefused() throws IOException {
        assertThat(gate("gpu-a11", "--removed-at", seed.a11Reply).exitCode()).isZero();
        Path other = tmp.resolve("other-baseline.json");
        Files.writeString(other, Files.readString(baseline).replace("\"pods\" : 3", "\"pods\" : 4"));
        // a second, properly saved baseline (sealed), not an edited one: that alone would be INVALID
        io.nodegate.lifecycle.baseline.BaselineSeal.record(new io.nodegate.lifecycle.evidence.EvidenceStore(evidence),
                other, io.nodegate.lifecycle.evidence.EvidenceStore.readJson(other,
                        io.nodegate.lifecycle.baseline.Baseline.class));
        CliRun r = cli("remove", "gpu-a11", "--baseline", other.toString());
        assertThat(r.exitCode()).isEqualTo(5);
        assertThat(r.err()).contains("made against another baseline");
        assertThat(node("gpu-a11")).isNotNull();
    }

    @Test
    void staleGateRecordIsRefused() {
        assertThat(gate("gpu-a11", "--removed-at", seed.a11Reply).exitCode()).isZero();
        clock.advance(Duration.ofMinutes(31));
        CliRun r = remove("gpu-a11");
        assertThat(r.exitCode()).isEqualTo(5);
        assertThat(r.err()).contains("31 min old");
        assertThat(node("gpu-a11")).isNotNull();
    }

    @Test
    void cascadeThatNeverFinishesSaysWhatIsLeft() {
        assertThat(gate("gpu-a11", "--removed-at", seed.a11Reply).exitCode()).isZero();
        clock.schedule(Duration.ofSeconds(3), () -> api.client().leases().inNamespace("kube-node-lease")
                .withName("gpu-a11").delete());
        CliRun r = remove("gpu-a11", "--timeout", "90s");
        assertThat(r.exitCode()).as(r.all()).isEqualTo(4);
        assertThat(r.err()).contains("CSINode gpu-a11", "Secret kube-system/gpu-a11.node-password.rke2",
                "2 pod(s) bound to gpu-a11").doesNotContain("Lease kube-node-lease");
        assertThat(node("gpu-a11")).isNull();
    }

    @Test
    void unwritableEvidenceDirectoryDeletesNothing() throws IOException {
        assertThat(gate("gpu-a11", "--removed-at", seed.a11Reply).exitCode()).isZero();
        // The backup sub-directory's name is taken by a file: the backup cannot be written (works as root too).
        Files.writeString(evidence.resolve("remove-gpu-a11-" + io.nodegate.lifecycle.evidence.EvidenceStore
                .stamp(clock.instant())), "blocked");
        CliRun r = remove("gpu-a11");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("cannot write evidence file");
        assertThat(node("gpu-a11")).isNotNull();

        Path notADir = tmp.resolve("plain-file");
        Files.writeString(notADir, "x");
        CliRun r2 = remove("gpu-a11", "--evidence-dir", notADir.resolve("sub").toString(), "--override", "test");
        assertThat(r2.exitCode()).isEqualTo(2);
        assertThat(r2.err()).contains("not writable");
        assertThat(node("gpu-a11")).isNotNull();
    }

    @Test
    void renamedHostThatCameBackIsNamedBySystemUuid() throws InterruptedException {
        playGarbageCollector("gpu-a11");
        assertThat(remove("gpu-a11", "--override", "test setup").exitCode()).isZero();
        while (java.time.Instant.now().isBefore(seed.t0.plusSeconds(1))) {
            Thread.sleep(50); // the server stamps creation with the real clock, in whole seconds
        }
        // D+17: the host was renamed and rebooted with the old config.yaml: a new Node, no cordon, no role
        api.create(SeedCluster.node("new-01", "198.51.100.21", "True", false, java.util.Map.of(), "boot-n1",
                "uuid-a11", 8, seed.gateTime, null));
        CliRun v = cli("verify-gone", "--baseline", baseline.toString());
        assertThat(v.exitCode()).as(v.all()).isEqualTo(5);
        assertThat(v.out()).contains("Node new-01 has systemUUID uuid-a11 of target gpu-a11: the same host came back under a new name",
                "Node new-01 created");
    }

    @Test
    void verifyGoneWhoseSelfTestFindsNothingIsInvalid() {
        api.delete(node("keep-1"));
        CliRun v = cli("verify-gone", "--baseline", baseline.toString());
        assertThat(v.exitCode()).as(v.all()).isEqualTo(3);
        assertThat(v.out()).contains("INVALID", "self-test found nothing (IP query with the control node's [192.0.2.50])");
    }

    void assertNoSecretValue(CliRun... runs) throws IOException {
        String encoded = java.util.Base64.getEncoder().encodeToString(SeedCluster.SECRET_VALUE.getBytes());
        for (CliRun run : runs) {
            assertThat(run.all()).doesNotContain(SeedCluster.SECRET_VALUE).doesNotContain(encoded);
        }
        try (Stream<Path> s = Files.walk(evidence)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                assertThat(Files.readString(p)).as(p.toString()).doesNotContain(SeedCluster.SECRET_VALUE)
                        .doesNotContain(encoded);
            }
        }
    }

    /** One GET as a plain HTTP client sees it (the server's bytes, not parsed). */
    private static String get(String url) throws java.io.IOException {
        var conn = (java.net.HttpURLConnection) java.net.URI.create(url).toURL().openConnection();
        try (var in = conn.getInputStream()) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } finally {
            conn.disconnect();
        }
    }
}
