package io.nodegate.policy;

import io.nodegate.testing.SeedCluster;
import io.nodegate.deploy.CrdRules;
import io.nodegate.handover.NodeHandover;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `audit` and `collect` list the NodeHandovers (NG171); the operators' RBAC that `policy` emits must grant that list,
 * or every real run answers 403 and NG171 stays at info. Their requests are replayed through an RBAC evaluator loaded
 * with the emitted Roles, as {@link EmittedRbacReplayTest} does for the lifecycle commands.
 */
class HandoverReadRbacReplayTest {

    @TempDir
    Path tmp;

    @Test
    void auditAndCollectReadTheHandoversWithinTheEmittedRbac() {
        try (ApiTestServer api = ApiTestServer.start()) {
            api.setGitVersion("v1.34.3+rke2r3");
            CrdRules.install(api);
            api.create(SeedCluster.node("gpu-a07", "192.0.2.107", "True", true, Map.of(), "boot-a07", "uuid-a07", 8,
                    Instant.now(), null));
            Path kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));
            api.resetCounts();
            CliRun audit = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "-o", "json");
            assertThat(audit.exitCode()).as(audit.all()).isIn(0, 1);
            CliRun collect = CliRun.run("collect", "--kubeconfig", kubeconfig.toString(), "--dir",
                    tmp.resolve("dump").toString());
            assertThat(collect.exitCode()).as(collect.all()).isZero();
            List<String> requests = api.requestLog();
            assertThat(requests).filteredOn(r -> r.startsWith("GET " + NodeHandover.PATH)).hasSize(2);
            assertThat(EmittedRbacReplayTest.denied(requests, PolicySettings.defaults())).isEmpty();
        }
    }
}
