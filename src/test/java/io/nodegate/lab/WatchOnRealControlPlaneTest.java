package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.Finding;
import io.nodegate.model.SecretMeta;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.testing.Await;
import io.nodegate.testing.EtcdCluster;
import io.nodegate.testing.RealControlPlane;
import io.nodegate.watch.WatchEngine;
import io.nodegate.watch.WatchService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.nodegate.testing.RealControlPlane.agent;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-cluster watch ({@link WatchService}, as `nodegate watch` runs it) against the real kube-apiserver,
 * kube-controller-manager and etcd of the lab. What is asserted is what the watch publishes: its Node Events (read
 * back from the apiserver), its Prometheus metrics and its findings.
 * <ul>
 *   <li>bookmarks: the real apiserver sends each watcher a BOOKMARK about every minute, and the watch counts them
 *       and keeps every stream fresh with them (no stream closed for silence);</li>
 *   <li>the seed's batch stop: four kubelets stop, the real node lifecycle controller marks them Unknown, the watch
 *       posts NG101 and NG103 once per node (not once per pass), and resolves them once when the kubelets return;</li>
 *   <li>410 Gone: the watch's line to the apiserver is cut, etcd is compacted, and the watch comes back with a
 *       resourceVersion the apiserver no longer has: it lists again, and neither loses nor repeats a finding.</li>
 * </ul>
 * The watch's streams go through a {@link CuttableProxy} (TLS passes through: it still checks the apiserver's
 * certificate).
 */
@ExtendWith(RealControlPlane.Resolver.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WatchOnRealControlPlaneTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern SAMPLE = Pattern.compile("^(\\w+)(\\{[^}]*})? (\\S+)$");

    private static RealControlPlane lab;
    private static CuttableProxy proxy;
    private static KubeConnection connection;
    private static WatchService watch;
    private static KubernetesClient admin;
    private static final String IDENTITY = "lab-watch-" + UUID.randomUUID().toString().substring(0, 8);
    private static final List<String> LOG = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startTheWatch(RealControlPlane controlPlane) throws Exception {
        lab = controlPlane;
        admin = lab.client("admin");
        proxy = new CuttableProxy(server(lab));
        Path kubeconfig = kubeconfigVia(lab, proxy.url(), "watch-via-proxy.kubeconfig");
        connection = KubeConnection.openForModel(kubeconfig, "admin", Duration.ofSeconds(20));
        // no leader election here (one replica leads; the election has its own test); passes every 5 s
        watch = new WatchService(settings(null, IDENTITY, proxy.url()), connection, Clock.systemUTC(),
                line -> LOG.add(Instant.now() + " " + line));
        watch.start();
        Await.until("the watch's first good pass on the lab", Duration.ofSeconds(120),
                () -> watch.engine().lastGood() != null);
    }

    @AfterAll
    static void stop() {
        LOG.forEach(l -> System.err.println("WATCHLOG " + l));
        if (watch != null) {
            watch.close();
        }
        if (connection != null) {
            connection.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (admin != null) {
            admin.close();
        }
    }

    static WatchService.Settings settings(String namespace, String identity, String server) {
        return new WatchService.Settings(Duration.ofSeconds(5), Duration.ofSeconds(1), null, namespace, identity,
                Duration.ofSeconds(8), Duration.ofMillis(5300), Duration.ofSeconds(1), false, 50, 200, true,
                AuditSettings.DEFAULTS, Detectors.all(), Duration.ofSeconds(20), "live: lab", "admin", server, "lab");
    }

    static String server(RealControlPlane lab) throws IOException {
        for (String line : Files.readAllLines(lab.dir().resolve("lab.env"))) {
            if (line.startsWith("server=")) {
                return line.substring("server=".length()).trim();
            }
        }
        throw new IllegalStateException("no server= in " + lab.dir().resolve("lab.env"));
    }

    /** A copy of the lab's kubeconfig that reaches the apiserver at {@code url} (0600: it holds the admin key). */
    static Path kubeconfigVia(RealControlPlane lab, String url, String name) throws IOException {
        String original = Files.readString(lab.kubeconfig());
        Path file = lab.dir().resolve(name);
        Files.deleteIfExists(file);
        Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, original.replace(server(lab), url));
        return file;
    }

    /** The watch's findings in its last good pass: code -> nodes. */
    static Map<String, Set<String>> findings(WatchService service) {
        Map<String, Set<String>> out = new TreeMap<>();
        WatchEngine.Pass pass = service.engine().lastGood();
        if (pass != null) {
            for (Finding f : pass.report().findings()) {
                out.computeIfAbsent(f.code(), c -> new java.util.TreeSet<>()).addAll(f.nodes());
            }
        }
        return out;
    }

    static List<String> events(String instance) {
        return eventsOf(admin, instance);
    }

    /** The Events {@code instance} posted (read back from the apiserver), as "node message". */
    static List<String> eventsOf(KubernetesClient client, String instance) {
        List<String> out = new ArrayList<>();
        for (Event e : client.v1().events().inNamespace("default").list().getItems()) {
            if (instance.equals(e.getReportingInstance())) {
                out.add(e.getInvolvedObject().getName() + " " + e.getMessage());
            }
        }
        return out;
    }

    /** How many of {@code events} are about {@code node} and start with {@code prefix} (e.g. "NG101 "). */
    static long count(List<String> events, String node, String prefix) {
        return events.stream().filter(e -> e.startsWith(node + " " + prefix)).count();
    }

    /** The value of one series of the watch's metrics, or -1 when absent; {@code labels} as they are written. */
    static double metric(WatchService service, String name, String labels) {
        for (String line : service.metrics().render().split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (m.matches() && m.group(1).equals(name) && (labels == null || (m.group(2) != null
                    && m.group(2).contains(labels)))) {
                return Double.parseDouble(m.group(3));
            }
        }
        return -1;
    }

    /** Every series of {@code name}: labels -> value. */
    static Map<String, Double> series(WatchService service, String name) {
        Map<String, Double> out = new TreeMap<>();
        for (String line : service.metrics().render().split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (m.matches() && m.group(1).equals(name)) {
                out.put(m.group(2) == null ? "" : m.group(2), Double.parseDouble(m.group(3)));
            }
        }
        return out;
    }

    @Test
    @Order(1)
    void freshRke2AgentsAreNoBareNewcomers() {
        // The lab's agents are minutes old and carry no role label, as RKE2 agents do; only the server carries the
        // roles RKE2 gives it. That is no cluster that labels its workers: no NG111.
        assertThat(findings(watch)).doesNotContainKey("NG111");
    }

    @Test
    @Order(2)
    void secretEventsAfterAStreamsFirstAreReadWithTheColumnsItsFirstEventAnnounced() {
        // The Secret watch asks for Tables (types and names only, never a value). kube-apiserver sends a watch's
        // column definitions with its first event only; every later event's Table says "columnDefinitions": null.
        // Each change below is an event after the stream's first: each must reach the copy, typed, and none may
        // fail the stream.
        String kind = "node-password-secrets";
        Map<String, Long> restartsBefore = watch.cache().restarts().get(kind);
        List<String> names = List.of("t-wire-a.node-password.rke2", "t-wire-b.node-password.rke2");
        for (String name : names) {
            admin.secrets().inNamespace("kube-system").resource(new SecretBuilder().withNewMetadata().withName(name)
                    .withNamespace("kube-system").endMetadata().withType("rke2.cattle.io/node-password")
                    .addToStringData("hash", "$1:not-a-real-hash").build()).create();
        }
        Await.until("both Secrets in the watch's copy, typed", Duration.ofSeconds(60), () -> names.stream()
                .allMatch(n -> held(n).filter(s -> "rke2.cattle.io/node-password".equals(s.type())).isPresent()));
        admin.secrets().inNamespace("kube-system").withName(names.get(0)).edit(s -> new SecretBuilder(s)
                .editMetadata().addToLabels("t-wire", "changed").endMetadata().build());
        Await.until("the label change in the watch's copy", Duration.ofSeconds(60),
                () -> held(names.get(0)).filter(s -> "changed".equals(s.labels().get("t-wire"))).isPresent());
        names.forEach(n -> admin.secrets().inNamespace("kube-system").withName(n).delete());
        Await.until("both Secrets gone from the watch's copy", Duration.ofSeconds(60),
                () -> names.stream().noneMatch(n -> held(n).isPresent()));

        assertThat(LOG).as("the Secret stream never failed on a later event")
                .noneMatch(l -> l.contains("informer " + kind + ":") && l.contains("unparsable"));
        assertThat(watch.cache().restarts().get(kind)).as("no watch of " + kind + " started again after an error "
                + "or a broken answer").containsEntry("error", restartsBefore.get("error"));
        assertThat(watch.cache().health()).containsEntry(kind, true);
    }

    /** The Secret {@code name} in kube-system as the watch's copy holds it now. */
    private static Optional<SecretMeta> held(String name) {
        return watch.cache().state(Instant.now(), "lab", "admin", "lab").nodePasswordSecrets().stream()
                .filter(s -> name.equals(s.name())).findFirst();
    }

    @Test
    @Order(3)
    void theRealApiserversBookmarksMoveEveryStreamOnAndKeepItFresh() {
        // kube-apiserver's watch cache sends each watcher a bookmark about every minute (defaultBookmarkFrequency)
        Duration took = Await.until("a BOOKMARK on every watched kind", Duration.ofSeconds(180), () -> {
            Map<String, Double> marks = series(watch, "nodegate_informer_bookmarks_total");
            return !marks.isEmpty() && marks.values().stream().allMatch(n -> n >= 1);
        });
        System.out.println("bookmarks on every kind after " + took.toSeconds() + " s: "
                + series(watch, "nodegate_informer_bookmarks_total"));
        Map<String, Double> marks = series(watch, "nodegate_informer_bookmarks_total");
        assertThat(marks.keySet()).as("every kind the watch follows")
                .anyMatch(k -> k.contains("kind=\"nodes\"")).anyMatch(k -> k.contains("kind=\"node-leases\""))
                .anyMatch(k -> k.contains("kind=\"csinodes\""));
        // quiet kinds (no CSINode or DaemonSet changes on the lab) were kept fresh by bookmarks alone: no stream was
        // ever closed for silence, and every copy is proven fresh
        series(watch, "nodegate_informer_restarts_total").forEach((labels, n) -> {
            if (labels.contains("reason=\"idle\"")) {
                assertThat(n).as(labels + "\n" + String.join("\n", LOG)).isZero();
            }
        });
        assertThat(series(watch, "nodegate_informer_synced").values()).allMatch(v -> v == 1);
    }

    @Test
    @Order(4)
    void batchStopIsRaisedOnceSurvivesA410RelistAndIsResolvedOnce() throws Exception {
        String[] stopped = {agent(1), agent(2), agent(3), agent(4)};
        assertThat(events(IDENTITY)).as("no NG101/NG103 before the stop")
                .noneMatch(e -> e.contains(" NG101 ") || e.contains(" NG103 "));
        lab.lab("kubelet", "stop", stopped).requireOk("stop four kubelets");
        try {
            // 1. raised: NG101 (Unknown, written by the real node lifecycle controller) and NG103 on all four
            Duration raised = Await.until("NG101 and NG103 Events on the four", Duration.ofSeconds(240), () -> {
                List<String> ev = events(IDENTITY);
                for (String node : stopped) {
                    if (count(ev, node, "NG101 ") < 1 || count(ev, node, "NG103 ") < 1) {
                        return false;
                    }
                }
                return true;
            });
            System.out.println("NG101 and NG103 posted " + raised.toSeconds() + " s after the stop");
            // several more good passes: each sees the same findings, and none posts them again
            Instant raisedAt = watch.engine().lastGood().at();
            Await.until("three more good passes", Duration.ofSeconds(120),
                    () -> watch.engine().lastGood().at().isAfter(raisedAt.plusSeconds(15)));
            assertOncePerNode(stopped, "NG101 ", "NG103 ");
            assertThat(findings(watch).get("NG101")).containsAll(List.of(stopped));
            assertThat(findings(watch).get("NG103")).containsAll(List.of(stopped));

            // 2. the watch's line is cut; etcd is compacted; the apiserver forgets the watch's resourceVersion
            proxy.cut();
            String cutAt = consistentLeaseVersion();
            long compacted = compactEtcd();
            System.out.println("line cut at Lease version " + cutAt + "; etcd compacted at revision " + compacted);
            // The watch cache of kube-apiserver serves watches from its own history, not from etcd: a compaction
            // alone does not make a version gone (a watch from before it is still served). The version is gone
            // once the cache's window has moved past it: the apiserver itself says so. The window is a ring of
            // Lease events (k8s.io/apiserver pkg/storage/cacher/watch_cache.go: updateCache, resizeCacheLocked):
            // a new event pushes the oldest out only when the ring is full and that oldest event is older than
            // 75 s (eventFreshDuration, which the apiserver refuses to set lower); while the oldest is younger, the
            // ring doubles instead. Left to the lab's own Lease renewals (about one a second) the window took over
            // four minutes to pass the cut. So the test waits until the events at the cut are 75 s old, with no
            // writes of its own (a burst before that would only grow the ring), and then writes a Lease of its own
            // in `default` (no namespace the watch follows) until the apiserver answers 410: each write is one
            // more event, and each pushes out one old event. The apiserver runs with its default cache settings.
            Instant cutTime = Instant.now();
            Duration gone = Await.until("the apiserver answers 410 to a watch from the cut version",
                    Duration.ofSeconds(360), () -> {
                        if (watchFromIsGone(cutAt)) {
                            return true;
                        }
                        if (Instant.now().isAfter(cutTime.plusSeconds(78))) {
                            moveTheWatchCacheOn(200);
                        }
                        return false;
                    });
            System.out.println("a watch from version " + cutAt + " is 410 Gone " + gone.toSeconds() + " s after the cut ("
                    + cacheWrites + " Lease writes of the test)");
            admin.leases().inNamespace("default").withName("lab-watch-cache-window").delete();
            double goneBefore = metric(watch, "nodegate_informer_restarts_total", "kind=\"node-leases\",reason=\"gone\"");
            Instant healedAt = Instant.now();
            proxy.heal();
            Await.until("the watch meets 410 Gone and lists the Leases again", Duration.ofSeconds(120),
                    () -> metric(watch, "nodegate_informer_restarts_total",
                            "kind=\"node-leases\",reason=\"gone\"") > goneBefore);
            Await.until("a good pass after the relist", Duration.ofSeconds(120), () -> {
                WatchEngine.Pass last = watch.engine().lastGood();
                return last != null && last.at().isAfter(healedAt.plusSeconds(5));
            });
            // not lost: the four are still NG101 and NG103; not repeated: still one Event each
            assertThat(findings(watch).get("NG101")).containsAll(List.of(stopped));
            assertThat(findings(watch).get("NG103")).containsAll(List.of(stopped));
            assertOncePerNode(stopped, "NG101 ", "NG103 ");
            assertThat(events(IDENTITY)).noneMatch(e -> e.contains("resolved"));
        } finally {
            proxy.heal();
            lab.lab("kubelet", "start", stopped).requireOk("start the four kubelets again");
        }
        // 3. resolved once when the kubelets are back
        Await.until("NG101 and NG103 resolved on the four", Duration.ofSeconds(180), () -> {
            List<String> ev = events(IDENTITY);
            for (String node : stopped) {
                if (count(ev, node, "NG101 NodeUnknown resolved") < 1 || count(ev, node, "NG103 ") < 2) {
                    return false;
                }
            }
            return true;
        });
        Instant resolvedAt = watch.engine().lastGood().at();
        Await.until("three more good passes", Duration.ofSeconds(120),
                () -> watch.engine().lastGood().at().isAfter(resolvedAt.plusSeconds(15)));
        List<String> ev = events(IDENTITY);
        for (String node : stopped) {
            assertThat(count(ev, node, "NG101 NodeUnknown resolved")).as(node + " NG101 resolved\n" + ev).isEqualTo(1);
            assertThat(count(ev, node, "NG103 BatchSilence resolved")).as(node + " NG103 resolved\n" + ev).isEqualTo(1);
        }
        assertThat(findings(watch)).doesNotContainKeys("NG101", "NG103");
    }

    private static void assertOncePerNode(String[] nodes, String... prefixes) {
        List<String> ev = events(IDENTITY);
        for (String node : nodes) {
            for (String prefix : prefixes) {
                assertThat(count(ev, node, prefix)).as(node + " " + prefix + "Events\n" + String.join("\n", ev))
                        .isEqualTo(1);
            }
        }
    }

    /** The Leases' collection version from a consistent (quorum) read: at or past anything the watch has seen. */
    private static String consistentLeaseVersion() {
        RealControlPlane.Result list = lab.kubectl(null, "get", "--raw",
                "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?limit=1");
        list.requireOk("LIST leases");
        return JSON.readTree(list.output()).get("metadata").get("resourceVersion").asString();
    }

    /** Compacts the lab's etcd at its current revision with etcdctl; returns the revision. */
    private static long compactEtcd() throws IOException {
        String etcdctl = EtcdCluster.requireOnPath("etcdctl", "etcdctl is required in CI for the compaction test",
                "etcdctl not on PATH: skipping the compaction");
        String endpoint = null;
        for (String line : Files.readAllLines(lab.dir().resolve("lab.env"))) {
            if (line.startsWith("etcd=")) {
                endpoint = line.substring("etcd=".length()).trim();
            }
        }
        assertThat(endpoint).as("etcd= in lab.env").isNotNull();
        String status = exec(etcdctl, "--command-timeout=20s", "--endpoints", endpoint, "endpoint", "status", "-w", "json");
        JsonNode parsed = JSON.readTree(status);
        long revision = parsed.get(0).get("Status").get("header").get("revision").asLong();
        String out = exec(etcdctl, "--command-timeout=20s", "--endpoints", endpoint, "compact", Long.toString(revision));
        assertThat(out).contains("compacted revision " + revision);
        return revision;
    }

    private static int cacheWrites;

    /**
     * Writes {@code count} updates of the test's own Lease {@code default/lab-watch-cache-window} (created on first
     * use), each a new Lease event in the apiserver's watch cache.
     */
    private static void moveTheWatchCacheOn(int count) {
        var leases = admin.leases().inNamespace("default");
        if (leases.withName("lab-watch-cache-window").get() == null) {
            leases.resource(new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder().withNewMetadata()
                    .withName("lab-watch-cache-window").endMetadata().withNewSpec().withHolderIdentity("w-0")
                    .endSpec().build()).create();
        }
        for (int i = 0; i < count; i++) {
            leases.withName("lab-watch-cache-window").patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                    io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                    "{\"spec\":{\"holderIdentity\":\"w-" + (++cacheWrites) + "\"}}");
        }
    }

    /** True when the apiserver answers a Lease watch from {@code version} with 410 Gone (an ERROR event, Expired). */
    private static boolean watchFromIsGone(String version) {
        RealControlPlane.Result watchFrom = lab.kubectl(null, "get", "--raw",
                "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?watch=1&resourceVersion=" + version
                        + "&timeoutSeconds=1");
        for (String line : watchFrom.output().split("\n")) {
            if (line.startsWith("{")) {
                JsonNode event = JSON.readTree(line);
                return "ERROR".equals(event.path("type").asString())
                        && event.path("object").path("code").asInt() == 410;
            }
        }
        return false;
    }

    private static String exec(String... cmd) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("ETCDCTL_API", "3");
        Process p = pb.start();
        try {
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("timed out: " + String.join(" ", cmd));
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + text);
            }
            return text;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException(e));
        }
    }
}
