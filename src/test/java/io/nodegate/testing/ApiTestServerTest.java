package io.nodegate.testing;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ApiTestServerTest {

    private ApiTestServer api;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        api = ApiTestServer.start();
        client = api.newClient();
    }

    @AfterEach
    void stop() {
        client.close();
        api.close();
    }

    private static Pod pod(String ns, String name, String node) {
        return new PodBuilder().withNewMetadata().withNamespace(ns).withName(name).addToLabels("app", name.substring(0, 1))
                .endMetadata().withNewSpec().withNodeName(node).endSpec().build();
    }

    @Test
    void pagesListsWithLimitAndContinue() {
        for (int i = 0; i < 7; i++) {
            api.create(new NodeBuilder().withNewMetadata().withName("n" + i).endMetadata().build());
        }
        List<String> names = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            var page = client.nodes().list(new ListOptionsBuilder().withLimit(3L).withContinue(token).build());
            page.getItems().forEach(n -> names.add(n.getMetadata().getName()));
            token = page.getMetadata().getContinue();
            pages++;
            if (token != null && token.isEmpty()) {
                token = null;
            }
        } while (token != null);
        assertThat(pages).isEqualTo(3);
        assertThat(names).containsExactly("n0", "n1", "n2", "n3", "n4", "n5", "n6");
        assertThat(api.requests("GET", "/api/v1/nodes")).isEqualTo(3);
        // setup requests are not counted
        api.client().nodes().list();
        assertThat(api.requests("GET", "/api/v1/nodes")).isEqualTo(3);
    }

    /**
     * What nodegate's LIST rule relies on, as kube-apiserver sends it: the list kind in the collection's group version
     * (never the CRUD mock's "List"), a resourceVersion on every page, the first page's on every continue page even
     * after a write in between (the pages are one snapshot), and 410 for a continue token older than a compaction.
     */
    @Test
    void listsAnswerTheirListKindAndEveryPageCarriesTheFirstPagesResourceVersion() throws Exception {
        JsonMapper json = JsonMapper.builder().build();
        JsonNode empty = json.readTree(get("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", null)[1]);
        assertThat(empty.path("kind").asString()).isEqualTo("LeaseList");
        assertThat(empty.path("apiVersion").asString()).isEqualTo("coordination.k8s.io/v1");
        assertThat(empty.path("metadata").path("resourceVersion").asString()).isNotEmpty();
        for (int i = 0; i < 5; i++) {
            api.create(new NodeBuilder().withNewMetadata().withName("n" + i).endMetadata().build());
        }
        JsonNode first = json.readTree(get("/api/v1/nodes?limit=2", null)[1]);
        assertThat(first.path("kind").asString()).isEqualTo("NodeList");
        assertThat(first.path("apiVersion").asString()).isEqualTo("v1");
        String version = first.path("metadata").path("resourceVersion").asString();
        String token = first.path("metadata").path("continue").asString();
        // kube-apiserver's token: base64url of {"v":"meta.k8s.io/v1","rv":REVISION,"start":KEY}
        JsonNode decoded = json.readTree(java.util.Base64.getUrlDecoder().decode(token));
        assertThat(decoded.path("v").asString()).isEqualTo("meta.k8s.io/v1");
        assertThat(decoded.path("rv").asString()).isEqualTo(version);

        api.create(new NodeBuilder().withNewMetadata().withName("n9").endMetadata().build());
        JsonNode second = json.readTree(get("/api/v1/nodes?limit=2&continue=" + token, null)[1]);
        assertThat(second.path("metadata").path("resourceVersion").asString()).isEqualTo(version);
        assertThat(second.path("items").findValuesAsString("name")).containsExactly("n2", "n3");
        JsonNode fresh = json.readTree(get("/api/v1/nodes?limit=2", null)[1]);
        assertThat(Long.parseLong(fresh.path("metadata").path("resourceVersion").asString()))
                .isGreaterThan(Long.parseLong(version));
        // the Table of a LIST keeps the list's version and token
        JsonNode table = json.readTree(get("/api/v1/nodes?limit=2", "application/json;as=Table;g=meta.k8s.io;v=v1")[1]);
        assertThat(table.path("kind").asString()).isEqualTo("Table");
        assertThat(table.path("metadata").path("resourceVersion").asString()).isNotEmpty();

        api.expireWatches();
        String[] expired = get("/api/v1/nodes?limit=2&continue=" + token, null);
        assertThat(expired[0]).isEqualTo("410");
        assertThat(expired[1]).contains("too old to display a consistent list result");
        assertThat(get("/api/v1/nodes?limit=2&continue=bm90LWEtdG9rZW4", null)[0]).isEqualTo("400");
    }

    @Test
    void honoursNodeNameFieldSelectorAndSetBasedLabels() {
        api.create(pod("a", "x1", "w1"), pod("b", "y2", "w2"), pod("a", "x3", "w1"));
        PodList onW1 = client.pods().inAnyNamespace().withField("spec.nodeName", "w1").list();
        assertThat(onW1.getItems()).extracting(p -> p.getMetadata().getName()).containsExactly("x1", "x3");
        PodList notX = client.pods().inAnyNamespace().withLabelNotIn("app", "x").list();
        assertThat(notX.getItems()).extracting(p -> p.getMetadata().getName()).containsExactly("y2");
        assertThatThrownBy(() -> client.nodes().withField("spec.nodeName", "w1").list())
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("field label not supported");
    }

    @Test
    void missingNamespaceIsNotFoundAndInjectedFailuresAnswer() {
        assertThat(client.namespaces().withName("cattle-system").get()).isNull();
        api.failOn("GET", "/api/v1/nodes", 403);
        assertThatThrownBy(() -> client.nodes().list())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
        api.unserve("/apis/storage.k8s.io/v1/csinodes");
        assertThatThrownBy(() -> client.storage().v1().csiNodes().list())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(404));
        assertThat(client.getKubernetesVersion().getGitVersion()).isEqualTo("v1.34.1+rke2r1");
    }

    @Test
    void keepsStatusGivenAtCreate() {
        api.create(new NodeBuilder().withNewMetadata().withName("s").endMetadata().withNewStatus()
                .addNewCondition().withType("Ready").withStatus("Unknown").endCondition().endStatus().build());
        assertThat(client.nodes().withName("s").get().getStatus().getConditions().get(0).getStatus())
                .isEqualTo("Unknown");
    }

    /** GET with an Accept header, over plain HTTP: status and body. */
    private String[] get(String pathAndQuery, String accept) throws Exception {
        var c = (java.net.HttpURLConnection) java.net.URI.create(api.url() + pathAndQuery).toURL().openConnection();
        if (accept != null) {
            c.setRequestProperty("Accept", accept);
        }
        int code = c.getResponseCode();
        var in = code >= 400 ? c.getErrorStream() : c.getInputStream();
        return new String[]{Integer.toString(code), in == null ? "" : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8),
                String.valueOf(c.getHeaderField("Content-Type"))};
    }

    /** kube-apiserver's content negotiation, which nodegate's metadata-only Secret reads rely on. */
    @Test
    void answersTablesAndMetadataOnlyWhenAskedAndWholeObjectsOtherwise() throws Exception {
        api.create(new io.fabric8.kubernetes.api.model.SecretBuilder().withNewMetadata().withNamespace("kube-system")
                .withName("s1").endMetadata().withType("k3s.cattle.io/node-password").addToData("hash", "c2VjcmV0LXZhbHVl")
                .build());
        String list = "/api/v1/namespaces/kube-system/secrets";
        String[] whole = get(list, null);
        assertThat(whole[0]).isEqualTo("200");
        assertThat(whole[1]).contains("c2VjcmV0LXZhbHVl");

        String[] table = get(list + "?limit=10", "application/json;as=Table;g=meta.k8s.io;v=v1,application/json");
        assertThat(table[0]).isEqualTo("200");
        assertThat(table[2]).contains("as=Table");
        assertThat(table[1]).contains("\"kind\":\"Table\"", "\"name\":\"Type\"", "k3s.cattle.io/node-password",
                "\"kind\":\"PartialObjectMetadata\"").doesNotContain("c2VjcmV0LXZhbHVl");
        assertThat(get(list + "?includeObject=None", "application/json;as=Table;g=meta.k8s.io;v=v1")[1])
                .contains("\"object\":null");

        String[] partialList = get(list, "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
        assertThat(partialList[1]).contains("PartialObjectMetadataList", "\"name\":\"s1\"")
                .doesNotContain("c2VjcmV0LXZhbHVl").doesNotContain("node-password\"");
        // a PartialObjectMetadata (one object) cannot answer a LIST: with no other range acceptable, 406
        assertThat(get(list, "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")[0]).isEqualTo("406");
        // ... and with a fallback range, the fallback is served
        assertThat(get(list, "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json")[1])
                .contains("c2VjcmV0LXZhbHVl");

        String[] one = get(list + "/s1", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
        assertThat(one[0]).isEqualTo("200");
        assertThat(one[1]).contains("\"kind\":\"PartialObjectMetadata\"", "\"name\":\"s1\"")
                .doesNotContain("c2VjcmV0LXZhbHVl");
        assertThat(get(list + "/s1", "application/json;as=Table;g=meta.k8s.io;v=v1")[1]).contains("\"rows\":[{")
                .contains("k3s.cattle.io/node-password").doesNotContain("c2VjcmV0LXZhbHVl");
        assertThat(get(list + "/nope", "application/json;as=Table;g=meta.k8s.io;v=v1")[0]).isEqualTo("404");
    }

    // ------------------------------------------------------------------------------------ HTTP streaming watches

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static Node node(String name, String... labels) {
        NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
        for (int i = 0; i + 1 < labels.length; i += 2) {
            b.editMetadata().addToLabels(labels[i], labels[i + 1]).endMetadata();
        }
        return b.build();
    }

    /** The resourceVersion a plain LIST answers, as a client reads it before it watches. */
    private String listVersion(String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(api.url() + path).toURL().openConnection();
        try (InputStream in = c.getInputStream()) {
            return JSON.readTree(in.readAllBytes()).path("metadata").path("resourceVersion").asString();
        }
    }

    /**
     * A plain {@link HttpURLConnection} watch read one line at a time, the way nodegate's lean client and kubectl read
     * a watch. Lines are read on the test's own thread: {@link HttpURLConnection#disconnect()} blocks while another
     * thread is inside a read of a chunked body (the JDK's ChunkedInputStream holds its lock while it waits), so a
     * reader thread could not be hung up on.
     */
    private static final class HttpWatch implements AutoCloseable {
        final HttpURLConnection connection;
        final int code;
        final BufferedReader body;
        String errorBody;

        HttpWatch(String url, String bearerToken) throws IOException {
            this(url, bearerToken, null);
        }

        HttpWatch(String url, String bearerToken, String accept) throws IOException {
            this(url, bearerToken, accept, 15_000);
        }

        HttpWatch(String url, String bearerToken, String accept, int readTimeoutMillis) throws IOException {
            connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
            if (accept != null) {
                connection.setRequestProperty("Accept", accept);
            }
            connection.setConnectTimeout(5_000);
            connection.setReadTimeout(readTimeoutMillis);
            if (bearerToken != null) {
                connection.setRequestProperty("Authorization", "Bearer " + bearerToken);
            }
            code = connection.getResponseCode();
            if (code != 200) {
                try (InputStream err = connection.getErrorStream()) {
                    errorBody = err == null ? "" : new String(err.readAllBytes(), StandardCharsets.UTF_8);
                }
                body = null;
                return;
            }
            body = new BufferedReader(new InputStreamReader(connection.getInputStream(), StandardCharsets.UTF_8));
        }

        /** The next event; fails when the stream ends first (or nothing comes within the read timeout). */
        JsonNode next() throws IOException {
            String line = body.readLine();
            assertThat(line).as("a watch event before the end of the stream").isNotNull();
            return JSON.readTree(line);
        }

        /** Reads to the end of the body: true when it ends cleanly (last chunk) with no further event. */
        boolean endsWithoutMoreEvents() throws IOException {
            return body.readLine() == null;
        }

        @Override
        public void close() {
            connection.disconnect();
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("timed out waiting for " + what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static long version(JsonNode event) {
        return Long.parseLong(event.path("object").path("metadata").path("resourceVersion").asString());
    }

    @Test
    void httpWatchStreamsCreateUpdateDeleteInOrderWithRisingVersionsAndNoReplayBeforeItsVersion() throws Exception {
        api.create(node("before"));
        String from = listVersion("/api/v1/nodes");
        try (HttpWatch watch = new HttpWatch(api.url() + "/api/v1/nodes?watch=1&resourceVersion=" + from, null)) {
            assertThat(watch.code).isEqualTo(200);
            assertThat(watch.connection.getContentType()).isEqualTo("application/json");
            assertThat(watch.connection.getHeaderField("Transfer-Encoding")).isEqualTo("chunked");
            await("the watch to open", () -> api.openWatches() == 1);
            api.create(node("n1"));
            api.apply(node("n1", "role", "worker"));
            api.delete(node("n1"));
            JsonNode added = watch.next();
            JsonNode modified = watch.next();
            JsonNode deleted = watch.next();
            // "before" was in the LIST the client started from, so a watch from that version does not repeat it
            assertThat(List.of(added, modified, deleted)).extracting(e -> e.path("type").asString() + " "
                    + e.path("object").path("metadata").path("name").asString())
                    .containsExactly("ADDED n1", "MODIFIED n1", "DELETED n1");
            assertThat(added.path("object").path("kind").asString()).isEqualTo("Node");
            assertThat(version(added)).isGreaterThan(Long.parseLong(from));
            assertThat(version(modified)).isGreaterThan(version(added));
            assertThat(modified.path("object").path("metadata").path("labels").path("role").asString())
                    .isEqualTo("worker");
            assertThat(version(deleted)).isGreaterThanOrEqualTo(version(modified));
        }
        // a watch without a version starts with the current state, as a real server's does
        try (HttpWatch fresh = new HttpWatch(api.url() + "/api/v1/nodes?watch=true", null)) {
            JsonNode first = fresh.next();
            assertThat(first.path("type").asString()).isEqualTo("ADDED");
            assertThat(first.path("object").path("metadata").path("name").asString()).isEqualTo("before");
        }
        assertThat(api.requestLog()).contains("GET /api/v1/nodes?watch=1&resourceVersion=" + from);
        assertThat(api.requests("GET", "/api/v1/nodes")).isEqualTo(3);
    }

    @Test
    void httpWatchFromAnExpiredVersionIsGoneAndExpiringOpenWatchesSendsError410ThenEndsTheStream() throws Exception {
        api.create(node("n1"));
        String from = listVersion("/api/v1/nodes");
        try (HttpWatch watch = new HttpWatch(api.url() + "/api/v1/nodes?watch=true&resourceVersion=" + from, null)) {
            await("the watch to open", () -> api.openWatches() == 1);
            api.expireWatches();
            JsonNode error = watch.next();
            assertThat(error.path("type").asString()).isEqualTo("ERROR");
            assertThat(error.path("object").path("kind").asString()).isEqualTo("Status");
            assertThat(error.path("object").path("code").asInt()).isEqualTo(410);
            assertThat(error.path("object").path("reason").asString()).isEqualTo("Expired");
            assertThat(watch.endsWithoutMoreEvents()).as("stream ended after the ERROR").isTrue();
            await("the expired watch to be gone", () -> api.openWatches() == 0);
        }
        try (HttpWatch again = new HttpWatch(api.url() + "/api/v1/nodes?watch=true&resourceVersion=" + from, null)) {
            assertThat(again.code).isEqualTo(410);
            JsonNode status = JSON.readTree(again.errorBody);
            assertThat(status.path("kind").asString()).isEqualTo("Status");
            assertThat(status.path("reason").asString()).isEqualTo("Expired");
            assertThat(status.path("code").asInt()).isEqualTo(410);
        }
        assertThat(api.openWatches()).isZero();
    }

    /**
     * kube-apiserver transforms every watch event's object as it would a GET's answer (response.go,
     * watchEmbeddedEncoder): one-row Tables with the columns on the first event only, or PartialObjectMetadata;
     * ERROR Statuses unchanged; without such an Accept header the objects come whole.
     */
    @Test
    void httpWatchHonoursTheAcceptHeaderAsKubeApiserverDoes() throws Exception {
        api.create(new io.fabric8.kubernetes.api.model.SecretBuilder().withNewMetadata().withName("s0")
                .withNamespace("kube-system").endMetadata().withType("Opaque").addToData("k", "dmFsdWU=").build());
        String from = listVersion("/api/v1/namespaces/kube-system/secrets");
        String secrets = api.url() + "/api/v1/namespaces/kube-system/secrets?watch=true&includeObject=Metadata"
                + "&resourceVersion=" + from;
        try (HttpWatch tables = new HttpWatch(secrets, null, "application/json;as=Table;g=meta.k8s.io;v=v1,application/json");
             HttpWatch partial = new HttpWatch(secrets, null, "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
             HttpWatch whole = new HttpWatch(secrets, null, "application/json")) {
            await("the watches to open", () -> api.openWatches() == 3);
            api.create(new io.fabric8.kubernetes.api.model.SecretBuilder().withNewMetadata().withName("s1")
                    .withNamespace("kube-system").endMetadata().withType("Opaque").addToData("k", "dmFsdWU=").build());
            api.delete(new io.fabric8.kubernetes.api.model.SecretBuilder().withNewMetadata().withName("s1")
                    .withNamespace("kube-system").endMetadata().build());
            JsonNode firstTable = tables.next();
            JsonNode secondTable = tables.next();
            assertThat(firstTable.path("type").asString()).isEqualTo("ADDED");
            assertThat(firstTable.path("object").path("kind").asString()).isEqualTo("Table");
            assertThat(firstTable.path("object").path("columnDefinitions").findValuesAsString("name"))
                    .containsExactly("Name", "Type", "Data", "Age");
            assertThat(firstTable.path("object").path("rows")).singleElement().satisfies(row -> {
                assertThat(row.path("cells").get(0).asString()).isEqualTo("s1");
                assertThat(row.path("cells").get(1).asString()).isEqualTo("Opaque");
                assertThat(row.path("object").path("kind").asString()).isEqualTo("PartialObjectMetadata");
            });
            assertThat(secondTable.path("type").asString()).isEqualTo("DELETED");
            JsonNode laterColumns = secondTable.path("object").get("columnDefinitions");
            assertThat(laterColumns != null && laterColumns.isNull()).as("columns on the first event only, null after "
                    + "it as kube-apiserver sends them: " + secondTable).isTrue();
            assertThat(secondTable.path("object").path("rows")).hasSize(1);
            assertThat(firstTable.toString() + secondTable).doesNotContain("dmFsdWU=");

            JsonNode meta = partial.next();
            assertThat(meta.path("object").path("kind").asString()).isEqualTo("PartialObjectMetadata");
            assertThat(meta.toString()).doesNotContain("dmFsdWU=");
            JsonNode object = whole.next();
            assertThat(object.path("object").path("kind").asString()).isEqualTo("Secret");
            assertThat(object.path("object").path("data").path("k").asString()).isEqualTo("dmFsdWU=");

            api.expireWatches();
            assertThat(tables.next().path("object").path("kind").asString()).as("an ERROR's Status is not a Table")
                    .isEqualTo("Status");
        }
    }

    @Test
    void httpWatchGetsBookmarksWhenItAllowsThem() throws Exception {
        api.bookmarkEvery(Duration.ofMillis(100));
        api.create(node("n1"));
        String from = listVersion("/api/v1/nodes");
        try (HttpWatch watch = new HttpWatch(api.url()
                + "/api/v1/nodes?watch=true&allowWatchBookmarks=true&resourceVersion=" + from, null)) {
            JsonNode bookmark = watch.next();
            assertThat(bookmark.path("type").asString()).isEqualTo("BOOKMARK");
            assertThat(bookmark.path("object").path("kind").asString()).isEqualTo("Node");
            assertThat(bookmark.path("object").path("metadata").path("resourceVersion").asString()).isEqualTo(from);
        }
    }

    @Test
    void httpWatchAnswersUnauthorizedNotServedAndInjectedFailuresLikeAnyRequest() throws Exception {
        api.requireBearerToken("sa-token");
        try (HttpWatch anonymous = new HttpWatch(api.url() + "/api/v1/nodes?watch=true", null)) {
            assertThat(anonymous.code).isEqualTo(401);
            assertThat(JSON.readTree(anonymous.errorBody).path("reason").asString()).isEqualTo("Unauthorized");
        }
        try (HttpWatch withToken = new HttpWatch(api.url() + "/api/v1/nodes?watch=true", "sa-token")) {
            assertThat(withToken.code).isEqualTo(200);
        }
        api.failOn("GET", "/api/v1/nodes", 500);
        try (HttpWatch failing = new HttpWatch(api.url() + "/api/v1/nodes?watch=true", "sa-token")) {
            assertThat(failing.code).isEqualTo(500);
            JsonNode status = JSON.readTree(failing.errorBody);
            assertThat(status.path("code").asInt()).isEqualTo(500);
            assertThat(status.path("message").asString()).contains("injected failure");
        }
        api.unserve("/apis/storage.k8s.io/v1/csinodes");
        try (HttpWatch unserved = new HttpWatch(api.url() + "/apis/storage.k8s.io/v1/csinodes?watch=true",
                "sa-token")) {
            assertThat(unserved.code).isEqualTo(404);
        }
        assertThat(api.requests("GET", "/api/v1/nodes")).isEqualTo(3);
        assertThat(api.openWatches()).isZero();
    }

    @Test
    void timeoutSecondsEndsTheStreamCleanly() throws Exception {
        long start = System.nanoTime();
        try (HttpWatch watch = new HttpWatch(api.url() + "/api/v1/nodes?watch=true&timeoutSeconds=1", null)) {
            assertThat(watch.code).isEqualTo(200);
            assertThat(watch.endsWithoutMoreEvents()).isTrue();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(900));
        await("the timed-out watch to be gone", () -> api.openWatches() == 0);
    }

    @Test
    void aClientThatHangsUpEndsTheServerSideWatch() throws Exception {
        api.create(node("n1"));
        HttpWatch watch = new HttpWatch(api.url() + "/api/v1/nodes?watch=true", null);
        HttpWatch other = new HttpWatch(api.url() + "/api/v1/nodes?watch=true", null);
        await("two watches", () -> api.openWatches() == 2);
        assertThat(watch.next().path("type").asString()).isEqualTo("ADDED");
        watch.close();
        await("one watch left", () -> api.openWatches() == 1);
        other.close();
        await("no watch left", () -> api.openWatches() == 0);
    }

    @Test
    void aLabelSelectedHttpWatchSeesOnlyItsObjects() throws Exception {
        try (HttpWatch watch = new HttpWatch(api.url() + "/api/v1/nodes?watch=true&labelSelector=pool%3Dedge",
                null)) {
            await("the watch to open", () -> api.openWatches() == 1);
            api.create(node("core-1", "pool", "core"), node("edge-1", "pool", "edge"), node("core-2", "pool", "core"));
            api.create(node("edge-2", "pool", "edge"));
            // events come in write order, so edge-2 right after edge-1 shows that core-2 was not sent
            assertThat(watch.next().path("object").path("metadata").path("name").asString()).isEqualTo("edge-1");
            assertThat(watch.next().path("object").path("metadata").path("name").asString()).isEqualTo("edge-2");
        }
    }

    /** A raw HTTP/1.1 request whose answer is read with a short timeout: what arrives, or that nothing did. */
    private String rawGet(String target, int readTimeoutMillis) throws IOException {
        URI base = URI.create(api.url());
        try (java.net.Socket socket = new java.net.Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(readTimeoutMillis);
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            try {
                int n;
                while ((n = socket.getInputStream().read(buffer)) >= 0) {
                    got.write(buffer, 0, n);
                }
                return got.toString(StandardCharsets.UTF_8) + "<EOF>";
            } catch (java.net.SocketTimeoutException silent) {
                return got.toString(StandardCharsets.UTF_8) + "<SILENT>";
            }
        }
    }

    @Test
    void aFrozenWatchStaysOpenAndSilentForGoodWhileTheStoreMovesOn() throws Exception {
        api.create(node("n1"));
        String from = listVersion("/api/v1/nodes");
        try (HttpWatch watch = new HttpWatch(api.url() + "/api/v1/nodes?watch=true&timeoutSeconds=1&resourceVersion="
                + from, null, null, 2_500)) {
            await("the watch to open", () -> api.openWatchStreams() == 1);
            api.freezeOpenWatches();
            api.create(node("n2"));
            // neither the new Node nor the end of the stream at its timeoutSeconds (1 s): a read that times out
            assertThatThrownBy(watch::next).isInstanceOf(java.net.SocketTimeoutException.class);
            assertThat(api.openWatchStreams()).as("still open").isEqualTo(1);
        }
        await("the client leaving ends it", () -> api.openWatchStreams() == 0);
        // the store moved on meanwhile: a new watch sees it
        try (HttpWatch again = new HttpWatch(api.url() + "/api/v1/nodes?watch=true&resourceVersion=" + from, null)) {
            assertThat(again.next().path("object").path("metadata").path("name").asString()).isEqualTo("n2");
        }
    }

    @Test
    void heldRequestsAreNeverAnsweredWhileSetupAndOtherRequestsAre() throws Exception {
        api.holdRequests(r -> r.startsWith("GET /api/v1/nodes"));
        assertThat(rawGet("/api/v1/nodes?limit=1", 1_000)).isEqualTo("<SILENT>");
        api.create(node("n1"));
        assertThat(client.leases().inNamespace("default").list().getItems()).isEmpty();
        api.answerRequests();
        assertThat(rawGet("/api/v1/nodes?limit=1", 5_000)).startsWith("HTTP/1.1 200").contains("\"n1\"");
    }

    @Test
    void everyWatchCanEndAtOnceWithNoEvent() throws Exception {
        api.create(node("n1"));
        api.endWatchesAtOnce(true);
        long start = System.nanoTime();
        try (HttpWatch watch = new HttpWatch(api.url() + "/api/v1/nodes?watch=true", null)) {
            assertThat(watch.code).isEqualTo(200);
            assertThat(watch.endsWithoutMoreEvents()).isTrue();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(api.requests("GET", "/api/v1/nodes")).as("counted as a watch").isEqualTo(1);
        api.endWatchesAtOnce(false);
        try (HttpWatch watch = new HttpWatch(api.url() + "/api/v1/nodes?watch=true", null)) {
            assertThat(watch.next().path("type").asString()).isEqualTo("ADDED");
        }
    }

    @Test
    void droppedWatchesEndCleanly() throws Exception {
        try (HttpWatch watch = new HttpWatch(api.url() + "/api/v1/nodes?watch=true", null)) {
            await("the watch to open", () -> api.openWatchStreams() == 1);
            api.dropOpenWatches();
            assertThat(watch.endsWithoutMoreEvents()).isTrue();
        }
    }

    /**
     * A LIST without a resourceVersion carries the store's current version, as kube-apiserver's consistent LIST
     * carries etcd's current revision (apiserver storage/util.go GetCurrentResourceVersionFromStorage reads it with a
     * LIST of limit 1): a write of any other kind moves it.
     */
    @Test
    void aConsistentLimitOneListCarriesTheStoresCurrentVersion() throws Exception {
        api.create(node("n1"), node("n2"));
        String nodes = listVersion("/api/v1/nodes?limit=1");
        api.create(new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder().withNewMetadata()
                .withName("n1").withNamespace("kube-node-lease").endMetadata().build());
        String lease = client.leases().inNamespace("kube-node-lease").withName("n1").get().getMetadata()
                .getResourceVersion();
        String after = listVersion("/api/v1/nodes?limit=1");
        assertThat(Long.parseLong(after)).as("moved by the Lease, not a Node").isGreaterThan(Long.parseLong(nodes))
                .isEqualTo(Long.parseLong(lease));
    }

    @Test
    void aDelayedAnswerComesLateButItsWriteLandsAtOnce() throws Exception {
        List<Long> arrived = new java.util.concurrent.CopyOnWriteArrayList<>();
        api.onRequest((request, body) -> {
            if (request.startsWith("POST /api/v1/nodes")) {
                arrived.add(System.nanoTime());
            }
        });
        api.delayAnswers(r -> r.startsWith("POST /api/v1/nodes"), Duration.ofMillis(1500));
        long start = System.nanoTime();
        Thread writer = new Thread(() -> client.nodes().resource(node("slow")).create());
        writer.start();
        await("the write to land", () -> api.client().nodes().withName("slow").get() != null);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1400));
        writer.join(10_000);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
        assertThat(arrived).hasSize(1);
    }
}
