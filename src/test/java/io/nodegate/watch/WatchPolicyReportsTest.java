package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.TestClock;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `watch --policy-reports` end to end: the running watch (informers, passes, leader election) keeps the
 * ClusterPolicyReport nodegate-watch equal to its findings: a renamed rejoin appears in it as NG110 on both Nodes,
 * and when the old name is deleted the result turns into NG110's pass result.
 */
class WatchPolicyReportsTest {

    private static final ResourceDefinitionContext REPORTS = new ResourceDefinitionContext.Builder()
            .withGroup("wgpolicyk8s.io").withVersion("v1alpha2").withKind("ClusterPolicyReport")
            .withPlural("clusterpolicyreports").withNamespaced(false).build();
    private static final Map<String, String> WORKER = Map.of("node-role.kubernetes.io/worker", "true");

    @Test
    void theLeaderKeepsTheReportEqualToItsFindings() throws Exception {
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        try (ApiTestServer api = ApiTestServer.start().bookmarkEvery(Duration.ofMillis(300));
             KubernetesClient client = api.newClient()) {
            current = api;
            api.create(new NamespaceBuilder().withNewMetadata().withName("nodegate-system").endMetadata().build());
            for (String name : List.of("w1", "w2")) {
                api.create(node(name, "uuid-" + name, WORKER, clock), SeedCluster.lease(name, clock.instant()));
            }
            var settings = new WatchService.Settings(Duration.ofMillis(400), Duration.ofMillis(100),
                    new InetSocketAddress("127.0.0.1", 0), "nodegate-system", "replica-a", Duration.ofSeconds(2),
                    Duration.ofMillis(1500), Duration.ofMillis(250), true, 50, 100, true, AuditSettings.DEFAULTS,
                    Detectors.all(), Duration.ofSeconds(5), "live: test", null, api.url(), "test");
            try (WatchService service = new WatchService(settings, KubeConnection.wrapping(client,
                    Duration.ofSeconds(10)), clock, line -> { })) {
                service.keepPolicyReports();
                service.start();
                await("a clean report", () -> results().contains("result=pass") && !results().contains("result=warn")
                        && !results().contains("result=fail"));

                // the host of w1 rejoins as w1-new: same systemUUID, no role label
                api.create(node("w1-new", "uuid-w1", Map.of(), clock), SeedCluster.lease("w1-new", clock.instant()));
                await("NG110 in the report", () -> results().contains("policy=NG110, rule=same-host-two-names, "
                        + "category=nodegate, source=nodegate, result=warn"));
                GenericKubernetesResource report = api.client().genericKubernetesResources(REPORTS)
                        .withName("nodegate-watch").get();
                assertThat(report.getMetadata().getLabels()).containsEntry("app.kubernetes.io/component", "watch");
                assertThat(results()).contains("name=w1-new").contains("name=w1}");

                // the old name goes: NG110 is clean again
                api.delete(api.client().nodes().withName("w1").get());
                await("NG110 clean", () -> results().contains("policy=NG110, rule=same-host-two-names, "
                        + "category=nodegate, source=nodegate, result=pass"));
            }

            // only ever the one report, written with preconditions
            assertThat(api.client().genericKubernetesResources(REPORTS).list().getItems()).hasSize(1);
            assertThat(api.requestLog()).anyMatch(r -> r.startsWith(
                    "PUT /apis/wgpolicyk8s.io/v1alpha2/clusterpolicyreports/nodegate-watch"));
        }
    }

    /**
     * --cluster-name: where many clusters' series and reports meet (Thanos, federation, Policy Reporter), each says
     * which cluster it came from: a {@code cluster} label on every sample of /metrics and on the report.
     */
    @Test
    void theClusterNameLabelsEveryMetricAndTheReport() throws Exception {
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        try (ApiTestServer api = ApiTestServer.start().bookmarkEvery(Duration.ofMillis(300));
             KubernetesClient client = api.newClient()) {
            current = api;
            api.create(new NamespaceBuilder().withNewMetadata().withName("nodegate-system").endMetadata().build());
            for (String name : List.of("w1", "w2")) {
                api.create(node(name, "uuid-" + name, WORKER, clock), SeedCluster.lease(name, clock.instant()));
            }
            // a renamed rejoin, so that the exposition holds finding series with labels of their own
            api.create(node("w1-new", "uuid-w1", Map.of(), clock), SeedCluster.lease("w1-new", clock.instant()));
            var settings = new WatchService.Settings(Duration.ofMillis(400), Duration.ofMillis(100),
                    new InetSocketAddress("127.0.0.1", 0), "nodegate-system", "replica-a", Duration.ofSeconds(2),
                    Duration.ofMillis(1500), Duration.ofMillis(250), true, 50, 100, true, AuditSettings.DEFAULTS,
                    Detectors.all(), Duration.ofSeconds(5), "live: test", null, api.url(), "test");
            try (WatchService service = new WatchService(settings, KubeConnection.wrapping(client,
                    Duration.ofSeconds(10)), clock, line -> { })) {
                service.clusterName("edge-07.prod");
                service.keepPolicyReports();
                service.start();
                await("NG110 in the report", () -> results().contains("policy=NG110, rule=same-host-two-names, "
                        + "category=nodegate, source=nodegate, result=warn"));
                GenericKubernetesResource report = api.client().genericKubernetesResources(REPORTS)
                        .withName("nodegate-watch").get();
                assertThat(report.getMetadata().getLabels()).containsEntry("cluster", "edge-07.prod")
                        .containsEntry("app.kubernetes.io/component", "watch");

                String metrics = service.metrics().render();
                List<String> samples = metrics.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
                assertThat(samples).as(metrics).anyMatch(l -> l.startsWith("nodegate_finding{"))
                        .anyMatch(l -> l.startsWith("nodegate_leader{"));
                // the text format: name{label="value",...} value; the cluster label once, on every sample
                java.util.regex.Pattern sample = java.util.regex.Pattern.compile(
                        "[a-zA-Z_:][a-zA-Z0-9_:]*\\{(?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\]|\\\\.)*\",?)*\\} \\S+");
                for (String line : samples) {
                    assertThat(line).as("a sample of the text format").matches(sample);
                    assertThat(line.split("cluster=\"edge-07.prod\"", -1)).as(line).hasSize(2);
                }
            }
        }
    }

    @Test
    void aClusterNameThatIsNoLabelValueIsAUsageError() {
        CliRun run = CliRun.run("watch", "--cluster-name", "edge 07/prod");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--cluster-name").contains("label value");
    }

    @Test
    void onceAndPolicyReportsIsAUsageError() {
        CliRun run = CliRun.run("watch", "--once", "--policy-reports");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--policy-reports").contains("audit -o policyreport");
    }

    private ApiTestServer current;

    private String results() {
        GenericKubernetesResource r = current.client().genericKubernetesResources(REPORTS).withName("nodegate-watch")
                .get();
        return r == null ? "" : String.valueOf(r.getAdditionalProperties().get("results"));
    }

    private static Node node(String name, String uuid, Map<String, String> roles, TestClock clock) {
        return SeedCluster.node(name, "10.0.0." + (10 + Math.abs(name.hashCode() % 200)), "True", false, roles,
                "boot-" + name, uuid, 0, clock.instant(), clock.instant());
    }

    private void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(100);
        }
        assertThat(condition.getAsBoolean()).as("timed out waiting for: " + what + "; results: " + results()).isTrue();
    }
}
