package io.nodegate.lifecycle.rejoin;

import io.nodegate.lifecycle.RancherMachineScenarioTest;
import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.HostReports;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * "A Rancher custom node: its Machine gone, and the registration command's token still valid", over HTTP against two
 * API test servers: cluster A (seed 000, gpu-a11 removed by `nodegate remove`) and Rancher's management cluster with
 * the provisioning Cluster prod-gpu (management ID c-m-7w2kx) and its ClusterRegistrationToken as Rancher stores it
 * (src/test/resources/rancher/registration-tokens). The token, planted in every field that carries it, appears in no
 * output and no file; a management cluster that refuses the read makes the answer unknown, never no.
 */
class RancherRejoinScenarioTest extends SeededClusterTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final String TOKEN = "plantedcrt7q2wzx9v5k4m8n6p2r4t6x8z2b4d6f8h2j4l6n8p2r4t";
    private static final String CRT_PATH = "/apis/management.cattle.io/v3/namespaces/c-m-7w2kx/clusterregistrationtokens";
    private static final ResourceDefinitionContext CRTS = new ResourceDefinitionContext.Builder()
            .withGroup("management.cattle.io").withVersion("v3").withKind("ClusterRegistrationToken")
            .withPlural("clusterregistrationtokens").withNamespaced(true).build();

    ApiTestServer rancher;
    Path rancherKubeconfig;

    @BeforeEach
    void setUp() {
        seedAtGateTime();
        rancher = ApiTestServer.start();
        rancherKubeconfig = rancher.writeKubeconfig(tmp.resolve("rancher.yaml"), "rancher");
        GenericKubernetesResource cluster = SERIALIZATION.unmarshal(resource("/rancher/machines/"
                + "provisioning-cluster-prod-gpu.json"), GenericKubernetesResource.class);
        rancher.client().genericKubernetesResources(RancherMachineScenarioTest.PROVISIONING_CLUSTERS)
                .inNamespace("fleet-default").resource(cluster).create();
        playGarbageCollector("gpu-a11");
        CliRun removed = cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--override", "kim: test");
        assertThat(removed.exitCode()).as(removed.all()).isZero();
    }

    @AfterEach
    void stopRancher() {
        rancher.close();
    }

    private static String resource(String name) {
        try (InputStream in = RancherRejoinScenarioTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stores the recorded list's items on the management server, the token planted where Rancher writes it. */
    private void registrationTokens(String file, String expiresAt, String graceEnds) {
        String json = resource("/rancher/registration-tokens/" + file).replace("CRT_TOKEN", TOKEN)
                .replace("EXPIRES_AT", expiresAt).replace("GRACE_ENDS", graceEnds);
        for (GenericKubernetesResource item : SERIALIZATION.unmarshal(json, GenericKubernetesResourceList.class)
                .getItems()) {
            rancher.client().genericKubernetesResources(CRTS).inNamespace("c-m-7w2kx").resource(item).create();
        }
    }

    private CliRun rejoinRisk(String... extra) {
        List<String> args = new ArrayList<>(List.of("rejoin-risk", "--machine-kubeconfig",
                rancherKubeconfig.toString()));
        args.addAll(Arrays.asList(extra));
        return cli(args.toArray(String[]::new));
    }

    /** The planted token in no output, and in no file under the test's directory (evidence, baseline, reports). */
    private void tokenNowhere(CliRun... runs) throws IOException {
        for (CliRun run : runs) {
            assertThat(run.all()).doesNotContain(TOKEN, "plantedcrt");
        }
        try (Stream<Path> files = Files.walk(tmp)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)).as(f.toString())
                        .doesNotContain(TOKEN);
            }
        }
    }

    @Test
    void theMachineIsGoneAndTheRegistrationTokenNeverExpires() throws IOException {
        registrationTokens("crt-list-rancher-2.12.json", "", "");

        CliRun text = rejoinRisk("gpu-a11", "--machine-cluster", "prod-gpu");
        assertThat(text.exitCode()).as(text.all()).isEqualTo(5);
        assertThat(text.out()).containsIgnoringWhitespaces(
                "can come back: yes (no quarantine; server token never expires; Rancher registration token "
                        + "c-m-7w2kx/default-token never expires; node-password Secret deleted)",
                "closed  rancher-machine      no Machine in fleet-default (cluster prod-gpu) names gpu-a11",
                "open    rancher-registration c-m-7w2kx/default-token ClusterRegistrationToken c-m-7w2kx/default-token",
                "registers any host as a new Machine", "close: the quarantine");

        CliRun json = rejoinRisk("gpu-a11", "--machine-cluster", "prod-gpu", "-o", "json");
        assertThat(json.exitCode()).as(json.all()).isEqualTo(5);
        JsonNode host = JSON.readTree(json.out()).get("hosts").get(0);
        assertThat(host.get("finding").get("evidence").get("openPaths")
                .has("rancher-registration c-m-7w2kx/default-token")).isTrue();
        CliRun yaml = rejoinRisk("--machine-cluster", "prod-gpu", "-o", "yaml");
        assertThat(yaml.exitCode()).as(yaml.all()).isEqualTo(5);

        // verify-gone's rejoin check reads the same, and records its run in the evidence directory
        CliRun verified = cli("verify-gone", "--baseline", baseline.toString(), "--machine-kubeconfig",
                rancherKubeconfig.toString(), "--machine-cluster", "prod-gpu");
        assertThat(verified.out()).containsIgnoringWhitespaces("gpu-a11: can come back: yes (no quarantine; server "
                + "token never expires; Rancher registration token c-m-7w2kx/default-token never expires; "
                + "node-password Secret deleted)");

        // the quarantine closes the door whatever the token
        applyQuarantine("gpu-a11");
        CliRun closed = rejoinRisk("gpu-a11", "--machine-cluster", "prod-gpu");
        assertThat(closed.exitCode()).as(closed.all()).isZero();
        tokenNowhere(text, json, yaml, verified, closed);
    }

    @Test
    void everyManagementClusterReadOfRejoinRiskIsGrantedByPolicyMachines() {
        registrationTokens("crt-list-rancher-2.12.json", "", "");
        rancher.resetCounts();
        CliRun run = rejoinRisk("gpu-a11", "--machine-cluster", "prod-gpu");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(5);
        List<String> requests = rancher.requestLog();
        assertThat(requests).anyMatch(r -> r.startsWith("GET " + CRT_PATH));
        io.nodegate.testing.RbacAuthorizer rbac = new io.nodegate.testing.RbacAuthorizer(
                io.nodegate.policy.PolicyBundle.ofMachines(new io.nodegate.policy.MachinePolicySettings(
                        io.nodegate.policy.PolicySettings.DEFAULT_OPERATORS_GROUP,
                        io.nodegate.policy.PolicySettings.DEFAULT_BREAK_GLASS_GROUP, List.of(), List.of(),
                        "fleet-default")).objects());
        assertThat(requests.stream().filter(r -> !rbac.allows(r))
                .map(r -> r + "  ->  " + io.nodegate.testing.RbacAuthorizer.attributes(r)).toList())
                .as("management-cluster requests policy --machines does not grant").isEmpty();
    }

    @Test
    void theClusterNameComesFromTheNodesLabelAndRancher215SaysWhenTheTokenRotates() throws IOException {
        registrationTokens("crt-list-rancher-2.15.json", seed.gateTime.plusSeconds(30L * 86400).toString(),
                seed.gateTime.plusSeconds(3600).toString());

        // no --machine-cluster and no Node carries Rancher's label: not readable, never "no token"
        CliRun unnamed = rejoinRisk("gpu-a11");
        assertThat(unnamed.exitCode()).as(unnamed.all()).isEqualTo(3);
        assertThat(unnamed.out()).containsIgnoringWhitespaces("unread  rancher-registration",
                "give the downstream cluster's name in Rancher with --machine-cluster");

        // what Rancher 2.15's planner labels the Nodes it registers with
        api.client().nodes().withName("keep-1").edit(n -> {
            n.getMetadata().getLabels().put("plan.cattle.io/cluster-name", "prod-gpu");
            return n;
        });
        CliRun run = rejoinRisk("gpu-a11", "-o", "json");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(5);
        JsonNode paths = JSON.readTree(run.out()).get("hosts").get(0).get("paths");
        JsonNode token = null;
        for (JsonNode p : paths) {
            if (p.get("id").asString().equals("rancher-registration c-m-7w2kx/default-token")) {
                token = p;
            }
        }
        assertThat(token).isNotNull();
        assertThat(token.get("state").asString()).isEqualTo("open");
        assertThat(token.get("detail").asString()).contains("is rotated at "
                + seed.gateTime.plusSeconds(30L * 86400), "the token it replaced is accepted until "
                + seed.gateTime.plusSeconds(3600));
        tokenNowhere(unnamed, run);
    }

    @Test
    void aManagementClusterThatRefusesTheReadIsUnknownNeverNo() throws IOException {
        // an empty namespace is read and proves no token: the path is closed
        CliRun none = rejoinRisk("gpu-a11", "--machine-cluster", "prod-gpu");
        assertThat(none.out()).containsIgnoringWhitespaces("closed  rancher-registration no ClusterRegistrationToken "
                + "in c-m-7w2kx: no registration command of cluster prod-gpu is accepted");

        registrationTokens("crt-list-rancher-2.12.json", "", "");
        rancher.failOn("GET", CRT_PATH, 403);
        CliRun run = rejoinRisk("gpu-a11", "--machine-cluster", "prod-gpu", "-o", "json");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        JsonNode host = JSON.readTree(run.out()).get("hosts").get(0);
        assertThat(host.get("unread").toString()).contains("clusterregistrationtokens", "403");

        // beside the quarantine the answer is proven "no", and the run still says a read failed
        applyQuarantine("gpu-a11");
        CliRun closed = rejoinRisk("gpu-a11", "--machine-cluster", "prod-gpu", "-o", "json");
        assertThat(closed.exitCode()).as(closed.all()).isEqualTo(3);
        assertThat(JSON.readTree(closed.out()).get("hosts").get(0).get("canComeBack").asString()).isEqualTo("no");

        // a server that does not serve the type is not Rancher's management cluster: unread, not "no token"
        rancher.clearFailures();
        rancher.unserve(CRT_PATH);
        CliRun unserved = rejoinRisk("gpu-a11", "--machine-cluster", "prod-gpu");
        assertThat(unserved.exitCode()).as(unserved.all()).isEqualTo(3);
        assertThat(unserved.out()).containsIgnoringWhitespaces("unread  rancher-registration", "answered HTTP 404 (the "
                + "API server does not serve Rancher's ClusterRegistrationTokens: is this Rancher's management cluster?)");
        tokenNowhere(none, run, closed, unserved);
    }

    @Test
    void aHostReportOfAnotherMachineIsRefusedNotIgnored() throws IOException {
        Path clean = HostReports.inspect(this::cli, tmp, "clean");
        Path other = HostReports.rewrite(clean, tmp.resolve("gpu-b03-host-report.json"),
                HostReports.identity("gpu-b03", "machine-gpu-b03", "uuid-b03"));
        CliRun refused = cli("rejoin-risk", "gpu-a11", "--host-report", other.toString());
        assertThat(refused.exitCode()).as(refused.all()).isEqualTo(2);
        assertThat(refused.out()).isEmpty();
        assertThat(refused.err()).containsIgnoringWhitespaces("--host-report " + other
                        + " (hostname gpu-b03, systemUUID uuid-b03, machineID machine-gpu-b03) belongs to none of the "
                        + "hosts asked: gpu-a11 (systemUUID uuid-a11, machineID machine-gpu-a11)",
                "A report matches a host by systemUUID, machineID or hostname = node name.");
        // every host in the ledger: refused all the same
        CliRun ledger = cli("rejoin-risk", "--host-report", other.toString());
        assertThat(ledger.exitCode()).as(ledger.all()).isEqualTo(2);

        // the report of gpu-a11 is taken: the cleaned host holds no RKE2 token
        Path mine = HostReports.rewrite(clean, tmp.resolve("gpu-a11-host-report.json"),
                HostReports.identity("gpu-a11", "machine-gpu-a11", "uuid-a11"));
        CliRun taken = cli("rejoin-risk", "gpu-a11", "--host-report", mine.toString());
        assertThat(taken.exitCode()).as(taken.all()).isIn(0, 5);
        assertThat(taken.out()).containsIgnoringWhitespaces("gpu-a11 (removed ");
        assertThat(taken.out()).doesNotContain("server token never expires");
    }
}
