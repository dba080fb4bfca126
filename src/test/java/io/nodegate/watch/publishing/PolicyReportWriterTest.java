package io.nodegate.watch.publishing;

import io.nodegate.watch.leadership.LeaderGuard;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.nodegate.audit.AuditReport;
import io.nodegate.deploy.InstallBundle;
import io.nodegate.deploy.InstallSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.testing.TestClock;
import io.nodegate.source.kube.ApiCalls;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.RbacAuthorizer;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `watch --policy-reports`: the writer keeps the reports equal to the last good pass, writes only what changed,
 * splits and joins parts, never deletes on a path that met an error, and its requests are exactly what the RBAC of
 * `install --with-policy-reports` grants.
 */
class PolicyReportWriterTest {

    private static final Instant T0 = Instant.parse("2026-10-19T06:10:00Z");
    private static final Map<String, String> CHECKS = new LinkedHashMap<>(Map.of("NG101", "node-unknown",
            "NG110", "same-host-two-names"));

    @Test
    void writesOnlyWhatChangedAndRefreshesMessagesAtMostEveryTenMinutes() {
        FakeStore store = new FakeStore();
        TestClock clock = new TestClock(T0);
        List<String> log = new ArrayList<>();
        PolicyReportWriter writer = new PolicyReportWriter(store, clock, log::add);

        writer.write(report(unknown("w1", "1m")), CHECKS);
        assertThat(store.calls).containsExactly("list", "create nodegate-watch");
        ObjectNode first = store.objects.get("nodegate-watch");
        assertThat(first.get("summary").get("warn").asInt()).isEqualTo(1);
        assertThat(first.get("summary").get("pass").asInt()).isEqualTo(1);

        // the next pass: only the age in the message moved, so nothing is written
        clock.advance(Duration.ofSeconds(15));
        writer.write(report(unknown("w1", "1m15s")), CHECKS);
        assertThat(store.calls).hasSize(2);

        // a new finding is written at once, the old one keeps the time it was found
        clock.advance(Duration.ofSeconds(15));
        writer.write(report(unknown("w1", "1m30s"), unknown("w2", "10s")), CHECKS);
        assertThat(store.calls).last().isEqualTo("update nodegate-watch@1");
        ObjectNode second = store.objects.get("nodegate-watch");
        assertThat(second.get("summary").get("warn").asInt()).isEqualTo(2);
        assertThat(second.get("results").get(0).get("timestamp").get("seconds").asLong())
                .isEqualTo(T0.getEpochSecond());

        // ages are refreshed after ten minutes even when nothing else changed
        clock.advance(PolicyReportWriter.REFRESH);
        writer.write(report(unknown("w1", "11m"), unknown("w2", "10m")), CHECKS);
        assertThat(store.calls).last().isEqualTo("update nodegate-watch@2");
        assertThat(store.objects.get("nodegate-watch").get("results").get(0).get("message").asString())
                .contains("11m");
        assertThat(log).isEmpty();
    }

    @Test
    void partsAreCreatedWhenTheFindingsGrowAndDeletedWhenTheyShrink() {
        FakeStore store = new FakeStore();
        TestClock clock = new TestClock(T0);
        PolicyReportWriter writer = new PolicyReportWriter(store, clock, s -> { });
        List<Finding> many = new ArrayList<>();
        for (int i = 0; i < 2500; i++) {
            many.add(unknown(String.format("w%04d", i), "1m"));
        }
        writer.write(report(many.toArray(Finding[]::new)), CHECKS);
        assertThat(store.objects.keySet()).containsExactlyInAnyOrder("nodegate-watch", "nodegate-watch-2",
                "nodegate-watch-3");

        clock.advance(Duration.ofSeconds(15));
        writer.write(report(unknown("w0001", "1m")), CHECKS);
        assertThat(store.objects.keySet()).containsExactly("nodegate-watch");
        assertThat(store.calls).contains("delete nodegate-watch-2@1", "delete nodegate-watch-3@1");
    }

    @Test
    void anErrorDeletesNothingAndTheNextPassListsAgain() {
        FakeStore store = new FakeStore();
        TestClock clock = new TestClock(T0);
        List<String> log = new ArrayList<>();
        PolicyReportWriter writer = new PolicyReportWriter(store, clock, log::add);
        List<Finding> many = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            many.add(unknown(String.format("w%04d", i), "1m"));
        }
        writer.write(report(many.toArray(Finding[]::new)), CHECKS);
        assertThat(store.objects).hasSize(2);

        // the first part's update fails (a 409: someone else wrote it): part 2, no longer needed, stays for now
        store.failUpdates = true;
        clock.advance(Duration.ofSeconds(15));
        writer.write(report(unknown("w0001", "1m")), CHECKS);
        assertThat(store.objects).containsKeys("nodegate-watch", "nodegate-watch-2");
        assertThat(log).singleElement().asString().contains("policy reports not updated").contains("409");

        store.failUpdates = false;
        int before = store.calls.size();
        clock.advance(Duration.ofSeconds(15));
        writer.write(report(unknown("w0001", "1m")), CHECKS);
        assertThat(store.calls.subList(before, store.calls.size())).first().isEqualTo("list");
        assertThat(store.objects).containsOnlyKeys("nodegate-watch");
    }

    /**
     * Over an API server, through fabric8, under the RBAC `install --with-policy-reports` emits: what the writer
     * stored reads back as a ClusterPolicyReport, and every request it made is granted (none without the flag).
     */
    @Test
    void overTheApiUnderTheEmittedRbac() {
        try (ApiTestServer api = ApiTestServer.start(); KubernetesClient client = api.newClient()) {
            TestClock clock = new TestClock(T0);
            List<String> log = new ArrayList<>();
            PolicyReportWriter writer = PolicyReportWriter.overApi(client, clock, log::add);
            List<Finding> many = new ArrayList<>();
            for (int i = 0; i < 1200; i++) {
                many.add(unknown(String.format("w%04d", i), "1m"));
            }
            writer.write(report(many.toArray(Finding[]::new)), CHECKS);
            clock.advance(Duration.ofSeconds(15));
            writer.write(report(unknown("w0001", "1m15s"), unknown("w0002", "1m")), CHECKS);
            clock.advance(PolicyReportWriter.REFRESH);
            writer.write(report(unknown("w0001", "11m")), CHECKS);
            assertThat(log).isEmpty();

            ResourceDefinitionContext ctx = new ResourceDefinitionContext.Builder().withGroup("wgpolicyk8s.io")
                    .withVersion("v1alpha2").withKind("ClusterPolicyReport").withPlural("clusterpolicyreports")
                    .withNamespaced(false).build();
            List<GenericKubernetesResource> stored = api.client().genericKubernetesResources(ctx).list().getItems();
            assertThat(stored).singleElement().satisfies(r -> {
                assertThat(r.getMetadata().getName()).isEqualTo("nodegate-watch");
                assertThat(r.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "nodegate");
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> results = (List<Map<String, Object>>) r.getAdditionalProperties().get("results");
                assertThat(results).anySatisfy(res -> assertThat(res.get("message").toString()).contains("11m"));
            });

            List<String> requests = api.requestLog();
            assertThat(requests).anyMatch(r -> r.startsWith("PUT ")).anyMatch(r -> r.startsWith("DELETE "))
                    .anyMatch(r -> r.startsWith("POST "));
            RbacAuthorizer with = new RbacAuthorizer(InstallBundle.objects(settings(true)));
            RbacAuthorizer without = new RbacAuthorizer(InstallBundle.objects(settings(false)));
            assertThat(requests).allSatisfy(r -> assertThat(with.allows(r)).as(r).isTrue());
            assertThat(requests).allSatisfy(r -> assertThat(without.allows(r)).as(r).isFalse());

            // someone else rewrote the report: the writer's PUT meets a 409 and it lists again, never overwrites blind
            GenericKubernetesResource theirs = stored.get(0);
            theirs.getMetadata().getLabels().put("edited", "by-hand");
            api.client().genericKubernetesResources(ctx).resource(theirs).update();
            clock.advance(Duration.ofSeconds(15));
            writer.write(report(unknown("w0009", "1m")), CHECKS);
            assertThat(log).singleElement().asString().contains("409");
            clock.advance(Duration.ofSeconds(15));
            writer.write(report(unknown("w0009", "1m")), CHECKS);
            assertThat(log).hasSize(1);
            assertThat(api.client().genericKubernetesResources(ctx).withName("nodegate-watch").get()
                    .getAdditionalProperties().get("results").toString()).contains("w0009");
        }
    }

    /** A report write is a status write: a replica that no longer holds the leader Lease writes none. */
    @Test
    void aReplicaThatLostTheLeaderLeaseWritesNoReport() {
        try (ApiTestServer api = ApiTestServer.start(); KubernetesClient client = api.newClient()) {
            api.apply(new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder().withNewMetadata()
                    .withName("nodegate-watch").withNamespace("nodegate-system").endMetadata().withNewSpec()
                    .withHolderIdentity("replica-b").withLeaseDurationSeconds(15)
                    .withRenewTime(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC)).endSpec().build());
            LeaderGuard guard = new LeaderGuard(ApiCalls.of(client), "nodegate-system", "nodegate-watch", "replica-a",
                    () -> true, java.time.Clock.systemUTC());
            List<String> log = new ArrayList<>();
            PolicyReportWriter writer = PolicyReportWriter.overApi(client, new TestClock(T0), guard, log::add);
            writer.write(report(unknown("w1", "1m")), CHECKS);
            assertThat(log).singleElement().asString().contains("held by replica-b");
            assertThat(api.requestLog()).noneMatch(r -> r.contains("clusterpolicyreports") && !r.startsWith("GET "));

            api.apply(new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder().withNewMetadata()
                    .withName("nodegate-watch").withNamespace("nodegate-system").endMetadata().withNewSpec()
                    .withHolderIdentity("replica-a").withLeaseDurationSeconds(15)
                    .withRenewTime(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC)).endSpec().build());
            writer.write(report(unknown("w1", "1m")), CHECKS);
            assertThat(log).hasSize(1);
            assertThat(api.requestLog()).anyMatch(r -> r.startsWith("POST ") && r.contains("clusterpolicyreports"));
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    private static InstallSettings settings(boolean policyReports) {
        return new InstallSettings("nodegate-system", "nodegate", 2, false, false, false, true, Map.of(), false,
                policyReports, "0.1.0", null, null);
    }

    private static Finding unknown(String node, String age) {
        return new Finding("NG101", "node-unknown", Severity.WARNING, List.of(node),
                "Ready=Unknown for " + age, Map.of("age", age), "check the host");
    }

    private static AuditReport report(Finding... findings) {
        List<Finding> list = new ArrayList<>(List.of(findings));
        list.sort(Finding.ORDER);
        return new AuditReport(T0, "test", List.of(), list, List.of());
    }

    /** An API in memory with resourceVersions, recording each call. */
    private static final class FakeStore implements PolicyReportWriter.Store {
        final Map<String, ObjectNode> objects = new TreeMap<>();
        final Map<String, Integer> versions = new TreeMap<>();
        final List<String> calls = new ArrayList<>();
        boolean failUpdates;

        @Override
        public Map<String, String> list() {
            calls.add("list");
            Map<String, String> out = new TreeMap<>();
            versions.forEach((n, v) -> out.put(n, Integer.toString(v)));
            return out;
        }

        @Override
        public String create(ObjectNode report) {
            String name = report.get("metadata").get("name").asString();
            calls.add("create " + name);
            assertThat(objects).doesNotContainKey(name);
            objects.put(name, report);
            versions.put(name, 1);
            return "1";
        }

        @Override
        public String update(ObjectNode report, String resourceVersion) {
            String name = report.get("metadata").get("name").asString();
            calls.add("update " + name + "@" + resourceVersion);
            if (failUpdates || !resourceVersion.equals(Integer.toString(versions.get(name)))) {
                throw new io.nodegate.CollectionException("PUT clusterpolicyreports " + name + ": 409 Conflict");
            }
            objects.put(name, report);
            versions.merge(name, 1, Integer::sum);
            return Integer.toString(versions.get(name));
        }

        @Override
        public void delete(String name, String resourceVersion) {
            calls.add("delete " + name + "@" + resourceVersion);
            assertThat(resourceVersion).isEqualTo(Integer.toString(versions.get(name)));
            objects.remove(name);
            versions.remove(name);
        }
    }
}
