package io.nodegate.watch;

import io.nodegate.handover.NodeHandover;
import io.nodegate.testing.CordonedPair;
import io.nodegate.model.OpenHandovers;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watch judges NG171 (a cordon with no reason) with the open NodeHandovers, as the live `audit` does: a cordon an
 * open hand-over names is explained, another is a warning; a hand-over read that fails leaves NG171 at info with a
 * note, never "no hand-over", and a later failure is not covered by an earlier good read.
 */
class WatchHandoversCordonTest {

    @TempDir
    Path tmp;
    private ApiTestServer api;
    private Path kubeconfig;

    @BeforeEach
    void serve() {
        api = ApiTestServer.start();
        CordonedPair.serve(api);
        kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void anOpenHandoverExplainsItsTargetsCordonInTheWatchToo() {
        CordonedPair.openCase2(api);

        JsonNode report = watchOnce();
        assertThat(ng171(report)).singleElement().satisfies(f -> {
            assertThat(f.get("nodes").get(0).asString()).isEqualTo("gpu-x01");
            assertThat(f.get("severity").asString()).isEqualTo("warning");
            assertThat(f.get("message").asString()).contains("no open hand-over names it");
        });
        assertThat(api.requestLog()).anyMatch(r -> r.startsWith("GET " + NodeHandover.PATH));
    }

    @Test
    void aRefusedHandoverReadLeavesItAtInfoAndSaysSo() {
        api.failOn("GET", NodeHandover.PATH, 403);
        JsonNode report = watchOnce();
        assertThat(ng171(report)).hasSize(2).allSatisfy(f -> {
            assertThat(f.get("severity").asString()).isEqualTo("info");
            assertThat(f.get("message").asString()).contains("cannot be ruled out");
        });
        assertThat(report.get("notes").toString()).contains("NodeHandovers could not be read",
                "NG171 cannot rule an open hand-over out");
    }

    @Test
    void aHandoverReadThatHangsEndsAtItsDeadlineAndCountsAsUnread() {
        api.delayAnswers(r -> r.contains(NodeHandover.PATH), Duration.ofSeconds(30));
        long started = System.nanoTime();
        JsonNode report = watchOnce("--request-timeout", "2s");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(25));
        assertThat(ng171(report)).hasSize(2).allSatisfy(f ->
                assertThat(f.get("severity").asString()).isEqualTo("info"));
    }

    @Test
    void aFailedReadAfterAGoodOneIsUnreadNotTheOldAnswer() {
        AtomicInteger reads = new AtomicInteger();
        List<String> log = new ArrayList<>();
        OpenHandoverReads reads2 = new OpenHandoverReads(() -> {
            if (reads.incrementAndGet() == 1) {
                return OpenHandovers.of(Map.of("gpu-a07", List.of("case-2")));
            }
            throw new IllegalStateException("GET " + NodeHandover.PATH + ": 503");
        }, log::add);
        var state = cluster().node(node("gpu-a07").cordonedBy("kubectl",
                io.nodegate.testing.NodeFixtures.NOW.minus(Duration.ofDays(3)))).build();
        assertThat(reads2.feed(state).handovers().read()).as("before the first read").isFalse();
        reads2.read();
        assertThat(reads2.feed(state).handovers().of("gpu-a07")).containsExactly("case-2");
        reads2.read();
        var fed = reads2.feed(state);
        assertThat(fed.handovers().read()).isFalse();
        assertThat(fed.handovers().of("gpu-a07")).isEmpty();
        assertThat(fed.notes()).anySatisfy(n -> assertThat(n).contains("503", "NG171 cannot rule"));
        assertThat(log).anySatisfy(l -> assertThat(l).contains("NG171 stays at info"));
    }

    @Test
    void anAnswerTheLeadersLookOffersSkipsTheNextPeriodicReadOnly() {
        AtomicInteger reads = new AtomicInteger();
        OpenHandoverReads reads2 = new OpenHandoverReads(() -> {
            reads.incrementAndGet();
            return OpenHandovers.of(Map.of("gpu-a07", List.of("case-2")));
        }, line -> { });
        var state = cluster().node(node("gpu-a07").cordonedBy("kubectl",
                io.nodegate.testing.NodeFixtures.NOW.minus(Duration.ofDays(3)))).build();
        assertThat(reads2.readUnlessOffered()).isTrue();
        assertThat(reads.get()).isEqualTo(1);

        // the leader's look listed the collection: the passes judge its answer, the next periodic read is skipped
        reads2.offer(OpenHandovers.of(Map.of("gpu-a07", List.of("case-3"))));
        assertThat(reads2.feed(state).handovers().of("gpu-a07")).containsExactly("case-3");
        assertThat(reads2.readUnlessOffered()).isFalse();
        assertThat(reads.get()).isEqualTo(1);
        // only that one: the period after, it reads again
        assertThat(reads2.readUnlessOffered()).isTrue();
        assertThat(reads.get()).isEqualTo(2);
        assertThat(reads2.feed(state).handovers().of("gpu-a07")).containsExactly("case-2");

        // an unread answer is never offered: the periodic read finds a failure out for itself
        reads2.offer(OpenHandovers.unread("NodeHandovers could not be read (503)"));
        assertThat(reads2.feed(state).handovers().read()).isTrue();
        assertThat(reads2.readUnlessOffered()).isTrue();
        assertThat(reads.get()).isEqualTo(3);
    }

    private JsonNode watchOnce(String... more) {
        List<String> args = new ArrayList<>(List.of("watch", "--once", "--kubeconfig", kubeconfig.toString(),
                "-o", "json"));
        args.addAll(List.of(more));
        CliRun run = CliRun.run(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.all()).isIn(0, 1);
        return JsonMapper.builder().build().readTree(run.out());
    }

    private static List<JsonNode> ng171(JsonNode report) {
        List<JsonNode> out = new ArrayList<>();
        report.get("findings").forEach(f -> {
            if (f.get("code").asString().equals("NG171")) {
                out.add(f);
            }
        });
        return out;
    }

}
