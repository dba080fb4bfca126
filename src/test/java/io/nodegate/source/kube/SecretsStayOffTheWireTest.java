package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.nodegate.model.ClusterState;
import io.nodegate.model.SecretMeta;
import io.nodegate.source.Fixtures;
import io.nodegate.source.dump.CollectionWriter;
import io.nodegate.source.dump.DumpSource;
import io.nodegate.source.json.MetadataOnly;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * nodegate reads kube-system Secrets for their metadata and type only, and their values never cross the wire: the
 * LIST (and a GET of one node-password Secret) asks kube-apiserver for a Table of metadata and the Type column,
 * which the test server, like the real one, answers without the Secrets' data. What the server sent is checked
 * byte for byte for a known value. A client that does not ask gets the whole Secret, values included, which shows
 * the check would see a value if one were sent.
 */
class SecretsStayOffTheWireTest {

    /** A node-password hash as k3s/RKE2 store it (plain, and base64 as it travels in data). */
    private static final String HASH = "scrypt-hash-7f3a9c1e-must-never-travel";
    private static final String HASH_B64 = Base64.getEncoder().encodeToString(HASH.getBytes(StandardCharsets.UTF_8));
    private static final String SECRETS_PATH = "/api/v1/namespaces/kube-system/secrets";

    @TempDir
    Path dir;
    private ApiTestServer api;
    private Path kubeconfig;

    @BeforeEach
    void start() {
        api = ApiTestServer.start();
        kubeconfig = api.writeKubeconfig(dir.resolve("kubeconfig"));
        List<HasMetadata> cluster = new java.util.ArrayList<>(Fixtures.cluster(2, false));
        cluster.add(nodePassword("wrk-hash"));
        cluster.add(untypedNodePassword("old-agent"));
        api.create(cluster.toArray(HasMetadata[]::new));
        api.resetCounts();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private static Secret nodePassword(String node) {
        return new SecretBuilder().withNewMetadata().withNamespace("kube-system")
                .withName(node + ".node-password.rke2").withCreationTimestamp("2026-01-01T00:00:00Z").endMetadata()
                .withType("rke2.cattle.io/node-password").withImmutable(true).addToData("hash", HASH_B64).build();
    }

    /** Made by a k3s/RKE2 older than late 2025: no type. */
    private static Secret untypedNodePassword(String node) {
        return new SecretBuilder().withNewMetadata().withNamespace("kube-system")
                .withName(node + ".node-password.k3s").withCreationTimestamp("2026-01-02T00:00:00Z").endMetadata()
                .addToData("hash", HASH_B64).withStringData(java.util.Map.of("note", HASH)).build();
    }

    /** Every answer the server sent the code under test (no other object in the cluster holds the hash). */
    private List<String> sent() {
        List<String> answers = api.answersSent();
        assertThat(answers).isNotEmpty();
        return answers;
    }

    @Test
    void theLiveListAsksForATableOfMetadataAndNoValueIsSent() {
        ClusterState state;
        try (LiveSource live = new LiveSource(KubeConnection.openForModel(kubeconfig, null, Duration.ofSeconds(10)),
                Clock.systemUTC(), 3)) {
            state = live.load(false);
        }
        List<String> secretLists = api.requestAccepts().stream().filter(r -> r.contains(SECRETS_PATH)).toList();
        // 6 fixture Secrets + 2 here at 3 a page: 3 pages, each asking for the Table
        assertThat(secretLists).hasSize(3).allSatisfy(r -> assertThat(r)
                .contains("includeObject=Metadata")
                .endsWith("Accept: application/json;as=Table;g=meta.k8s.io;v=v1,application/json"));
        assertThat(sent()).allSatisfy(body -> assertThat(body).doesNotContain(HASH_B64).doesNotContain(HASH)
                .doesNotContain(Base64.getEncoder().encodeToString("TOPSECRET-scrypt-hash".getBytes())));
        assertThat(sent()).filteredOn(body -> body.contains("\"kind\":\"Table\"")).hasSize(3)
                .allSatisfy(body -> assertThat(body).contains("PartialObjectMetadata").doesNotContain("\"data\""));
        // what the model needs is all there: names, creation times, uids, and the type from the Type column
        assertThat(state.nodePasswordSecrets()).extracting(SecretMeta::name).contains("wrk-hash.node-password.rke2",
                "old-agent.node-password.k3s");
        assertThat(state.nodePasswordSecrets()).filteredOn(s -> s.name().startsWith("wrk-hash")).singleElement()
                .satisfies(s -> {
                    assertThat(s.type()).isEqualTo("rke2.cattle.io/node-password");
                    assertThat(s.uid()).isNotBlank();
                    assertThat(s.created()).isNotNull();
                });
        assertThat(state.nodePasswordSecrets()).filteredOn(s -> s.name().startsWith("old-agent")).singleElement()
                .satisfies(s -> assertThat(s.type()).isNull());
    }

    @Test
    void aClientThatDoesNotAskGetsTheValuesSoTheCheckAboveCanSeeThem() {
        Secret whole = api.newClient().secrets().inNamespace("kube-system").withName("wrk-hash.node-password.rke2")
                .get();
        assertThat(whole.getData()).containsEntry("hash", HASH_B64);
        // newClient() is not a setup client: its answer is in the log, values included
        assertThat(api.answersSent()).anySatisfy(body -> assertThat(body).contains(HASH_B64));
    }

    @Test
    void collectWritesTheSecretsFromTheTableAndTheDumpSourceReadsThemBackAsTheLiveReadSawThem() throws Exception {
        RawSnapshot raw;
        try (LiveSource live = LiveSource.open(kubeconfig, null, Duration.ofSeconds(10))) {
            raw = live.read(false);
        }
        assertThat(sent()).allSatisfy(body -> assertThat(body).doesNotContain(HASH_B64));
        Path out = dir.resolve("collection");
        CollectionWriter.write(raw, out);
        String written = Files.readString(out.resolve("node-password-secrets.json"));
        assertThat(written).containsPattern("\"kind\" ?: ?\"Secret\"").containsPattern("\"apiVersion\" ?: ?\"v1\"")
                .containsPattern("\"type\" ?: ?\"rke2.cattle.io/node-password\"").contains("wrk-hash.node-password.rke2")
                .doesNotContain(HASH_B64).doesNotContain("PartialObject");
        ClusterState offline = DumpSource.load(List.of(out), null);
        ClusterState live = StateAssembler.assemble(raw);
        assertThat(offline.nodePasswordSecrets()).isEqualTo(live.nodePasswordSecrets());
    }

    @Test
    void aGetOfOneNodePasswordSecretIsATableRowToo() {
        try (KubeConnection c = KubeConnection.open(kubeconfig, null, Duration.ofSeconds(10))) {
            ApiReader reader = new ApiReader(c);
            SecretMeta found = reader.nodePasswordSecret("wrk-hash").orElseThrow();
            assertThat(found.type()).isEqualTo("rke2.cattle.io/node-password");
            assertThat(found.uid()).isNotBlank();
            assertThat(reader.nodePasswordSecret("no-such-node")).isEmpty();
            assertThat(reader.nodePasswordSecrets()).extracting(SecretMeta::name)
                    .contains("wrk-hash.node-password.rke2", "old-agent.node-password.k3s");
        }
        assertThat(api.requestAccepts()).filteredOn(r -> r.contains("/secrets")).hasSizeGreaterThanOrEqualTo(4)
                .allSatisfy(r -> assertThat(r).contains("Accept: " + MetadataOnly.ACCEPT));
        assertThat(sent()).allSatisfy(body -> assertThat(body).doesNotContain(HASH_B64));
    }

    @Test
    void aServerThatAnswersThePlainListIsStillReadWithTheValuesDropped() {
        // an apiserver (or a proxy in front of it) that ignores the Table request answers by the Accept header's
        // fallback, the plain list: read as before, values skipped while parsing, the type kept
        String list = "{\"kind\":\"SecretList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"7\"},"
                + "\"items\":[{\"metadata\":{\"name\":\"a.node-password.rke2\",\"namespace\":\"kube-system\","
                + "\"uid\":\"u-1\"},\"type\":\"rke2.cattle.io/node-password\",\"data\":{\"hash\":\"" + HASH_B64 + "\"}}]}";
        for (io.nodegate.source.json.KubeJson mode : List.of(io.nodegate.source.json.KubeJson.MODEL,
                io.nodegate.source.json.KubeJson.EVIDENCE)) {
            List<java.util.Map<String, Object>> items = new java.util.ArrayList<>();
            var envelope = mode.readMetadataList(new java.io.ByteArrayInputStream(list.getBytes(StandardCharsets.UTF_8)),
                    "LIST secrets", MetadataOnly.SECRET, items::add);
            assertThat(envelope.resourceVersion()).isEqualTo("7");
            assertThat(items).singleElement().satisfies(m -> {
                assertThat(m.toString()).doesNotContain(HASH_B64).contains("type=rke2.cattle.io/node-password");
                assertThat(m).doesNotContainKey("data");
            });
        }
    }

    /** A Table that cannot give what the model needs is a broken answer, never a list of fewer or untyped Secrets. */
    @Test
    void aTableWithoutTheTypeColumnOrWithoutRowObjectsIsABrokenAnswer() {
        String noType = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{},\"columnDefinitions\":"
                + "[{\"name\":\"Name\"},{\"name\":\"Age\"}],\"rows\":[{\"cells\":[\"a\",\"1d\"],\"object\":"
                + "{\"kind\":\"PartialObjectMetadata\",\"metadata\":{\"name\":\"a\",\"uid\":\"u\"}}}]}";
        String noObject = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{},\"columnDefinitions\":"
                + "[{\"name\":\"Name\"},{\"name\":\"Type\"}],\"rows\":[{\"cells\":[\"a\",\"Opaque\"],\"object\":null}]}";
        String neither = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{}}";
        for (String body : List.of(noType, noObject, neither)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> io.nodegate.source.json.KubeJson.MODEL
                            .readMetadataList(new java.io.ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)),
                                    "LIST secrets", MetadataOnly.SECRET, m -> { }))
                    .isInstanceOf(io.nodegate.source.json.JsonReadException.class)
                    .hasMessageContaining("LIST secrets");
        }
    }
}
