package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.testing.Await;
import io.nodegate.testing.RealControlPlane;
import io.nodegate.watch.WatchService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.nodegate.lab.WatchOnRealControlPlaneTest.count;
import static io.nodegate.lab.WatchOnRealControlPlaneTest.settings;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two replicas of the watch elect a leader on a real coordination.k8s.io Lease (fabric8's LeaderElector against the
 * real apiserver's optimistic concurrency), only the leader posts Events, and when the leader dies without
 * releasing the Lease (a killed pod: no release on stop) the other takes over once the Lease expires, and
 * announces only what changes from then on.
 */
@ExtendWith(RealControlPlane.Resolver.class)
class WatchLeaderElectionOnRealApiServerTest {

    private static final String NAMESPACE = "nodegate-lab-election";
    /** The Lease timing of both replicas ({@link WatchOnRealControlPlaneTest#settings}): 8 s, renewed every 5.3 s. */
    private static final Duration LEASE = Duration.ofSeconds(8);

    private static RealControlPlane lab;
    private static KubernetesClient admin;
    private static final List<AutoCloseable> open = new ArrayList<>();
    private static final List<String> log = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void lab(RealControlPlane controlPlane) {
        lab = controlPlane;
        admin = lab.client("admin");
        if (!lab.kubectl(null, "get", "namespace", NAMESPACE).output().contains(NAMESPACE + " ")) {
            lab.kubectl(null, "create", "namespace", NAMESPACE).requireOk("create namespace " + NAMESPACE);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        log.forEach(l -> System.err.println("WATCHLOG " + l));
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        if (admin != null) {
            admin.close();
        }
    }

    private static WatchService replica(String identity) throws Exception {
        String server = WatchOnRealControlPlaneTest.server(lab);
        KubeConnection connection = KubeConnection.openForModel(lab.kubeconfig(), "admin", Duration.ofSeconds(20));
        open.add(connection);
        WatchService service = new WatchService(settings(NAMESPACE, identity, server), connection,
                Clock.systemUTC(), line -> log.add(Instant.now() + " " + identity + ": " + line));
        open.add(service);
        service.start();
        return service;
    }

    private static String holder() {
        Lease lease = admin.leases().inNamespace(NAMESPACE).withName(WatchService.LEASE_NAME).get();
        return lease == null ? null : lease.getSpec().getHolderIdentity();
    }

    private static List<String> events(String instance) {
        return WatchOnRealControlPlaneTest.eventsOf(admin, instance);
    }

    @Test
    void twoReplicasElectOneLeaderOnlyItPostsAndTheOtherTakesOverWhenItDies() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 6);
        String idA = "lab-a-" + suffix;
        String idB = "lab-b-" + suffix;
        WatchService a = replica(idA);
        WatchService b = replica(idB);
        Await.until("one replica leads", Duration.ofSeconds(90), () -> a.leads() || b.leads());
        Await.until("both replicas evaluate", Duration.ofSeconds(120),
                () -> a.engine().lastGood() != null && b.engine().lastGood() != null);
        assertThat(a.leads() && b.leads()).as("both lead").isFalse();
        WatchService leader = a.leads() ? a : b;
        WatchService follower = leader == a ? b : a;
        String leaderId = leader == a ? idA : idB;
        String followerId = leader == a ? idB : idA;
        assertThat(holder()).as("the Lease names the leader").isEqualTo(leaderId);

        // a change both replicas see: another host cloned from an agent's image (the same systemUUID): NG110
        String original = RealControlPlane.agent(5);
        String clone = "t-elect-" + suffix;
        lab.lab("kubelet", "clone", original, "--as", clone).requireOk("clone " + original);
        try {
            Await.until("the leader posts NG110 on the clone", Duration.ofSeconds(120),
                    () -> count(events(leaderId), clone, "NG110 ") >= 1);
            Await.until("the follower sees NG110 too", Duration.ofSeconds(60),
                    () -> WatchOnRealControlPlaneTest.findings(follower).containsKey("NG110"));
            assertThat(events(followerId)).as("the follower posts nothing").isEmpty();

            // the leader dies without releasing the Lease; the follower takes over once it has expired
            int leaderEvents = events(leaderId).size();
            long killed = System.nanoTime();
            leader.close();
            Duration took = Await.until("the follower takes over", Duration.ofSeconds(90), follower::leads);
            System.out.println("take-over " + took.toMillis() + " ms after the leader stopped (Lease " + LEASE + ")");
            assertThat(holder()).isEqualTo(followerId);
            // the Lease was renewed at most 5.3 s before the stop and lasts 8 s; the follower retries every ~1 s.
            // Generous for a loaded machine, and still well under what a stuck election would take.
            assertThat(Duration.ofNanos(System.nanoTime() - killed)).isLessThan(LEASE.multipliedBy(4));

            // the clone goes away: the new leader posts the resolution, and does not repeat what the old one posted
            lab.lab("kubelet", "stop", clone).requireOk("stop " + clone);
            lab.kubectl(null, "delete", "node", clone, "--wait=false").requireOk("delete node " + clone);
            Await.until("the new leader posts NG110 resolved", Duration.ofSeconds(120),
                    () -> events(followerId).stream().anyMatch(e -> e.startsWith(clone + " NG110 ")
                            && e.contains("resolved")));
            assertThat(events(followerId)).as("the new leader announces only what changed after it took over")
                    .noneMatch(e -> e.contains("NG110 ") && !e.contains("resolved"));
            assertThat(events(leaderId)).as("the stopped leader posts nothing more").hasSize(leaderEvents);
        } finally {
            lab.lab("kubelet", "stop", clone);
            lab.kubectl(null, "delete", "node", clone, "--ignore-not-found", "--wait=false");
        }
    }
}
