package io.nodegate.watch.informer;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.nodegate.testing.SeedCluster;
import io.nodegate.source.kube.Kinds;
import io.nodegate.source.kube.StateAssembler;
import io.nodegate.source.kube.ApiCalls;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The consistent comparison of a Lease copy with the server's: proven fresh by the watch reaching a consistent read's
 * version, or object by object; proven behind by an object the copy holds older; a periodic limit=1 check that
 * catches the copy behind and has it listed again.
 */
class FreshnessProofTest {

    /** No idle closes (they would hide what is under test); proofs wait 300 ms. */
    private static final Freshness LIMITS = new Freshness(Duration.ofHours(1), Duration.ofHours(1),
            Duration.ofSeconds(5), Duration.ofHours(1), Duration.ofMillis(300), Duration.ofMillis(50),
            Duration.ofSeconds(1), Backoff.CLIENT_GO);

    private ApiTestServer api;
    private KubeConnection connection;
    private KindWatch watch;
    private FreshnessProof proof;
    private final Instant t0 = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    private final List<String> log = new CopyOnWriteArrayList<>();

    @BeforeEach
    void leases() {
        // no bookmarks: a quiet stream's version moves only with Lease events
        api = ApiTestServer.start().bookmarkEvery(Duration.ofHours(1));
        api.create(SeedCluster.lease("w1", t0), SeedCluster.lease("w2", t0), SeedCluster.lease("w3", t0));
        connection = KubeConnection.wrapping(api.newClient(), Duration.ofSeconds(5));
    }

    private void startWatch(Freshness limits) throws InterruptedException {
        ApiCalls calls = new ApiCalls(connection);
        watch = new KindWatch(calls, Kinds.NODE_LEASES, (k, o) -> new KindWatch.Held(o,
                k.fromJson(StateAssembler.incremental(), o), List.of(), null), new KindWatch.Listener() {
                    @Override
                    public void changed(io.nodegate.source.kube.ReadKind<?, ?> kind) {
                    }

                    @Override
                    public void renewed(io.nodegate.source.kube.ReadKind<?, ?> kind) {
                    }
                }, log::add, 300, limits, Clock.fixed(t0, ZoneOffset.UTC));
        watch.start();
        proof = new FreshnessProof(calls, limits);
        await("watching", () -> watch.phase() == KindWatch.Phase.WATCHING && watch.healthy());
    }

    @AfterEach
    void stop() {
        if (watch != null) {
            watch.close();
        }
        connection.close();
        api.close();
    }

    private static void await(String what, BooleanSupplier condition) {
        Await.until(what, Duration.ofSeconds(15), condition);
    }

    @Test
    void aLiveStreamIsProvenFreshByReachingTheConsistentReadsVersion() throws Exception {
        startWatch(LIMITS);
        Thread renewing = new Thread(() -> {
            for (int i = 1; i <= 40 && !Thread.currentThread().isInterrupted(); i++) {
                api.apply(SeedCluster.lease("w" + (1 + i % 3), t0.plusSeconds(i)));
                try {
                    Thread.sleep(25);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        renewing.start();
        try {
            FreshnessProof.Result result = proof.prove(watch, null);
            assertThat(result.fresh()).as(result.why()).isTrue();
            assertThat(result.why()).contains("the watch delivered up to version");
        } finally {
            renewing.interrupt();
            renewing.join();
        }
    }

    /**
     * A quiet stream (every kubelet stopped: the real batch silence) cannot reach a version that other kinds moved;
     * the whole Lease collection read at quorum matches the copy, so the silence is real and reported.
     */
    @Test
    void aQuietStreamWhoseLeasesMatchAQuorumReadIsFresh() throws Exception {
        startWatch(LIMITS);
        api.create(new NodeBuilder().withNewMetadata().withName("unrelated").endMetadata().build());
        FreshnessProof.Result result = proof.prove(watch, null);
        assertThat(result.fresh()).as(result.why()).isTrue();
        assertThat(result.why()).contains("every object of a consistent read at version");
    }

    /** The field case: the stream froze, the kubelets renewed elsewhere. */
    @Test
    void aFrozenCopyBehindTheServerIsProvenStale() throws Exception {
        startWatch(LIMITS);
        api.freezeOpenWatches();
        api.apply(SeedCluster.lease("w2", t0.plusSeconds(10)));
        FreshnessProof.Result result = proof.prove(watch, null);
        assertThat(result.fresh()).isFalse();
        assertThat(result.error()).isFalse();
        assertThat(result.why()).contains("has kube-node-lease/w2 at version").contains("the copy holds version");
    }

    @Test
    void aFailedReadProvesNothing() throws Exception {
        startWatch(LIMITS);
        api.failOn("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", 500);
        FreshnessProof.Result result = proof.prove(watch, null);
        assertThat(result.fresh()).isFalse();
        assertThat(result.error()).isTrue();
        assertThat(result.why()).contains("cannot read the current version at quorum").contains("500");
        assertThat(watch.healthy()).as("a failed proof does not make the stream stale").isTrue();
    }

    @Test
    void thePeriodicCheckFindsTheFirstObjectNewerAndTheCopyIsListedAgain() throws Exception {
        // a frozen stream's read only ends at its socket's read timeout, the idle limit (here 2 s): the copy is not
        // fresh from the moment the check proves it behind, and listed again once the blocked read has ended
        startWatch(new Freshness(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(5),
                Duration.ofHours(1), Duration.ofMillis(300), Duration.ofMillis(50), Duration.ofSeconds(1),
                Backoff.CLIENT_GO));
        api.freezeOpenWatches();
        api.apply(SeedCluster.lease("w1", t0.plusSeconds(10)));
        assertThat(proof.check(watch)).as("the read worked").isNull();
        Thread.sleep(LIMITS.proofWait().toMillis() + 100);
        watch.checkIdle(System.nanoTime());
        assertThat(watch.healthy()).as("behind: not fresh at once").isFalse();
        assertThat(watch.freshnessProblem(System.nanoTime())).contains("behind the server");
        await("listed again, with w1 renewed", () -> watch.healthy() && watch.held().stream()
                .anyMatch(h -> h.model() instanceof io.nodegate.model.LeaseInfo l && l.name().equals("w1")
                        && t0.plusSeconds(10).equals(l.renewTime())));
        assertThat(watch.restarts().get("stale")).isEqualTo(1);
        assertThat(log).anySatisfy(l -> assertThat(l).contains("the copy is behind the server")
                .contains("kube-node-lease/w1"));
    }

    @Test
    void thePeriodicCheckLeavesAFreshCopyAlone() throws Exception {
        startWatch(LIMITS);
        api.apply(SeedCluster.lease("w1", t0.plusSeconds(10)));
        await("delivered", () -> watch.held().stream().anyMatch(h -> h.model() instanceof io.nodegate.model.LeaseInfo l
                && t0.plusSeconds(10).equals(l.renewTime())));
        assertThat(proof.check(watch)).isNull();
        Thread.sleep(LIMITS.proofWait().toMillis() + 100);
        watch.checkIdle(System.nanoTime());
        assertThat(watch.healthy()).isTrue();
        assertThat(watch.restarts().get("stale")).isZero();
    }
}
