package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInfo;
import io.nodegate.CollectionException;
import io.nodegate.source.Fixtures;
import io.nodegate.InputException;
import io.nodegate.source.SourceNotes;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.TestClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LiveSourceTest {

    @TempDir
    Path dir;
    private ApiTestServer api;
    private Path kubeconfig;

    @BeforeEach
    void start() {
        api = ApiTestServer.start();
        kubeconfig = api.writeKubeconfig(dir.resolve("kubeconfig"));
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private LiveSource source(long pageSize) {
        return new LiveSource(KubeConnection.open(kubeconfig, null, java.time.Duration.ofSeconds(10)), Clock.systemUTC(), pageSize);
    }

    @Test
    void readsEveryObjectAcrossPagesWithAFixedNumberOfCalls() {
        List<HasMetadata> cluster = Fixtures.cluster(117, true); // 120 nodes
        api.create(cluster.toArray(HasMetadata[]::new));
        Instant before = Instant.now();
        ClusterState state;
        try (LiveSource live = source(50)) {
            state = live.load(false);
        }
        assertThat(state.nodes()).hasSize(120);
        assertThat(state.nodes()).extracting(NodeInfo::name).doesNotHaveDuplicates().contains("srv-0", "wrk-0116");
        assertThat(state.nodeLeases()).hasSize(120);
        assertThat(state.nodePasswordSecrets()).hasSize(120);
        assertThat(state.csiNodes().present()).isTrue();
        assertThat(state.csiNodes().items()).hasSize(120);
        assertThat(state.apiEndpoints().addresses()).containsExactly("10.0.0.10", "10.0.0.11", "10.0.0.12");
        assertThat(state.apiEndpoints().port()).isEqualTo(6443);
        assertThat(state.daemonSets()).hasSize(2);
        assertThat(state.cattleJobs().present()).isTrue();
        assertThat(state.cattleJobs().items()).singleElement().satisfies(j -> assertThat(j.failed()).isTrue());
        assertThat(state.controlPlaneLeases()).hasSize(2);
        assertThat(state.pods().present()).isFalse();
        assertThat(state.serverVersion()).isEqualTo("v1.34.1+rke2r1");
        assertThat(state.context()).isEqualTo(ApiTestServer.CONTEXT);
        assertThat(state.server()).isEqualTo(api.url());
        assertThat(state.source()).isEqualTo("live: context " + ApiTestServer.CONTEXT + " (" + api.url() + ")");
        assertThat(state.now()).isBetween(before, Instant.now());
        // 120 objects at 50 a page: 3 calls, whatever the number of nodes; never one call per node
        assertThat(api.requests("GET", "/api/v1/nodes")).isEqualTo(3);
        assertThat(api.requests("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases")).isEqualTo(3);
        assertThat(api.requests("GET", "/api/v1/namespaces/kube-system/secrets")).isEqualTo(3);
        assertThat(api.requests("GET", "/apis/storage.k8s.io/v1/csinodes")).isEqualTo(3);
        assertThat(api.requestCounts().keySet()).noneMatch(k -> k.startsWith("GET /api/v1/nodes/"));
        assertThat(api.requestCounts().keySet()).allMatch(k -> k.startsWith("GET "));
    }

    /**
     * Found on a real kube-apiserver (the lab): `audit` took its "now" before the reads, and a kubelet that renewed
     * its Lease while they ran (every 10 s) came out with a negative Lease age (LEASE -823ms). Here the clock moves
     * a second with every request the server receives, as time passes while the reads run, and one Lease was
     * renewed half a second after the reads began. Judged when the reads end, no age is negative; the same for the
     * raw snapshot that `collect` writes, and for an audit of what it wrote. The snapshot's own time stays the
     * start of the reads: a Node created during them may be missing, so a baseline taken from it must not be later.
     */
    @Test
    void aLeaseRenewedDuringTheReadsHasNoNegativeAgeAndTheSnapshotTimeStaysTheStart() {
        Instant start = Instant.parse("2026-03-01T10:00:00Z");
        TestClock clock = new TestClock(start);
        api.create(SeedCluster.lease("renewed-during-the-read", start.plusMillis(500)),
                SeedCluster.node("renewed-during-the-read", "10.0.0.9", "True", false,
                        java.util.Map.of(), "boot-1", "uuid-1", 0, start.minusSeconds(30), start.minusSeconds(3600)));
        api.onRequest((request, body) -> clock.advance(java.time.Duration.ofSeconds(1)));
        ClusterState state;
        RawSnapshot raw;
        try (LiveSource model = new LiveSource(KubeConnection.openForModel(kubeconfig, null,
                java.time.Duration.ofSeconds(10)), clock, 500);
             LiveSource whole = new LiveSource(KubeConnection.open(kubeconfig, null,
                     java.time.Duration.ofSeconds(10)), clock, 500)) {
            state = model.load(false);
            raw = whole.read(false);
        }
        assertThat(state.leaseOf("renewed-during-the-read")).hasValueSatisfying(lease ->
                assertThat(java.time.Duration.between(lease.renewTime(), state.now())).isPositive());
        assertThat(state.now()).as("ages are judged when the last read was answered").isAfter(start.plusSeconds(5));
        assertThat(state.readsStarted()).as("the snapshot's time is the start of its reads").isEqualTo(start);

        assertThat(raw.readsStarted()).as("collect's snapshot time: the start of its own reads")
                .isEqualTo(state.now());
        assertThat(raw.agesJudgedAt()).isAfter(raw.readsStarted().plusSeconds(5));
        ClusterState collected = StateAssembler.assemble(raw);
        assertThat(collected.leaseOf("renewed-during-the-read")).hasValueSatisfying(lease ->
                assertThat(java.time.Duration.between(lease.renewTime(), collected.now())).isPositive());

        // what `collect` writes: collectedAt is the start, and an audit of the directory judges ages at the end
        Path out = io.nodegate.source.dump.CollectionWriter.write(raw, dir.resolve("collected")).directory();
        ClusterState offline = io.nodegate.source.dump.DumpSource.load(List.of(out), null);
        assertThat(offline.readsStarted()).isEqualTo(raw.readsStarted());
        assertThat(offline.now()).isEqualTo(raw.agesJudgedAt());
        for (ClusterState judged : List.of(state, offline)) {
            assertThat(io.nodegate.audit.Audit.run(judged, io.nodegate.detect.AuditSettings.DEFAULTS).nodes())
                    .as("the LEASE column of audit").singleElement()
                    .satisfies(row -> assertThat(row.leaseRenewAge()).isPositive());
        }
    }

    @Test
    void aReaderOverTheSourcesReadLayerReadsAsTheSourceDoes() {
        // one connection, one read layer: a reader built over a source's layer pages as the source does (here
        // 50 a page), where a layer of its own would ask for pages of 500 in one call
        api.create(Fixtures.cluster(117, true).toArray(HasMetadata[]::new)); // 120 nodes
        try (LiveSource live = source(50)) {
            ApiReader reader = new ApiReader(live.api());
            assertThat(reader.api()).isSameAs(live.api());
            assertThat(reader.connection()).isSameAs(live.connection());
            assertThat(reader.nodes()).hasSize(120);
        }
        assertThat(api.requests("GET", "/api/v1/nodes")).isEqualTo(3);
    }

    @Test
    void usesPagesOf500ByDefaultAndKeepsNoSecretData() {
        api.create(Fixtures.cluster(2, false).toArray(HasMetadata[]::new));
        RawSnapshot raw;
        try (LiveSource live = LiveSource.open(kubeconfig, null, java.time.Duration.ofSeconds(10))) {
            raw = live.read(false);
        }
        assertThat(api.requestLog()).filteredOn(l -> l.startsWith("GET /api/v1/nodes"))
                .singleElement().asString().contains("limit=500");
        assertThat(raw.kubeSystemSecrets()).hasSize(6);
        assertThat(raw.kubeSystemSecrets()).allSatisfy(s -> {
            assertThat(s.getData()).isNullOrEmpty();
            assertThat(s.getStringData()).isNullOrEmpty();
            assertThat(String.valueOf(s.getMetadata().getAnnotations())).doesNotContain("TOPSECRET");
        });
        assertThat(raw.kubeSystemSecrets().toString()).doesNotContain("VE9QU0VDUkVU");
    }

    @Test
    void optionalApisAbsentAreNotedNotFailed() {
        api.create(Fixtures.cluster(2, false).toArray(HasMetadata[]::new));
        api.unserve("/apis/storage.k8s.io/v1/csinodes");
        ClusterState state;
        try (LiveSource live = source(500)) {
            state = live.load(false);
        }
        assertThat(state.csiNodes().present()).isFalse();
        assertThat(state.cattleJobs().present()).isFalse();
        assertThat(state.notes()).contains(SourceNotes.CSINODES_NOT_SERVED, SourceNotes.CATTLE_SYSTEM_ABSENT);
        assertThat(state.nodes()).hasSize(5);
    }

    @Test
    void aForbiddenListFailsTheWholeRead() {
        api.create(Fixtures.cluster(2, false).toArray(HasMetadata[]::new));
        api.failOn("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", 403);
        try (LiveSource live = source(500)) {
            assertThatThrownBy(() -> live.load(false)).isInstanceOf(CollectionException.class)
                    .hasMessageStartingWith("LIST leases in kube-node-lease: 403 Forbidden");
        }
    }

    @Test
    void aServerErrorOnTheSecondPageFailsInsteadOfReturningHalf() {
        api.create(Fixtures.cluster(7, false).toArray(HasMetadata[]::new));
        api.failOn("GET", "/api/v1/nodes", 500, 1);
        try (LiveSource live = source(4)) {
            assertThatThrownBy(() -> live.load(false)).isInstanceOf(CollectionException.class)
                    .hasMessageStartingWith("LIST nodes: 500 Internal Server Error");
        }
        assertThat(api.requests("GET", "/api/v1/nodes")).isEqualTo(2);
    }

    @Test
    void throttlingOrAnErrorOnTheNamespaceProbeIsNotAbsence() {
        api.create(Fixtures.cluster(1, true).toArray(HasMetadata[]::new));
        api.failOn("GET", "/api/v1/namespaces/cattle-system", 429);
        try (LiveSource live = source(500)) {
            assertThatThrownBy(() -> live.load(false)).isInstanceOf(CollectionException.class)
                    .hasMessageContaining("GET namespace cattle-system: 429 Too Many Requests");
        }
    }

    @Test
    void aCsiNodeErrorOtherThanNotFoundFails() {
        api.create(Fixtures.cluster(1, false).toArray(HasMetadata[]::new));
        api.failOn("GET", "/apis/storage.k8s.io/v1/csinodes", 503);
        try (LiveSource live = source(500)) {
            assertThatThrownBy(() -> live.load(false)).isInstanceOf(CollectionException.class)
                    .hasMessageContaining("LIST csinodes").hasMessageContaining("503");
        }
    }

    @Test
    void podsAreReadOnDemandAndByNodeWithTheFieldSelector() {
        api.create(Fixtures.cluster(2, false).toArray(HasMetadata[]::new));
        for (int i = 0; i < 9; i++) {
            api.create(Fixtures.pod("ns" + (i % 2), "p" + i, i % 3 == 0 ? "wrk-0000" : "wrk-0001"));
        }
        try (LiveSource live = source(2)) {
            assertThat(live.podsOnNode("wrk-0000")).extracting(p -> p.getMetadata().getName())
                    .containsExactlyInAnyOrder("p0", "p3", "p6");
            assertThat(live.podsOnNode("gone-node")).isEmpty();
            assertThat(api.requestLog()).filteredOn(l -> l.startsWith("GET /api/v1/pods"))
                    .allMatch(l -> l.contains("fieldSelector=spec.nodeName"));
            ClusterState state = live.load(true);
            assertThat(state.pods().present()).isTrue();
            assertThat(state.pods().items()).hasSize(9);
        }
    }

    @Test
    void wrongContextListsTheAvailableOnes() {
        assertThatThrownBy(() -> KubeConnection.open(kubeconfig, "prod-east", java.time.Duration.ofSeconds(10)))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("context 'prod-east' not found")
                .hasMessageContaining("available contexts: " + ApiTestServer.CONTEXT);
    }

    @Test
    void missingKubeconfigFileIsAnInputError() {
        assertThatThrownBy(() -> KubeConnection.open(dir.resolve("nope"), null, java.time.Duration.ofSeconds(10)))
                .isInstanceOf(InputException.class).hasMessageContaining("nope");
    }

    @Test
    void unreachableServerFailsFastNamingTheServer() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String url = "http://127.0.0.1:" + port;
        Path kc = dir.resolve("dead");
        Files.writeString(kc, Files.readString(kubeconfig).replace(api.url(), url));
        try (LiveSource live = LiveSource.open(kc, ApiTestServer.CONTEXT, java.time.Duration.ofSeconds(10))) {
            assertThatThrownBy(() -> live.load(false)).isInstanceOf(CollectionException.class)
                    .hasMessageContaining("GET /version")
                    .hasMessageContaining("cannot reach API server " + url);
        }
    }

    @Test
    void aServerThatNeverAnswersFailsAfterTheRequestTimeout() throws IOException {
        try (ServerSocket silent = new ServerSocket(0)) {
            String url = "http://127.0.0.1:" + silent.getLocalPort();
            Path kc = dir.resolve("silent");
            Files.writeString(kc, Files.readString(kubeconfig).replace(api.url(), url));
            try (LiveSource live = LiveSource.open(kc, null, java.time.Duration.ofSeconds(1))) {
                assertThatThrownBy(() -> live.load(false)).isInstanceOf(CollectionException.class)
                        .hasMessageContaining("GET /version")
                        .hasMessageContaining("no answer from API server " + url + " within 1s");
            }
        }
    }

    @Test
    void anUnparsableAnswerIsACollectionFailureNotAnEmptyList() {
        api.create(Fixtures.cluster(1, false).toArray(HasMetadata[]::new));
        api.mock().expect().get().withPath("/apis/apps/v1/daemonsets")
                .andReturn(200, "<html>proxy login</html>").always();
        try (LiveSource live = source(500)) {
            assertThatThrownBy(() -> live.load(false)).isInstanceOf(CollectionException.class)
                    .hasMessageStartingWith("LIST daemonsets in all namespaces: unparsable answer from API server "
                            + api.url());
        }
    }

    @Test
    void aKubeconfigWithoutCurrentContextAsksForOne() throws IOException {
        Path kc = dir.resolve("nocurrent");
        Files.writeString(kc, Files.readString(kubeconfig).replaceAll("(?m)^current-context:.*$", ""));
        assertThatThrownBy(() -> KubeConnection.open(kc, null, java.time.Duration.ofSeconds(10))).isInstanceOf(InputException.class)
                .hasMessageContaining("no current-context").hasMessageContaining(ApiTestServer.CONTEXT);
        try (KubeConnection c = KubeConnection.open(kc, ApiTestServer.CONTEXT, java.time.Duration.ofSeconds(10))) {
            assertThat(c.server()).isEqualTo(api.url());
            assertThat(c.describe()).isEqualTo("context " + ApiTestServer.CONTEXT + " (" + api.url() + ")");
        }
    }

    /** A Node as the API server returns it: managedFields from four managers and images with digests. */
    private static io.fabric8.kubernetes.api.model.Node withManagedFieldsAndImages(
            io.fabric8.kubernetes.api.model.Node node) {
        node.getMetadata().setManagedFields(List.of(new io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder()
                .withManager("kubelet").withOperation("Update").withApiVersion("v1").withFieldsType("FieldsV1")
                .withTime("2026-10-19T05:59:50Z")
                .withNewFieldsV1().addToAdditionalProperties("f:status", java.util.Map.of("f:conditions",
                        java.util.Map.of("k:{\"type\":\"Ready\"}", java.util.Map.of("f:status", java.util.Map.of()))))
                .endFieldsV1().build()));
        node.getStatus().setImages(List.of(new io.fabric8.kubernetes.api.model.ContainerImageBuilder()
                .withNames("docker.io/rancher/rke2-runtime@sha256:0123", "docker.io/rancher/rke2-runtime:v1.34.1")
                .withSizeBytes(123456789L).build()));
        return node;
    }

    @Test
    void modelOnlyParsingMapsToTheSameStateAsWholeObjects() {
        List<HasMetadata> cluster = new java.util.ArrayList<>(Fixtures.cluster(7, true));
        cluster.replaceAll(o -> o instanceof io.fabric8.kubernetes.api.model.Node n ? withManagedFieldsAndImages(n) : o);
        api.create(cluster.toArray(HasMetadata[]::new));
        api.create(Fixtures.pod("ns0", "p0", "wrk-0000"), Fixtures.pod("ns1", "p1", "wrk-0001"));
        for (boolean withPods : List.of(false, true)) {
            RawSnapshot raw;
            try (LiveSource live = source(3)) {
                raw = live.read(withPods);
            }
            assertThat(raw.nodes()).allSatisfy(n -> {
                assertThat(n.getMetadata().getManagedFields()).isNotEmpty();
                assertThat(n.getStatus().getImages()).isNotEmpty();
            });
            ClusterState whole = StateAssembler.assemble(raw);
            ClusterState lean;
            try (LiveSource live = new LiveSource(KubeConnection.openForModel(kubeconfig, null, java.time.Duration.ofSeconds(10)), Clock.systemUTC(),
                    3)) {
                lean = live.load(withPods);
            }
            assertThat(lean.withNow(whole.now())).isEqualTo(whole.withNow(whole.now()));
            assertThat(lean.nodes()).hasSize(10);
            assertThat(lean.pods().present()).isEqualTo(withPods);
        }
    }

    @Test
    void aModelOnlyConnectionRefusesToReadWholeObjectsAndStillFailsOnGarbage() {
        api.create(Fixtures.cluster(1, false).toArray(HasMetadata[]::new));
        api.mock().expect().get().withPath("/apis/apps/v1/daemonsets")
                .andReturn(200, "<html>proxy login</html>").always();
        try (LiveSource live = LiveSource.openForModel(kubeconfig, null, java.time.Duration.ofSeconds(10))) {
            assertThat(live.connection().modelOnly()).isTrue();
            assertThatThrownBy(() -> live.read(false)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> live.load(false)).isInstanceOf(CollectionException.class)
                    .hasMessageStartingWith("LIST daemonsets in all namespaces: unparsable answer from API server "
                            + api.url());
        }
    }

    @Test
    void whenNodesAndALaterListBothFailTheNodesFailureIsReportedAsInReadOrder() {
        api.create(Fixtures.cluster(2, false).toArray(HasMetadata[]::new));
        api.failOn("GET", "/api/v1/nodes", 500);
        api.failOn("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", 403);
        for (int i = 0; i < 3; i++) {
            try (LiveSource live = source(500)) {
                assertThatThrownBy(() -> live.load(false)).isInstanceOf(CollectionException.class)
                        .hasMessageStartingWith("LIST nodes: 500 Internal Server Error");
            }
        }
    }
}
