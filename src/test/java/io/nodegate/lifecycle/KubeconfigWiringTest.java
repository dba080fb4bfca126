package io.nodegate.lifecycle;

import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The lifecycle commands through the real --kubeconfig path (no test client injected). */
class KubeconfigWiringTest {

    @TempDir
    Path tmp;

    @Test
    void baselineAndGateReachTheClusterThroughAKubeconfig() throws Exception {
        try (ApiTestServer api = ApiTestServer.start()) {
            SeedCluster seed = SeedCluster.populate(api);
            Path kc = api.writeKubeconfig(tmp.resolve("kubeconfig"));
            Path evidence = tmp.resolve("evidence");
            Path baseline = evidence.resolve("baseline.json");
            CliRun b = CliRun.run("baseline", "save", "--kubeconfig", kc.toString(), "--targets", "gpu-a10,gpu-a11",
                    "--control", "keep-1", "--evidence-dir", evidence.toString(), "--out", baseline.toString());
            assertThat(b.exitCode()).as(b.all()).isZero();
            assertThat(Files.readString(baseline)).contains("\"server\" : \"" + api.url());
            CliRun g = CliRun.run("gate", "gpu-a10", "--kubeconfig", kc.toString(), "--baseline", baseline.toString());
            assertThat(g.exitCode()).as(g.all()).isEqualTo(4);
            assertThat(g.out()).contains("no --removed-at");
            assertThat(seed.t0).isNotNull();
        }
    }
}
