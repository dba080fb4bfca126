package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.TestClock;
import io.nodegate.model.NewcomerHold;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.TombstoneShards;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hold through a running watch: the leader's WatchService sees a Node created after its first pass, and the pass
 * that its ADDED event starts (the debounce, not the interval: the interval here is far longer than the wait) puts
 * the taint on it with one PATCH; later passes, the taint's own MODIFIED event among them, leave it held and write
 * nothing more.
 */
class WatchNewcomerHoldTest {

    private static final String A02_UUID = "4c4c4544-0031-3510-8052-b4c04f4e3332";
    private static final Duration INTERVAL = Duration.ofMinutes(5);

    @RegisterExtension
    final WatchFixture watch = new WatchFixture();

    private static Node node(String name, String uuid, TestClock clock) {
        Node n = SeedCluster.node(name, "10.0.3." + (10 + Math.abs(name.hashCode() % 200)), "True", false, Map.of(),
                "boot-" + name, uuid, 0, clock.instant(), clock.instant());
        n.getStatus().getNodeInfo().setMachineID(name.replace("-", "") + "0000000000000000000000000000");
        return n;
    }

    private boolean held(String name) {
        Node n = watch.api().client().nodes().withName(name).get();
        return n != null && n.getSpec().getTaints() != null
                && n.getSpec().getTaints().stream().anyMatch(t -> NewcomerHold.TAINT_KEY.equals(t.getKey()));
    }

    @Test
    void aNewcomerCreatedWhileTheWatchRunsIsHeldByThePassItsEventStartsAndStaysHeld() {
        ApiTestServer api = watch.api();
        TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        TombstoneBook book = TombstoneBook.empty().with(new Tombstone("gpu-a02", "uid-old", A02_UUID, null,
                clock.instant().minusSeconds(3600), "c0ffee", "kim"));
        api.create(new NamespaceBuilder().withNewMetadata().withName("nodegate-system").endMetadata().build(),
                new ConfigMapBuilder().withNewMetadata().withName(TombstoneBook.CONFIGMAP).withNamespace("nodegate-system")
                        .withLabels(Map.of(TombstoneShards.LABEL, TombstoneShards.LABEL_VALUE)).endMetadata()
                        .withData(book.data()).build());
        for (String name : List.of("w1", "w2")) {
            api.create(node(name, "uuid-" + name, clock), SeedCluster.lease(name, clock.instant()));
        }
        var settings = new WatchService.Settings(INTERVAL, Duration.ofMillis(300),
                new InetSocketAddress("127.0.0.1", 0), "nodegate-system", "replica-a", Duration.ofSeconds(2),
                Duration.ofMillis(1500), Duration.ofMillis(250), false, 50, 100, false,
                AuditSettings.DEFAULTS, Detectors.all(), Duration.ofSeconds(5), "live: test", null, api.url(), "test");
        WatchService service = watch.service(settings, clock);
        List<String> log = watch.log();
        service.holdNewcomers(NewcomerHold.NO_SCHEDULE);
        service.start();
        Await.until("the watch leads and made its first pass", Await.LOADED_MACHINE,
                () -> service.leads() && service.engine().lastGood() != null);

        // the removed host back under a new name, and an unrelated newcomer
        api.create(node("new-01", A02_UUID, clock), SeedCluster.lease("new-01", clock.instant()));
        api.create(node("new-02", "uuid-new-02", clock), SeedCluster.lease("new-02", clock.instant()));
        // well within the interval: the pass the ADDED events started did it
        Await.until("new-01 held", Duration.ofSeconds(60), () -> held("new-01"));
        // the watch logs the hold once the PATCH has answered, so the line may follow the taint by a moment
        Await.until("the hold of new-01 logged with its reason", Duration.ofSeconds(30), () -> log.stream().anyMatch(
                l -> l.contains("held newcomer Node new-01") && l.contains("systemUUID is tombstoned: host gpu-a02")));

        // more passes (the taint's own MODIFIED event, another Node's change): it stays held, nothing is written again
        var before = service.engine().lastGood();
        api.create(node("new-03", "uuid-new-03", clock));
        Await.until("a later pass", Await.LOADED_MACHINE, () -> service.engine().lastGood() != before
                && service.engine().lastGood().state().node("new-03").isPresent());
        assertThat(held("new-01")).isTrue();
        assertThat(held("new-02")).isFalse();
        assertThat(held("new-03")).isFalse();
        assertThat(held("w1")).isFalse();
        assertThat(api.requests("PATCH", "/api/v1/nodes/new-01")).isEqualTo(1);
        assertThat(log.stream().filter(l -> l.contains("held newcomer Node"))).hasSize(1);
    }
}
