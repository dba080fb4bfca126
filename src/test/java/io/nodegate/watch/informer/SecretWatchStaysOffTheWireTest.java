package io.nodegate.watch.informer;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.nodegate.model.SecretMeta;
import io.nodegate.source.kube.Kinds;
import io.nodegate.source.kube.ReadKind;
import io.nodegate.source.kube.StateAssembler;
import io.nodegate.source.json.MetadataOnly;
import io.nodegate.source.kube.ApiCalls;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watch's Secret WATCH, like its LIST, asks kube-apiserver for Tables of metadata and type, so a node-password
 * hash written after the watch opened never crosses the wire either: each event's object is a one-row Table, turned
 * into the same {@code kind: Secret} object (metadata and type) the LIST gives. A server that ignores the Table
 * request sends whole Secrets: the watch still works and drops the values while parsing.
 */
class SecretWatchStaysOffTheWireTest {

    /** Node-password hashes as k3s/RKE2 store them; no other object in the cluster holds them. */
    private static final String LISTED_HASH = "scrypt-listed-4c1d-never-on-the-wire";
    private static final String ADDED_HASH = "scrypt-added-9e2b-never-on-the-wire";
    private static final String UPDATED_HASH = "scrypt-updated-0a7f-never-on-the-wire";
    private static final String TYPE = "rke2.cattle.io/node-password";
    private static final String SECRETS = "/api/v1/namespaces/kube-system/secrets";

    @TempDir
    Path tmp;
    private ApiTestServer api;
    private KubeConnection connection;
    private KindWatch watch;
    private final AtomicInteger changes = new AtomicInteger();

    @BeforeEach
    void server() {
        api = ApiTestServer.start().bookmarkEvery(Duration.ofMillis(200));
    }

    @AfterEach
    void stop() {
        if (watch != null) {
            watch.close();
        }
        if (connection != null) {
            connection.close();
        }
        api.close();
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static Secret nodePassword(String node, String hash) {
        return new SecretBuilder().withNewMetadata().withNamespace("kube-system").withName(node + ".node-password.rke2")
                .withCreationTimestamp("2026-01-01T00:00:00Z").endMetadata().withType(TYPE)
                .addToData("hash", b64(hash)).build();
    }

    private void start() throws InterruptedException {
        connection = KubeConnection.openForModel(api.writeKubeconfig(tmp.resolve("kubeconfig")), null,
                Duration.ofSeconds(5));
        watch = new KindWatch(new ApiCalls(connection), Kinds.KUBE_SYSTEM_SECRETS,
                (k, object) -> new KindWatch.Held(object, k.fromJson(StateAssembler.incremental(), object), List.of(),
                        null),
                new KindWatch.Listener() {
                    @Override
                    public void changed(ReadKind<?, ?> k) {
                        changes.incrementAndGet();
                    }

                    @Override
                    public void renewed(ReadKind<?, ?> k) {
                    }
                }, line -> { }, 300);
        watch.start();
        await("listed and watching", this::watching);
        await("the watch is open on the server", () -> api.openWatches() == 1);
    }

    /** Creates a Secret and updates the listed one after the watch opened; waits until the watch holds both. */
    private void writeAfterTheWatchOpened() throws InterruptedException {
        int before = changes.get();
        api.create(nodePassword("added", ADDED_HASH));
        await("the new Secret arrives", () -> changes.get() == before + 1);
        api.apply(new SecretBuilder(nodePassword("listed", UPDATED_HASH)).editMetadata()
                .addToLabels("rotated", "yes").endMetadata().build());
        await("the update arrives", () -> changes.get() == before + 2);
    }

    private Map<String, SecretMeta> heldSecrets() {
        Map<String, SecretMeta> byName = new java.util.TreeMap<>();
        for (KindWatch.Held h : watch.held()) {
            SecretMeta meta = (SecretMeta) h.model();
            byName.put(meta.name(), meta);
            // held as its model only: no plain JSON, so no place for a value to stay
            assertThat(h.object()).isNull();
        }
        assertThat(watch.held().toString()).doesNotContain(b64(LISTED_HASH), b64(ADDED_HASH), b64(UPDATED_HASH));
        return byName;
    }

    /** The watch event lines the server sent (each one line; LIST answers are not lines). */
    private List<String> watchLinesSent() {
        return api.answersSent().stream().filter(body -> body.endsWith("\n") && body.contains("\"object\"")).toList();
    }

    @Test
    void eventsAreOneRowTablesSoNoValueWrittenAfterTheWatchOpenedIsSent() throws Exception {
        api.create(nodePassword("listed", LISTED_HASH));
        api.resetCounts();
        start();
        writeAfterTheWatchOpened();
        await("a bookmark Table too", () -> watchLinesSent().stream().anyMatch(l -> l.contains("\"BOOKMARK\"")));

        assertThat(api.requestAccepts()).filteredOn(r -> r.startsWith("GET " + SECRETS + "?") && r.contains("watch=true"))
                .isNotEmpty().allSatisfy(r -> assertThat(r).contains("includeObject=Metadata")
                        .endsWith("Accept: " + MetadataOnly.ACCEPT));
        List<String> lines = watchLinesSent();
        assertThat(lines).hasSizeGreaterThanOrEqualTo(3).allSatisfy(line -> assertThat(line)
                .contains("\"kind\":\"Table\"", "PartialObjectMetadata").doesNotContain("\"data\""));
        // as kube-apiserver: the column definitions come with the stream's first event only
        assertThat(lines.get(0)).contains("columnDefinitions");
        assertThat(lines.subList(1, lines.size())).allSatisfy(l -> assertThat(l)
                .contains("\"columnDefinitions\":null").doesNotContain("\"name\":\"Type\""));
        for (String hash : List.of(LISTED_HASH, ADDED_HASH, UPDATED_HASH)) {
            assertThat(api.answersSent()).as("what the server sent").allSatisfy(body -> assertThat(body)
                    .doesNotContain(hash).doesNotContain(b64(hash)));
        }

        Map<String, SecretMeta> held = heldSecrets();
        assertThat(held).containsOnlyKeys("added.node-password.rke2", "listed.node-password.rke2");
        assertThat(held.values()).allSatisfy(s -> {
            assertThat(s.type()).isEqualTo(TYPE);
            assertThat(s.uid()).isNotBlank();
            assertThat(s.created()).isNotNull();
        });
        assertThat(held.get("listed.node-password.rke2").labels()).containsEntry("rotated", "yes");
        assertThat(watch.healthy()).isTrue();
    }

    @Test
    void aServerWithoutTablesSendsWholeSecretsAndTheWatchDropsTheValues() throws Exception {
        api.withoutTables();
        api.create(nodePassword("listed", LISTED_HASH));
        api.resetCounts();
        start();
        writeAfterTheWatchOpened();

        // this server did send the values (so the first test's check would have seen them) ...
        assertThat(watchLinesSent()).anySatisfy(line -> assertThat(line).contains(b64(ADDED_HASH)));
        assertThat(api.answersSent()).noneSatisfy(body -> assertThat(body).contains("\"kind\":\"Table\""));
        // ... and the watch holds the same objects as from Tables: metadata and type, never a value
        Map<String, SecretMeta> held = heldSecrets();
        assertThat(held).containsOnlyKeys("added.node-password.rke2", "listed.node-password.rke2");
        assertThat(held.values()).allSatisfy(s -> assertThat(s.type()).isEqualTo(TYPE));
        assertThat(held.get("listed.node-password.rke2").labels()).containsEntry("rotated", "yes");
    }

    /** Listed, and a watch open at the server (its answer came), not merely asked for. */
    private boolean watching() {
        return watch.phase() == KindWatch.Phase.WATCHING && watch.healthy();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline).as("timed out waiting for: " + what).isTrue();
            Thread.sleep(20);
        }
    }
}
