package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.nodegate.model.ClusterState;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.ControlPlaneFixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seed scenarios end to end over HTTP: real sources (SourceOptions.load) against ApiTestServer instances,
 * no fixture loader. Seed 001 needs two API servers that serve different data, as a split brain does.
 */
class ControlPlaneHttpScenarioTest {

    @TempDir
    Path dir;
    private CliRun last;

    private int run(String... args) {
        last = CliRun.run(args);
        return last.exitCode();
    }

    private static void serve(ApiTestServer api, ClusterState state) {
        api.setGitVersion(state.serverVersion());
        api.create(ControlPlaneFixtures.toObjects(state).toArray(HasMetadata[]::new));
    }

    /** One kubeconfig with a context per server, as an operator would have for cp-node-a and cp-node-c. */
    private Path kubeconfig(String nameA, String urlA, String nameC, String urlC) throws Exception {
        StringBuilder yaml = new StringBuilder("apiVersion: v1\nkind: Config\nclusters:\n");
        for (String[] e : new String[][]{{nameA, urlA}, {nameC, urlC}}) {
            yaml.append("- name: ").append(e[0]).append("\n  cluster:\n    server: ").append(e[1]).append('\n');
        }
        yaml.append("users:\n- name: u\n  user:\n    token: test-token-not-a-secret\ncontexts:\n");
        for (String name : new String[]{nameA, nameC}) {
            yaml.append("- name: ").append(name).append("\n  context:\n    cluster: ").append(name)
                    .append("\n    user: u\n");
        }
        yaml.append("current-context: ").append(nameA).append('\n');
        return Files.writeString(dir.resolve("kubeconfig"), yaml);
    }

    @Test
    void seed001TwoApiServersShowTheSplit() throws Exception {
        try (ApiTestServer a = ApiTestServer.start(); ApiTestServer c = ApiTestServer.start()) {
            serve(a, ControlPlaneFixtures.seed001FromCpNodeA().build());
            serve(c, ControlPlaneFixtures.seed001FromCpNodeC().build());
            Path kubeconfig = kubeconfig("cp-node-a", a.url(), "cp-node-c", c.url());

            int code = run("views", "--kubeconfig", kubeconfig.toString(), "--context", "cp-node-a",
                    "--context", "cp-node-c", "-o", "json");

            assertThat(code).as(last.err()).isEqualTo(ExitCode.FINDINGS);
            JsonNode json = JsonMapper.builder().build().readTree(last.out());
            assertThat(json.get("views").get(0).get("server").asString()).isEqualTo(a.url());
            assertThat(json.get("views").get(0).get("serverVersion").asString()).isEqualTo("v1.27.9+k3s1");
            assertThat(json.get("views").get(0).get("nodeCount").asInt()).isEqualTo(5);
            assertThat(json.get("views").get(1).get("nodeCount").asInt()).isEqualTo(1);
            JsonNode finding = json.get("findings").get(0);
            assertThat(finding.get("code").asString()).isEqualTo("NG207");
            assertThat(finding.get("severity").asString()).isEqualTo("critical");
            // each API server assigned its own uid on create, as two etcd clusters do
            String uidInA = a.client().nodes().withName("cp-node-c").get().getMetadata().getUid();
            String uidInC = c.client().nodes().withName("cp-node-c").get().getMetadata().getUid();
            assertThat(uidInA).isNotEqualTo(uidInC);
            assertThat(finding.get("message").asString()).contains("only cp-node-c, as if alone")
                    .contains("uid " + uidInA + " in cp-node-a, " + uidInC + " in cp-node-c");
            assertThat(finding.get("evidence").get("uidMismatches").get(0).get("node").asString())
                    .isEqualTo("cp-node-c");
            assertThat(finding.get("evidence").get("readyMismatches").get(0).get("ready").get("cp-node-a").asString())
                    .isEqualTo("Unknown");
            assertThat(a.requests("GET", "/api/v1/nodes")).isPositive();
            assertThat(c.requests("GET", "/api/v1/nodes")).isPositive();
        }
    }

    /**
     * Two API servers of one etcd cluster serve one store: modelled as one test server reached under two
     * addresses, so uids and timestamps are the same objects (two test servers would each assign their own).
     */
    @Test
    void twoServersOfOneClusterAgreeOverHttp() throws Exception {
        try (ApiTestServer a = ApiTestServer.start()) {
            serve(a, ControlPlaneFixtures.seed001FromCpNodeA().build());
            String other = a.url().contains("localhost") ? a.url().replace("localhost", "127.0.0.1")
                    : a.url().replace("127.0.0.1", "localhost");
            assertThat(other).isNotEqualTo(a.url());
            Path kubeconfig = kubeconfig("cp-node-a", a.url(), "cp-node-b", other);

            int code = run("views", "--kubeconfig", kubeconfig.toString(), "--context", "cp-node-a",
                    "--context", "cp-node-b");

            assertThat(code).as(last.err()).isEqualTo(ExitCode.OK);
            assertThat(last.out()).contains("FINDINGS (0)\n  none\n");
        }
    }

    @Test
    void aFailingServerInvalidatesTheComparison() throws Exception {
        try (ApiTestServer a = ApiTestServer.start(); ApiTestServer c = ApiTestServer.start()) {
            serve(a, ControlPlaneFixtures.seed001FromCpNodeA().build());
            serve(c, ControlPlaneFixtures.seed001FromCpNodeC().build());
            c.failOn("GET", "/api/v1/nodes", 403);
            Path kubeconfig = kubeconfig("cp-node-a", a.url(), "cp-node-c", c.url());

            int code = run("views", "--kubeconfig", kubeconfig.toString(), "--context", "cp-node-a",
                    "--context", "cp-node-c");

            assertThat(code).isEqualTo(ExitCode.COLLECTION);
            assertThat(last.err()).contains("view cp-node-c (--context cp-node-c --kubeconfig");
            assertThat(last.out()).isEmpty();
        }
    }

    @Test
    void seed003RedundancyOverHttp() throws Exception {
        try (ApiTestServer api = ApiTestServer.start()) {
            serve(api, ControlPlaneFixtures.seed003().build());
            Path kubeconfig = api.writeKubeconfig(dir.resolve("k3s.yaml"));

            int code = run("redundancy", "--kubeconfig", kubeconfig.toString(), "-o", "json");

            assertThat(code).as(last.err()).isEqualTo(ExitCode.FINDINGS);
            JsonNode json = JsonMapper.builder().build().readTree(last.out());
            assertThat(json.get("distribution").asString()).isEqualTo("k3s");
            JsonNode layers = json.get("layers");
            assertThat(layers.get(0).get("count").asInt()).isEqualTo(3);
            assertThat(layers.get(0).get("basis").asString()).startsWith("inferred from role labels");
            assertThat(layers.get(1).get("count").asInt()).isEqualTo(2);
            assertThat(layers.get(3).get("holder").asString()).isEqualTo("ilwon");
            assertThat(layers.get(4).get("holder").asString()).isEqualTo("lemuel");
            JsonNode nodes = json.get("serverNodes");
            assertThat(nodes.get(0).get("name").asString()).isEqualTo("ilwon");
            assertThat(nodes.get(0).get("runningPods").asInt()).isEqualTo(34);
            assertThat(nodes.get(1).get("runningPods").asInt()).isEqualTo(6);
            assertThat(nodes.get(2).get("disabled").toString())
                    .isEqualTo("[\"apiserver\",\"scheduler\",\"controller-manager\"]");
            assertThat(json.get("findings").get(0).get("code").asString()).isEqualTo("NG210");
            assertThat(api.requests("GET", "/api/v1/pods")).isPositive();
        }
    }

    @Test
    void podListFailureIsACollectionFailureNotZeroPods() throws Exception {
        try (ApiTestServer api = ApiTestServer.start()) {
            serve(api, ControlPlaneFixtures.seed003().build());
            api.failOn("GET", "/api/v1/pods", 500);
            Path kubeconfig = api.writeKubeconfig(dir.resolve("k3s.yaml"));

            int code = run("redundancy", "--kubeconfig", kubeconfig.toString());

            assertThat(code).isEqualTo(ExitCode.COLLECTION);
            assertThat(last.out()).isEmpty();
        }
    }
}
