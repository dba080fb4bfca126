package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.TestClock;
import io.nodegate.model.JobInfo;
import io.nodegate.source.SourceNotes;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rancher installed while the watch runs: cattle-system did not exist at start (proven absent, no informer), then
 * appears. The every-interval pass probes again and watches it from then on, without a restart. While the probe
 * fails, the kind's absence is no longer known and nothing is evaluated.
 */
class WatchOptionalKindsTest {

    @RegisterExtension
    final WatchFixture watch = new WatchFixture();

    private ApiTestServer api;
    private WatchService service;

    @BeforeEach
    void cluster() {
        api = watch.api();
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        for (String name : List.of("w1", "w2")) {
            api.create(SeedCluster.node(name, "10.0.2." + name.charAt(1), "True", false,
                    Map.of("node-role.kubernetes.io/worker", "true"), "boot-" + name, "uuid-" + name, 0, now, now),
                    SeedCluster.lease(name, now));
        }
        var settings = new WatchService.Settings(Duration.ofMillis(400), Duration.ofMillis(100), null, null, "optional",
                Duration.ofSeconds(2), Duration.ofMillis(1500), Duration.ofMillis(250), true, 50, 100, false,
                AuditSettings.DEFAULTS, Detectors.all(), Duration.ofSeconds(5), "live: test", null, api.url(), "test");
        service = watch.service(settings, new TestClock(now));
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(50);
        }
        assertThat(condition.getAsBoolean()).as("timed out waiting for: " + what).isTrue();
    }

    private boolean lastPassFailed() {
        return service.engine().last() != null && !service.engine().last().ok();
    }

    @Test
    void cattleSystemCreatedAfterStartIsWatchedWithoutARestart() throws Exception {
        service.start();
        await("a good pass", () -> service.engine().lastGood() != null);
        assertThat(service.engine().lastGood().state().cattleJobs().present()).isFalse();
        assertThat(service.engine().lastGood().state().notes()).contains(SourceNotes.CATTLE_SYSTEM_ABSENT);

        // the namespace probe fails: absence is no longer proven, so passes fail until it answers again
        api.failOn("GET", "/api/v1/namespaces/cattle-system", 500);
        await("a failed pass naming the kind", () -> lastPassFailed()
                && service.engine().last().error().contains("cattle-system-jobs (absence unknown"));
        assertThat(service.cache().health()).containsEntry("cattle-system-jobs", false);
        api.clearFailures();
        await("good again", () -> service.engine().last().ok());

        // Rancher is installed: the namespace and a plan Job appear
        api.create(new NamespaceBuilder().withNewMetadata().withName("cattle-system").endMetadata().build());
        api.create(new JobBuilder().withNewMetadata().withName("apply-system-agent-upgrader-on-w1")
                .withNamespace("cattle-system").withUid("uid-job-1").endMetadata().withNewSpec().endSpec().build());
        await("the Job in a pass", () -> {
            var state = service.engine().lastGood().state();
            return state.cattleJobs().present() && state.cattleJobs().items().stream().map(JobInfo::name)
                    .toList().equals(List.of("apply-system-agent-upgrader-on-w1"));
        });
        assertThat(service.engine().lastGood().state().notes()).doesNotContain(SourceNotes.CATTLE_SYSTEM_ABSENT);
        assertThat(service.cache().health()).containsEntry("cattle-system-jobs", true);
        assertThat(watch.log()).anyMatch(l -> l.contains("cattle-system-jobs appeared after start"));
    }
}
