package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.nodegate.cli.Environment;
import io.nodegate.model.ClusterState;
import io.nodegate.model.bmc.BmcReadings;
import io.nodegate.source.bmc.BmcCredentials;
import io.nodegate.source.bmc.BmcSource;
import io.nodegate.source.bmc.BmcTarget;
import io.nodegate.source.bmc.BmcTls;
import io.nodegate.source.dump.DumpSource;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.BmcStory;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watch's BMC poller: the readings it feeds each pass, what it keeps when a BMC fails, its metrics; and `watch
 * --once --bmc` on the seed's batch served by the test API server, which reports NG304 as `audit --bmc` does.
 */
class WatchBmcTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    static final ClusterState BATCH = DumpSource.load(List.of(Path.of(BmcStory.EXAMPLE)), null);

    @TempDir
    static Path dir;
    static BmcStory story;

    @BeforeAll
    static void start() {
        story = BmcStory.start(TestCerts.create(dir), dir);
    }

    @AfterAll
    static void stop() {
        story.close();
    }

    private static List<BmcTarget> targets() {
        List<BmcTarget> out = new ArrayList<>();
        story.all().forEach(s -> out.add(new BmcTarget(s.url(), new BmcCredentials("root", BmcStory.PASSWORD, "t"))));
        return out;
    }

    private static BmcSource source() {
        return new BmcSource(new BmcSource.Settings(BmcTls.verifying(story.ca), false, Duration.ofSeconds(5),
                Duration.ofSeconds(30), 4), Clock.systemUTC(), note -> { });
    }

    @Test
    void aFailingBmcKeepsItsLastGoodReadingAndSaysItIsDown() {
        List<String> log = new CopyOnWriteArrayList<>();
        try (BmcPoller poller = new BmcPoller(WatchBmcTest::targets, source(), Duration.ofHours(1), log::add)) {
            assertThat(poller.readings()).isEqualTo(BmcReadings.NOT_READ);
            BmcReadings first = poller.poll();
            Instant a07ReadAt = first.bmcs().get(0).readAt();
            String judged = poller.metrics(poller.feed(BATCH));
            assertThat(judged).contains("nodegate_bmc_up{bmc=\"" + story.a07.url() + "\"} 1\n",
                    "nodegate_bmc_power_state{node=\"gpu-a07\",state=\"running\"} 1\n",
                    "nodegate_bmc_power_state{node=\"gpu-a07\",state=\"powered-off\"} 0\n",
                    "nodegate_bmc_power_state{node=\"gpu-a10\",state=\"powered-off\"} 1\n",
                    "nodegate_bmc_power_state{node=\"keep-1\",state=\"not-found\"} 1\n",
                    "# TYPE nodegate_bmc_power_state gauge\n");
            assertThat(judged.lines().filter(l -> !l.startsWith("#")))
                    .allMatch(l -> l.matches("[a-z_]+(\\{[^}]*\\})? [0-9.e+-]+"));

            story.a07.failWith(503);
            try {
                BmcReadings second = poller.poll();
                assertThat(second.bmcs().get(0).ok()).as("the last good reading stays in use").isTrue();
                assertThat(second.bmcs().get(0).readAt()).isEqualTo(a07ReadAt);
                assertThat(poller.metrics(poller.feed(BATCH))).contains("nodegate_bmc_up{bmc=\"" + story.a07.url()
                        + "\"} 0\n", "nodegate_bmc_reading_timestamp_seconds{bmc=\"" + story.a07.url() + "\"} "
                        + a07ReadAt.getEpochSecond() + "\n");
                assertThat(log).anyMatch(l -> l.startsWith("BMC " + story.a07.url() + " unreadable: GET /redfish/v1: "
                        + "HTTP 503") && l.endsWith("stays in use"));
            } finally {
                story.a07.failWith(0);
            }
        }
        assertThat(log.toString()).doesNotContain(BmcStory.PASSWORD);
    }

    @Test
    void aBmcNeverReadIsUnreadableNotAbsent() {
        try (BmcPoller poller = new BmcPoller(WatchBmcTest::targets, source(), Duration.ofHours(1), l -> { })) {
            story.a08.failWith(503);
            try {
                BmcReadings r = poller.poll();
                assertThat(r.bmcs().get(1).ok()).isFalse();
                assertThat(poller.metrics(poller.feed(BATCH)))
                        .contains("nodegate_bmc_power_state{node=\"gpu-a08\",state=\"unreadable\"} 1\n");
            } finally {
                story.a08.failWith(0);
            }
        }
    }

    @Test
    void thePollerReadsNoMoreOftenThanItsInterval() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        try (BmcPoller poller = new BmcPoller(() -> {
            asked.incrementAndGet();
            return targets();
        }, source(), Duration.ofHours(1), l -> { })) {
            poller.start();
            for (int i = 0; i < 200 && poller.readings() == BmcReadings.NOT_READ; i++) {
                Thread.sleep(50);
            }
            assertThat(poller.readings().read()).isTrue();
            Thread.sleep(300);
            assertThat(asked.get()).as("one poll, then nothing until the interval has passed").isEqualTo(1);
        }
    }

    @Test
    void watchOnceWithBmcsReportsTheRunningHostsAsAuditDoes() throws Exception {
        try (ApiTestServer api = ApiTestServer.start()) {
            api.setGitVersion("v1.34.3+rke2r3");
            api.create(new NamespaceBuilder().withNewMetadata().withName("cattle-system").endMetadata().build());
            try (var files = Files.list(Path.of(BmcStory.EXAMPLE))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".json")
                        && !f.getFileName().toString().equals("collected.json")).sorted().toList()) {
                    KubernetesList list = Serialization.unmarshal(Files.readString(file), KubernetesList.class);
                    api.create(list.getItems().toArray(HasMetadata[]::new));
                }
            }
            try (KubernetesClient client = api.newClient()) {
                Environment env = Environment.system().withClient(client)
                        .withClock(Clock.fixed(Instant.parse("2026-10-22T06:10:00Z"), ZoneOffset.UTC));
                List<String> args = new ArrayList<>(List.of("watch", "--once"));
                args.addAll(story.flags());

                CliRun watch = CliRun.run(env, args.toArray(String[]::new));

                assertThat(watch.exitCode()).as(watch.err()).isEqualTo(1);
                List<String> ng304 = new ArrayList<>();
                for (JsonNode f : JSON.readTree(watch.out()).get("findings")) {
                    if (f.get("code").asString().equals("NG304")) {
                        ng304.add(f.get("nodes").get(0).asString());
                    }
                }
                assertThat(ng304).containsExactly("gpu-a07", "gpu-a08", "gpu-a09");
                assertThat(watch.all()).doesNotContain(BmcStory.PASSWORD);

                CliRun plain = CliRun.run(env, "watch", "--once");
                assertThat(plain.out()).doesNotContain("NG304");
            }
        }
    }
}
