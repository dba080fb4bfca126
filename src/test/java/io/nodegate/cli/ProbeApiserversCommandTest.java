package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.DelayProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `nodegate probe apiservers` over real HTTP: three API test servers (separate stores, so "deleted on every
 * apiserver" is checked on each), published as three default/kubernetes EndpointSlices on 127.0.0.1 with one
 * port each (a slice's port applies to all its endpoints, so distinct ports need distinct slices). The
 * kubeconfig points at the first; the second is reached through a proxy which, in the tests that want it
 * slow, holds each answer back by 1 s (a floor, so it is slow whatever the machine's load; the fast ones have
 * 400 ms of headroom below the tuned 600 ms threshold).
 */
class ProbeApiserversCommandTest {

    private static final String LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private ApiTestServer a;
    private ApiTestServer b;
    private ApiTestServer c;
    private DelayProxy slowB;
    private Path kubeconfig;

    @BeforeEach
    void start() {
        a = ApiTestServer.start();
        b = ApiTestServer.start();
        c = ApiTestServer.start();
        slowB = DelayProxy.start(b.url(), 0);
        a.create(slice("kubernetes", port(a)), slice("kubernetes-b", slowB.port()), slice("kubernetes-c", port(c)));
        kubeconfig = a.writeKubeconfig(dir.resolve("kubeconfig"));
    }

    @AfterEach
    void stop() {
        slowB.close();
        a.close();
        b.close();
        c.close();
    }

    @Test
    void theSlowApiserverAloneIsFlaggedAndEveryProbeLeaseIsGone() throws Exception {
        slowB.delay(1000);

        CliRun run = CliRun.run("probe", "apiservers", "--kubeconfig", kubeconfig.toString(), "--count", "3",
                "--renew-deadline", "2s", "--threshold-fraction", "0.3", "-o", "json");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.FINDINGS);
        JsonNode report = JSON.readTree(run.out());
        assertThat(report.get("findings")).hasSize(1);
        JsonNode finding = report.get("findings").get(0);
        assertThat(finding.get("code").asString()).isEqualTo("NG213");
        assertThat(finding.get("nodes").get(0).asString()).isEqualTo("127.0.0.1:" + slowB.port());
        assertThat(finding.get("evidence").get("p99Seconds").asDouble()).isGreaterThanOrEqualTo(1.0);
        assertThat(report.get("apiservers")).hasSize(3).allSatisfy(e -> {
            assertThat(e.get("measured").asBoolean()).isTrue();
            assertThat(e.get("renewals").asInt()).isEqualTo(3);
            assertThat(e.get("leaseCleanup").asString()).isEqualTo("deleted");
        });
        String leaseName = report.get("probe").get("leaseName").asString();
        assertThat(leaseName).startsWith("nodegate-probe-");
        for (ApiTestServer server : List.of(a, b, c)) {
            // each apiserver was renewed against directly, and its probe Lease is gone
            assertThat(server.requests("POST", LEASES)).isEqualTo(1);
            assertThat(server.requests("PUT", LEASES + "/" + leaseName)).isEqualTo(3);
            assertThat(server.requests("DELETE", LEASES + "/" + leaseName)).isEqualTo(1);
            assertThat(server.client().leases().inNamespace("kube-system").list().getItems()).isEmpty();
        }
    }

    @Test
    void slowButWithinTheDefaultThresholdIsNotFlaggedAndTheTableShowsAll() {
        // 600 ms per renewal (1.2 s if an HTTP/2 control frame costs a second delay) is below
        // 2 s = 0.2 × 10 s: slow, but a near miss
        slowB.delay(600);

        CliRun run = CliRun.run("probe", "apiservers", "--kubeconfig", kubeconfig.toString(), "--count", "2");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.out()).containsIgnoringWhitespaces("APISERVER", "127.0.0.1:" + port(a), "127.0.0.1:" + slowB.port(),
                "127.0.0.1:" + port(c), "slow above 2s = 0.2 × renew deadline 10s", "FINDINGS (0)",
                "probed over http");
        assertThat(run.out()).doesNotContain("SLOW", "ERROR");
        // the source line is written as every other table writes it ("source: ...", lower case)
        assertThat(run.out()).startsWith("source: live: ").doesNotContain("Source:");
    }

    @Test
    void aFailingApiserverIsAnErrorNamedWhileTheOthersAreStillReportedAndCleanedUp() throws Exception {
        c.failOn("PUT", LEASES + "/probe-fixed", 500, 1);

        CliRun run = CliRun.run("probe", "apiservers", "--kubeconfig", kubeconfig.toString(), "--count", "2",
                "--lease-name", "probe-fixed", "-o", "json");

        assertThat(run.exitCode()).isEqualTo(ExitCode.COLLECTION);
        assertThat(run.err()).containsIgnoringWhitespaces("apiserver 127.0.0.1:" + port(c) + " could not be measured",
                "renewal 2/2", "500");
        JsonNode report = JSON.readTree(run.out());
        JsonNode onC = find(report, port(c));
        assertThat(onC.get("measured").asBoolean()).isFalse();
        assertThat(onC.get("renewals").asInt()).isEqualTo(1);
        assertThat(onC.get("p99Seconds").isNull()).isTrue();
        assertThat(onC.get("leaseCleanup").asString()).isEqualTo("deleted");
        assertThat(find(report, port(a)).get("measured").asBoolean()).isTrue();
        assertThat(find(report, slowB.port()).get("measured").asBoolean()).isTrue();
        for (ApiTestServer server : List.of(a, b, c)) {
            assertThat(server.client().leases().inNamespace("kube-system").withName("probe-fixed").get()).isNull();
        }
    }

    @Test
    void aForbiddenCreateIsAnErrorAndNothingIsDeletedThatWasNotCreated() {
        b.failOn("POST", LEASES, 403);

        CliRun run = CliRun.run("probe", "apiservers", "--kubeconfig", kubeconfig.toString(), "--count", "1",
                "--lease-name", "probe-fixed");

        assertThat(run.exitCode()).isEqualTo(ExitCode.COLLECTION);
        assertThat(run.err()).containsIgnoringWhitespaces("apiserver 127.0.0.1:" + slowB.port() + " could not be measured", "403",
                "RBAC");
        assertThat(run.out()).containsIgnoringWhitespaces("ERROR", "not created");
        assertThat(b.requests("DELETE", LEASES + "/probe-fixed")).isZero();
        assertThat(a.requests("DELETE", LEASES + "/probe-fixed")).isEqualTo(1);
    }

    @Test
    void aLeaseThatCannotBeDeletedAnywhereIsReportedWithTheCommandToRemoveIt() {
        // the endpoint and the kubeconfig's server (the fallback) both refuse the DELETE
        c.failOn("DELETE", LEASES + "/probe-fixed", 500);
        a.failOn("DELETE", LEASES + "/probe-fixed", 500);

        CliRun run = CliRun.run("probe", "apiservers", "--kubeconfig", kubeconfig.toString(), "--count", "1",
                "--lease-name", "probe-fixed");

        assertThat(run.exitCode()).isEqualTo(ExitCode.COLLECTION);
        assertThat(run.out()).containsIgnoringWhitespaces("NOT DELETED");
        assertThat(run.err()).containsIgnoringWhitespaces("probe Lease on 127.0.0.1:" + port(c),
                "kubectl -n kube-system delete lease probe-fixed");
        assertThat(c.client().leases().inNamespace("kube-system").withName("probe-fixed").get()).isNotNull();
        assertThat(b.client().leases().inNamespace("kube-system").withName("probe-fixed").get()).isNull();
    }

    @Test
    void anExistingLeaseOfTheSameNameIsLeftAlone() {
        Lease theirs = new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder().withNewMetadata()
                .withName("probe-fixed").withNamespace("kube-system").endMetadata().withNewSpec()
                .withHolderIdentity("someone-else").endSpec().build();
        c.create(theirs);

        CliRun run = CliRun.run("probe", "apiservers", "--kubeconfig", kubeconfig.toString(), "--count", "1",
                "--lease-name", "probe-fixed");

        assertThat(run.exitCode()).isEqualTo(ExitCode.COLLECTION);
        assertThat(run.err()).containsIgnoringWhitespaces("127.0.0.1:" + port(c), "409");
        assertThat(c.client().leases().inNamespace("kube-system").withName("probe-fixed").get().getSpec()
                .getHolderIdentity()).isEqualTo("someone-else");
    }

    @Test
    void podsThatLostLeaderElectionAreListed() throws Exception {
        a.create(pod("sops", "sops-operator-7d9", "ilwon",
                        "{\"level\":\"error\",\"msg\":\"problem running manager\",\"error\":\"leader election lost\"}"),
                pod("app", "web-1", "david", "leader election: lost connection"));

        CliRun run = CliRun.run("probe", "apiservers", "--kubeconfig", kubeconfig.toString(), "--count", "1",
                "--renew-deadline", "10s", "-o", "json");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        JsonNode findings = JSON.readTree(run.out()).get("findings");
        assertThat(findings).hasSize(1);
        assertThat(findings.get(0).get("code").asString()).isEqualTo("NG214");
        assertThat(findings.get(0).get("severity").asString()).isEqualTo("info");
        assertThat(findings.get(0).get("evidence").get("pod").asString()).isEqualTo("sops/sops-operator-7d9");
    }

    @Test
    void badFlagsAreRejectedBeforeAnythingIsWritten() {
        CliRun fraction = CliRun.run("probe", "apiservers", "--kubeconfig", kubeconfig.toString(),
                "--threshold-fraction", "1.5");
        CliRun count = CliRun.run("probe", "apiservers", "--kubeconfig", kubeconfig.toString(), "--count", "0");
        CliRun name = CliRun.run("probe", "apiservers", "--kubeconfig", kubeconfig.toString(), "--lease-name",
                "Bad_Name");

        assertThat(fraction.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(fraction.err()).containsIgnoringWhitespaces("--threshold-fraction");
        assertThat(count.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(count.err()).containsIgnoringWhitespaces("--count");
        assertThat(name.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(name.err()).containsIgnoringWhitespaces("--lease-name 'Bad_Name'");
        assertThat(a.totalRequests() + b.totalRequests() + c.totalRequests()).isZero();
    }

    private static JsonNode find(JsonNode report, int port) {
        for (JsonNode e : report.get("apiservers")) {
            if (e.get("port").asInt() == port) {
                return e;
            }
        }
        throw new AssertionError("no apiserver with port " + port + " in " + report);
    }

    static int port(ApiTestServer server) {
        return java.net.URI.create(server.url()).getPort();
    }

    static EndpointSlice slice(String name, int port) {
        return new EndpointSliceBuilder().withNewMetadata().withName(name).withNamespace("default")
                .addToLabels("kubernetes.io/service-name", "kubernetes").endMetadata()
                .withAddressType("IPv4")
                .addNewPort().withName("https").withPort(port).withProtocol("TCP").endPort()
                .addNewEndpoint().withAddresses("127.0.0.1").withNewConditions().withReady(true).endConditions()
                .endEndpoint()
                .build();
    }

    private static Pod pod(String ns, String name, String node, String lastMessage) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace(ns).endMetadata()
                .withNewSpec().withNodeName(node).endSpec()
                .withNewStatus().withPhase("Running").addNewContainerStatus().withName("manager").withRestartCount(62)
                .withNewLastState().withNewTerminated().withExitCode(1).withReason("Error").withMessage(lastMessage)
                .endTerminated().endLastState().endContainerStatus().endStatus()
                .build();
    }
}
