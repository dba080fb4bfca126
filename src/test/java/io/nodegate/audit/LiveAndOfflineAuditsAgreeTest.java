package io.nodegate.audit;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The promise behind `collect`: an audit of its output gives the findings the live audit gave. The cluster is
 * the renamed-rejoin example served over real HTTP; live ages run against today's clock, so compare what the
 * findings claim (code, severity, nodes), not the ages in their messages. (The server stamps creation times on
 * create, as a real one does, so every Node is a newcomer here.)
 */
class LiveAndOfflineAuditsAgreeTest {

    private static final Path EXAMPLE = Path.of("examples/cluster-a-renamed-rejoin");

    private ApiTestServer api;

    @BeforeEach
    void serveTheExample() throws IOException {
        api = ApiTestServer.start();
        api.setGitVersion("v1.34.3+rke2r3");
        api.create(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata().withName("cattle-system")
                .endMetadata().build());
        try (var files = Files.list(EXAMPLE)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")
                    && !f.getFileName().toString().equals("collected.json")).sorted().toList()) {
                KubernetesList list = Serialization.unmarshal(Files.readString(file), KubernetesList.class);
                api.create(list.getItems().toArray(HasMetadata[]::new));
            }
        }
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void auditOfCollectOutputMatchesTheLiveAudit(@TempDir Path tmp) {
        Path kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));

        CliRun live = CliRun.run("audit", "--kubeconfig", kubeconfig.toString(), "-o", "json");
        CliRun collect = CliRun.run("collect", "--kubeconfig", kubeconfig.toString(), "--dir", tmp.resolve("dump").toString());
        CliRun offline = CliRun.run("audit", "-f", tmp.resolve("dump").toString(), "-o", "json");

        assertThat(collect.exitCode()).as(collect.err()).isZero();
        assertThat(live.exitCode()).as(live.err()).isEqualTo(1);
        assertThat(offline.exitCode()).as(offline.err()).isEqualTo(1);
        JsonNode liveReport = JsonMapper.builder().build().readTree(live.out());
        JsonNode offlineReport = JsonMapper.builder().build().readTree(offline.out());

        List<String> liveFindings = findingKeys(liveReport);
        assertThat(liveFindings).as("the example's story fires these codes")
                .anyMatch(k -> k.startsWith("NG103"))
                .anyMatch(k -> k.startsWith("NG110"))
                .anyMatch(k -> k.startsWith("NG111"))
                .anyMatch(k -> k.startsWith("NG150"));
        assertThat(findingKeys(offlineReport)).containsExactlyElementsOf(liveFindings);
        assertThat(nodeRows(offlineReport)).containsExactlyElementsOf(nodeRows(liveReport));
        assertThat(nodeRows(liveReport)).hasSize(37);
    }

    /** Code, severity and nodes: what a finding claims, without the ages that move with the clock. */
    private static List<String> findingKeys(JsonNode report) {
        List<String> keys = new ArrayList<>();
        for (JsonNode f : report.path("findings")) {
            List<String> nodes = new ArrayList<>();
            f.path("nodes").forEach(n -> nodes.add(n.asString()));
            keys.add(f.path("code").asString() + " " + f.path("severity").asString() + " " + nodes);
        }
        return keys;
    }

    private static List<String> nodeRows(JsonNode report) {
        List<String> rows = new ArrayList<>();
        for (JsonNode n : report.path("nodes")) {
            rows.add(n.path("name").asString() + " " + n.path("ready").toString() + " " + n.path("roles").toString()
                    + " " + n.path("internalIP").toString() + " " + n.path("systemUUID").toString());
        }
        return rows;
    }
}
