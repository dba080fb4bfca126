package io.nodegate.lifecycle.baseline;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.lifecycle.evidence.Json;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The baseline is evidence: its time comes from the API server, it is sealed by sha256 when saved, and a changed,
 * incomplete or future baseline makes every later step refuse instead of skipping a check.
 */
class BaselineEvidenceTest extends SeededClusterTest {

    @BeforeEach
    void setUp() {
        CliRun saved = seedAndSaveBaseline();
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        clock.set(seed.gateTime);
    }

    CliRun gate() {
        return cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", seed.a11Reply);
    }

    ObjectNode tree() throws IOException {
        return (ObjectNode) Json.MAPPER.readTree(Files.readString(baseline));
    }

    void rewrite(ObjectNode tree) throws IOException {
        Files.writeString(baseline, Json.write(tree));
    }

    @Test
    void theBaselineTimeIsTheServersNotTheWorkstationsClock() throws IOException {
        // the workstation clock runs a day ahead: it would hide every Node created in that day
        clock.set(Instant.now().plus(Duration.ofDays(1)));
        Path ahead = evidence.resolve("ahead.json");
        CliRun run = cli("baseline", "save", "--targets", "gpu-a10,gpu-a11", "--control", "keep-1",
                "--evidence-dir", evidence.toString(), "--out", ahead.toString());
        assertThat(run.exitCode()).as(run.all()).isZero();
        Instant ts = EvidenceStore.readJson(ahead, Baseline.class).baselineTs();
        assertThat(ts).isBetween(Instant.now().minusSeconds(30), Instant.now().plusSeconds(1));
        assertThat(Files.list(evidence).map(p -> p.getFileName().toString()))
                .anyMatch(n -> n.equals("baseline-seal-" + EvidenceStore.sha256(ahead) + ".json"));
    }

    @Test
    void aMissingOrNullServerIsAnErrorNotASkippedCheck() throws IOException {
        ObjectNode t = tree();
        t.remove("server");
        rewrite(t);
        CliRun missing = gate();
        assertThat(missing.exitCode()).as(missing.all()).isEqualTo(2);
        assertThat(missing.err()).contains(baseline.toString(), "field server is missing");

        t.putNull("server");
        rewrite(t);
        CliRun nulled = gate();
        assertThat(nulled.exitCode()).as(nulled.all()).isEqualTo(2);
        assertThat(nulled.err()).contains("field server is null");
        assertThat(nulled.out()).doesNotContain("PASS");
    }

    @Test
    void anEditedBaselineIsInvalid() throws IOException {
        ObjectNode t = tree();
        t.put("baselineTs", "9999-01-01T00:00:00Z");
        rewrite(t);
        CliRun run = cli("verify-gone", "--baseline", baseline.toString());
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.err()).contains("INVALID", "changed since 'baseline save' wrote it");
        assertThat(run.out()).doesNotContain("PASS");
    }

    @Test
    void aSealedBaselineFromTheFutureIsInvalid() throws IOException {
        Baseline b = EvidenceStore.readJson(baseline, Baseline.class);
        Baseline future = new Baseline(b.format(), Instant.now().plus(Duration.ofDays(3)), b.server(), b.evidenceDir(),
                b.distribution(), b.clusterKubeletVersion(), b.control(), b.targets(), b.nonTargets(), b.etcdMembers(),
                b.daemonSets(), b.gpuTotals(), b.metallb(), b.nodePasswordSecrets());
        Files.writeString(baseline, Json.write(future));
        BaselineSeal.record(new EvidenceStore(evidence), baseline, future);
        CliRun run = cli("verify-gone", "--baseline", baseline.toString());
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.err()).contains("INVALID", "after the API server's current time");
    }

    @Test
    void unreadableFieldsAreNamedWithoutParserText() throws IOException {
        String original = Files.readString(baseline);
        ObjectNode t = tree();
        t.put("baselineTs", "yesterday");
        rewrite(t);
        CliRun run = gate();
        assertThat(run.exitCode()).as(run.all()).isEqualTo(2);
        assertThat(run.err()).contains(baseline.toString(), "field baselineTs")
                .doesNotContain("jackson", "Jackson", "Exception", "Cannot deserialize");

        Files.writeString(baseline, original);
        ObjectNode targets = tree();
        ((ObjectNode) targets.get("targets").get(0)).putNull("internalIps");
        rewrite(targets);
        CliRun nested = gate();
        assertThat(nested.exitCode()).as(nested.all()).isEqualTo(2);
        assertThat(nested.err()).contains("field targets[0]").doesNotContain("NullPointer", "jackson");
    }

    @Test
    void anEmptySecretListOnAnRke2ClusterIsNotSaved() {
        for (String n : new String[]{"ctl-1", "keep-1", "gpu-a10", "gpu-a11"}) {
            api.client().secrets().inNamespace("kube-system").withName(n + ".node-password.rke2").delete();
        }
        Path lying = evidence.resolve("lying.json");
        CliRun run = cli("baseline", "save", "--targets", "gpu-a10,gpu-a11", "--control", "keep-1",
                "--evidence-dir", evidence.toString(), "--out", lying.toString());
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.err()).contains("implausible", "4 of 4 Nodes run RKE2/k3s", "no node-password Secret");
        assertThat(lying).doesNotExist();
    }
}
