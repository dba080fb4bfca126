package io.nodegate.lifecycle.baseline;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.TestClock;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;

import static org.assertj.core.api.Assertions.assertThat;

/** baseline save refuses a control node that every later gate would find INVALID, and writes no baseline. */
class BaselineControlTest extends SeededClusterTest {

    private CliRun saveAfter(Runnable breakTheControl) {
        api = io.nodegate.testing.ApiTestServer.start();
        seed = SeedCluster.populate(api);
        client = SeedCluster.client(api.url());
        clock = new TestClock(seed.t0);
        breakTheControl.run();
        evidence = tmp.resolve("evidence");
        baseline = evidence.resolve("baseline.json");
        return cli("baseline", "save", "--targets", "gpu-a10,gpu-a11", "--control", "keep-1",
                "--evidence-dir", evidence.toString(), "--out", baseline.toString());
    }

    @Test
    void aControlWhosePodQueryFindsNothingIsRefused() {
        CliRun run = saveAfter(() -> client.pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> "keep-1".equals(p.getSpec().getNodeName()))
                .forEach(p -> client.pods().inNamespace(p.getMetadata().getNamespace())
                        .withName(p.getMetadata().getName()).delete()));
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.err()).contains("--control keep-1").contains("positive control")
                .contains("found no pod on control node keep-1").contains("no baseline was written");
        assertThat(Files.exists(baseline)).isFalse();
    }

    @Test
    void aControlWithoutItsNodePasswordSecretIsRefusedOnAClusterThatUsesThem() {
        CliRun run = saveAfter(() -> client.secrets().inNamespace("kube-system")
                .withName("keep-1.node-password.rke2").delete());
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.err()).contains("node-password Secret of control node keep-1 not found");
        assertThat(Files.exists(baseline)).isFalse();
    }

    @Test
    void aGoodControlIsAccepted() {
        CliRun run = saveAfter(() -> { });
        assertThat(run.exitCode()).as(run.all()).isZero();
        assertThat(Files.exists(baseline)).isTrue();
    }
}
