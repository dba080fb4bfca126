package io.nodegate.handover.run;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.cli.Environment;
import io.nodegate.deploy.CrdRules;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.SlowServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `handover status` against Alertmanager replicas that send their headers and then a byte a second, or accept and
 * never answer: the command ends within its deadlines (one per replica here: the silences read fails, nothing
 * else is asked of it) plus what a loaded machine adds, exits 3 (a read failed: the look proves nothing), and
 * names each replica and the deadline. Before, `--alertmanager-timeout 5s` bounded only the headers and the
 * trickle held the command for minutes.
 */
class HandoverAlertmanagerDeadlineTest {

    private ApiTestServer api;
    private KubernetesClient client;

    @BeforeEach
    void setUp() {
        api = ApiTestServer.start();
        CrdRules.install(api);
        api.create(SeedCluster.node("gpu-a07", "192.0.2.107", "Unknown", true, Map.of("node-role.kubernetes.io/burnin",
                "true"), "boot-a07", "uuid-a07", 8, Instant.now(), null));
        client = SeedCluster.client(api.url(), 5000);
        CliRun open = cli("handover", "open", "a07", "--nodes", "gpu-a07", "--type", "move", "--to", "cluster-b",
                "--due", java.time.LocalDate.now(java.time.ZoneOffset.UTC).plusDays(30).toString(), "--requester", "lee");
        assertThat(open.exitCode()).as(open.all()).isZero();
    }

    @AfterEach
    void tearDown() {
        client.close();
        api.close();
    }

    private CliRun cli(String... args) {
        return CliRun.run(Environment.system().withClient(client), args);
    }

    @Test
    void statusEndsAtTheDeadlineOfEachReplicaAndSaysWhich() {
        try (SlowServer trickle = SlowServer.trickling(); SlowServer silent = SlowServer.silent()) {
            long start = System.nanoTime();
            CliRun status = cli("handover", "status", "a07", "--alertmanager", trickle.url(), "--alertmanager",
                    silent.url(), "--alertmanager-timeout", "2s");
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).as(status.all()).isLessThan(Duration.ofSeconds(2 * 2 + 10));
            assertThat(status.exitCode()).as(status.all()).isEqualTo(3);
            for (SlowServer s : java.util.List.of(trickle, silent)) {
                assertThat(status.all()).contains("Alertmanager " + s.url() + ": GET /api/v2/silences: no complete "
                        + "answer within 2s (the whole answer, headers and body; --alertmanager-timeout)");
            }
        }
    }
}
