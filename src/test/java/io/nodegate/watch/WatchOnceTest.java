package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.nodegate.cli.Environment;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `watch --once` builds its state from informers (LIST + WATCH over real HTTP) and must say exactly what `audit`
 * says about the same state: the renamed-rejoin example, served by the test API server, read by the watch at a
 * fixed time T, against `audit` of a `collect` of the same server aged at T.
 */
class WatchOnceTest {

    private static final Path EXAMPLE = Path.of("examples/cluster-a-renamed-rejoin");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ApiTestServer api;
    private KubernetesClient client;

    @BeforeEach
    void serveTheExample() throws IOException {
        api = ApiTestServer.start();
        api.setGitVersion("v1.34.3+rke2r3");
        api.create(new NamespaceBuilder().withNewMetadata().withName("cattle-system").endMetadata().build());
        // a cluster without the NodeHandover CRD, as a real apiserver answers it: 404, so none is open
        api.unserve(io.nodegate.handover.NodeHandover.PATH);
        try (var files = Files.list(EXAMPLE)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")
                    && !f.getFileName().toString().equals("collected.json")).sorted().toList()) {
                KubernetesList list = Serialization.unmarshal(Files.readString(file), KubernetesList.class);
                api.create(list.getItems().toArray(HasMetadata[]::new));
            }
        }
        client = api.newClient();
    }

    @AfterEach
    void stop() {
        client.close();
        api.close();
    }

    @Test
    void oncePrintsWhatAuditPrintsForTheSameState(@TempDir Path tmp) {
        Instant t = Instant.now().plusSeconds(3600).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        Environment env = Environment.system().withClient(client).withClock(Clock.fixed(t, ZoneOffset.UTC));

        CliRun watch = CliRun.run(env, "watch", "--once");
        Path kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));
        CliRun collect = CliRun.run("collect", "--kubeconfig", kubeconfig.toString(), "-o", tmp.resolve("dump").toString());
        CliRun audit = CliRun.run("audit", "-f", tmp.resolve("dump").toString(), "--now", t.toString(), "-o", "json");

        assertThat(collect.exitCode()).as(collect.err()).isZero();
        assertThat(watch.exitCode()).as(watch.err()).isEqualTo(1).isEqualTo(audit.exitCode());
        ObjectNode fromWatch = (ObjectNode) JSON.readTree(watch.out());
        ObjectNode fromAudit = (ObjectNode) JSON.readTree(audit.out());
        assertThat(fromWatch.get("findings").size()).isGreaterThan(3);
        assertThat(fromWatch.get("nodes").size()).isEqualTo(37);
        // where it was read from differs by design ("live: ..." against "offline: dump ..."); all else is equal
        fromWatch.remove("source");
        fromAudit.remove("source");
        assertThat(fromWatch.toString()).isEqualTo(fromAudit.toString());
        // and the informers read every kind with LIST + WATCH, never one object at a time
        assertThat(api.requestLog()).anyMatch(r -> r.startsWith("GET /api/v1/nodes?") && r.contains("watch=true"));
    }
}
