package io.nodegate.testing;

import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdMember;
import io.nodegate.source.etcd.EtcdSource;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the real-etcd tests may take for granted the moment {@link EtcdCluster} hands them a cluster, read at once
 * and from every member: each member answers, names a live leader, and lists every member by name with a client
 * URL. A full run on a loaded 2-core machine once read a member list in which a member had no client URL yet
 * ("never started?"): it had answered /health before its name and URLs reached the others. And after a member is
 * stopped, {@link EtcdCluster#awaitLeaderAmong} returns only once the others lead again (an election takes at least
 * an election timeout, so a read right after the stop can still name the stopped leader).
 */
class EtcdClusterTest {

    private static final EtcdSource READER = new EtcdSource(Duration.ofSeconds(5), null);

    private static List<EtcdEndpointReport> read(List<String> urls) {
        return READER.read(urls.stream().map(URI::create).toList());
    }

    private static void assertServing(EtcdCluster cluster, List<EtcdEndpointReport> reports, List<String> names) {
        Set<Long> ids = new HashSet<>();
        reports.forEach(r -> ids.add(r.status() == null ? 0 : r.status().memberId()));
        for (EtcdEndpointReport r : reports) {
            assertThat(r.ok()).as(r.endpoint() + ": " + r.error()).isTrue();
            assertThat(ids).as("the leader %s seen at %s is one of the members", r.status().leader(), r.endpoint())
                    .contains(r.status().leader());
            assertThat(r.members()).as("members listed at " + r.endpoint()).extracting(EtcdMember::name)
                    .containsExactlyInAnyOrderElementsOf(names);
            assertThat(r.members()).as("client URLs listed at " + r.endpoint())
                    .allSatisfy(m -> assertThat(m.clientUrls()).as(m.name())
                            .contains(cluster.member(m.name()).clientUrl()));
        }
    }

    @Test
    void aStartedClusterIsReadableAtOnceFromEveryMember() {
        EtcdCluster.requireEtcd();
        // a few starts: the race this guards against is rare in one start and real in a full run
        for (int round = 0; round < 3; round++) {
            try (EtcdCluster cluster = EtcdCluster.start(null, "m-a", "m-b", "m-c")) {
                assertServing(cluster, read(cluster.clientUrls()), List.of("m-a", "m-b", "m-c"));
            }
        }
    }

    @Test
    void afterTheLeaderStopsTheOthersAreReadOnceOneOfThemLeads() {
        EtcdCluster.requireEtcd();
        try (EtcdCluster cluster = EtcdCluster.start(null, "m-a", "m-b", "m-c")) {
            EtcdEndpointReport a = read(List.of(cluster.member("m-a").clientUrl())).get(0);
            String leader = a.members().stream().filter(m -> m.id() == a.status().leader()).findFirst().orElseThrow()
                    .name();
            String[] others = List.of("m-a", "m-b", "m-c").stream().filter(n -> !n.equals(leader))
                    .toArray(String[]::new);
            cluster.stop(leader);
            cluster.awaitLeaderAmong(others);
            List<EtcdEndpointReport> reports = read(java.util.Arrays.stream(others)
                    .map(n -> cluster.member(n).clientUrl()).toList());
            Set<Long> ids = new HashSet<>();
            reports.forEach(r -> ids.add(r.status().memberId()));
            assertThat(reports).allSatisfy(r -> assertThat(ids).as("leader seen at " + r.endpoint())
                    .contains(r.status().leader()));
        }
    }

    /** etcdctl's "Member %16x removed": a 15-digit ID is printed after a space of padding, and still read. */
    @Test
    void theRemovedMemberIdIsParsedWhateverItsPadding() {
        assertThat(EtcdCluster.removedMemberId("Member  56770543dd824bc removed from cluster 1c4c6f5e2ae4b44e\n"))
                .isEqualTo(0x56770543dd824bcL);
        assertThat(EtcdCluster.removedMemberId("Member 8e9e05c52164694d removed from cluster cdf818194e3a8c32\n"))
                .isEqualTo(Long.parseUnsignedLong("8e9e05c52164694d", 16));
        assertThat(EtcdCluster.removedMemberId("Error: etcdserver: member not found\n")).isNull();
    }

    /**
     * A port picked free and taken by someone else before etcd binds it: etcd exits with "address already in
     * use", and the start is tried again on fresh ports instead of failing the test that asked for a cluster.
     */
    @Test
    void aPortTakenBeforeEtcdBindsItIsReplacedByAFreshOne() throws Exception {
        EtcdCluster.requireEtcd();
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 50,
                java.net.InetAddress.getByName("127.0.0.1"))) {
            java.util.concurrent.atomic.AtomicInteger handedOut = new java.util.concurrent.atomic.AtomicInteger();
            // the first port handed out (the client port) is one this test holds
            java.util.function.IntSupplier ports = () -> handedOut.getAndIncrement() == 0
                    ? taken.getLocalPort() : freePort();
            try (EtcdCluster cluster = EtcdCluster.start(null, 0, ports, "solo")) {
                assertThat(handedOut.get()).as("a second set of ports was picked").isGreaterThan(3);
                assertThat(cluster.member("solo").clientPort()).isNotEqualTo(taken.getLocalPort());
                assertServing(cluster, read(List.of(cluster.member("solo").clientUrl())), List.of("solo"));
            }
        }
    }

    private static int freePort() {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
