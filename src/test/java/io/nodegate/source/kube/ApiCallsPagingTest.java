package io.nodegate.source.kube;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.nodegate.CollectionException;
import io.nodegate.source.json.KubeJson;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The one pagination rule of both LIST readers: follow continue tokens to the end, and treat a server that sends a
 * token it already sent as broken (the list would never end) rather than looping or returning what it has; and the
 * one rule for what a page must be ({@link #servingPages}): what kube-apiserver sends, else a broken answer.
 */
class ApiCallsPagingTest {

    @TempDir
    Path dir;
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    /**
     * A small page cap for every test here: were the repeated-token check broken, its test would run into this cap
     * and fail at once on the wrong message, instead of looping through the production cap of 10,000 pages
     * (about 7 minutes).
     */
    private static final int TEST_PAGE_CAP = 20;

    private final AtomicInteger pagesServed = new AtomicInteger();
    private final List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Serves node pages: page i carries continue token tokens[i] (null = last page). */
    private ApiCalls serving(String... tokens) throws Exception {
        return serving(i -> tokens[Math.min(i, tokens.length - 1)]);
    }

    /** Serves node pages: page i carries continue token {@code tokenOfPage(i)} (null = last page). */
    private ApiCalls serving(java.util.function.IntFunction<String> tokenOfPage) throws Exception {
        return servingBodies(i -> {
            String t = tokenOfPage.apply(i);
            String token = t == null ? "" : ",\"continue\":\"" + t + "\"";
            return "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"1\"" + token
                    + "},\"items\":[{\"metadata\":{\"name\":\"node-" + i + "\",\"uid\":\"u" + i + "\"}}]}";
        });
    }

    /** Answers request i (0-based) with 200 and {@code bodyOfRequest(i)}, whatever was asked; the URLs are kept. */
    private ApiCalls servingBodies(java.util.function.IntFunction<String> bodyOfRequest) throws Exception {
        stop();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            int i = pagesServed.getAndIncrement();
            asked.add(exchange.getRequestURI().toString());
            byte[] body = bodyOfRequest.apply(i).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        Path kubeconfig = ApiTestServer.writeKubeconfig(dir.resolve("kubeconfig"), "c",
                "http://127.0.0.1:" + server.getAddress().getPort());
        return new ApiCalls(KubeConnection.open(kubeconfig, null, Duration.ofSeconds(10)), 1, TEST_PAGE_CAP);
    }

    private static String name(java.util.Map<String, Object> node) {
        return (String) ((java.util.Map<?, ?>) node.get("metadata")).get("name");
    }

    @Test
    void followsContinueTokensToTheLastPage() throws Exception {
        List<String> names = serving("a", "b", null).listPlain(Kinds.NODES, ApiCallsPagingTest::name);
        assertThat(names).containsExactly("node-0", "node-1", "node-2");
    }

    @Test
    void aRepeatedContinueTokenIsABrokenAnswerNotAnEndlessOrPartialList() throws Exception {
        ApiCalls api = serving("a", "a");
        assertThatThrownBy(() -> api.listPlain(Kinds.NODES, ApiCallsPagingTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("repeated a continue token")
                .hasMessageContaining("127.0.0.1");
        assertThat(pagesServed).hasValue(2);
    }

    @Test
    void aServerSendingAFreshContinueTokenForeverIsStoppedAtThePageCap() throws Exception {
        ApiCalls api = serving(i -> "page-" + (i + 1));
        assertThatThrownBy(() -> api.listPlain(Kinds.NODES, ApiCallsPagingTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("LIST nodes at http://127.0.0.1:")
                .hasMessageContaining("did not end after " + TEST_PAGE_CAP + " pages")
                .hasMessageContaining("never end");
        // exactly the cap: not one request more, and no partial list handed back
        assertThat(pagesServed).hasValue(TEST_PAGE_CAP);
    }

    @Test
    void aListOfExactlyTheCapInPagesIsReadWhole() throws Exception {
        List<String> names = serving(i -> i < TEST_PAGE_CAP - 1 ? "page-" + (i + 1) : null)
                .listPlain(Kinds.NODES, ApiCallsPagingTest::name);
        assertThat(names).hasSize(TEST_PAGE_CAP).startsWith("node-0").endsWith("node-" + (TEST_PAGE_CAP - 1));
    }

    /**
     * Serves the given bodies in turn (the last one again when they run out). Lying pages: a LIST page that
     * kube-apiserver would never send is a broken answer, whichever reader asks (the plain readers of the model, the
     * lifecycle and the watch; the typed reader of probe, pods-on-node and Rancher; the one-item probe of an optional
     * API): a page without a resourceVersion (the empty {@code {"kind":"List","metadata":{},"items":[]}} a proxy
     * answered in the field), a page of another kind, a continue page at another resourceVersion than the first. Each
     * names the server, the URL and what was wrong, and nothing of that LIST is returned.
     */
    private ApiCalls servingPages(String... pages) throws Exception {
        pagesServed.set(0);
        asked.clear();
        return servingBodies(i -> pages[Math.min(i, pages.length - 1)]);
    }

    private String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** A page as kube-apiserver writes it: kind and apiVersion, then metadata, then the items. */
    private static String page(String kind, String apiVersion, String resourceVersion, String continueToken,
                               String... names) {
        StringBuilder items = new StringBuilder();
        for (String n : names) {
            items.append(items.length() == 0 ? "" : ",").append("{\"metadata\":{\"name\":\"").append(n)
                    .append("\",\"uid\":\"uid-").append(n).append("\",\"resourceVersion\":\"3\"}}");
        }
        return "{\"kind\":\"" + kind + "\",\"apiVersion\":\"" + apiVersion + "\",\"metadata\":{"
                + (resourceVersion == null ? "" : "\"resourceVersion\":\"" + resourceVersion + "\"")
                + (continueToken == null ? "" : (resourceVersion == null ? "" : ",") + "\"continue\":\"" + continueToken
                + "\"") + "},\"items\":[" + items + "]}";
    }

    @Test
    void theEmptyListAProxyAnsweredIsABrokenAnswerNotAClusterWithoutNodes() throws Exception {
        ApiCalls api = servingPages("{\"kind\":\"List\",\"metadata\":{},\"items\":[]}");
        assertThatThrownBy(() -> api.listPlain(Kinds.NODES, ApiCallsPagingTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageStartingWith("LIST nodes at " + url() + ": broken answer: page 1 (GET " + url()
                        + "/api/v1/nodes?limit=1)")
                .hasMessageContaining("it is a List (null), not the NodeList (v1) a LIST of it answers")
                .hasMessageContaining("it carries no metadata.resourceVersion")
                .hasMessageContaining("Nothing this LIST returned is used");
    }

    @Test
    void aPageOfTheRightKindWithoutAResourceVersionIsABrokenAnswer() throws Exception {
        ApiCalls api = servingPages(page("NodeList", "v1", null, null, "n1"));
        assertThatThrownBy(() -> api.listPlain(Kinds.NODES, ApiCallsPagingTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("page 1 (GET " + url() + "/api/v1/nodes?limit=1): it carries no "
                        + "metadata.resourceVersion")
                .hasMessageNotContaining("not the NodeList");
    }

    @Test
    void aPageOfAnotherKindOrGroupVersionIsABrokenAnswer() throws Exception {
        ApiCalls pods = servingPages(page("PodList", "v1", "7", null, "n1"));
        assertThatThrownBy(() -> pods.listPlain(Kinds.NODES, ApiCallsPagingTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("it is a PodList (v1), not the NodeList (v1) a LIST of it answers")
                .hasMessageNotContaining("resourceVersion");
        // Leases are coordination.k8s.io/v1: the right kind name in the core group is another answer
        ApiCalls leases = servingPages(page("LeaseList", "v1", "7", null, "n1"));
        assertThatThrownBy(() -> leases.listPlain(Kinds.NODE_LEASES, ApiCallsPagingTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("LIST leases in kube-node-lease at " + url())
                .hasMessageContaining("it is a LeaseList (v1), not the LeaseList (coordination.k8s.io/v1)");
    }

    @Test
    void aSecondPageThatLiesFailsTheWholeListNamingThatPage() throws Exception {
        String first = page("NodeList", "v1", "41", "t1", "n1");
        for (String second : List.of(page("NodeList", "v1", "42", null, "n2"), page("NodeList", "v1", null, null),
                "{\"kind\":\"List\",\"metadata\":{},\"items\":[]}", page("PodList", "v1", "41", null, "n2"))) {
            pagesServed.set(0);
            asked.clear();
            ApiCalls api = servingPages(first, second);
            assertThatThrownBy(() -> api.listPlain(Kinds.NODES, ApiCallsPagingTest::name))
                    .as(second)
                    .isInstanceOf(CollectionException.class)
                    .hasMessageContaining("page 2 (GET " + url() + "/api/v1/nodes?limit=1&continue=t1)")
                    .satisfies(e -> assertThat(e.getMessage()).containsAnyOf(
                            "it is at resourceVersion 42 but page 1 was at 41: the pages of one LIST come from one "
                                    + "snapshot", "it carries no metadata.resourceVersion", "not the NodeList"));
            assertThat(asked).hasSize(2);
        }
    }

    @Test
    void pagesAtOneResourceVersionAreOneListAndItsVersionIsKept() throws Exception {
        ApiCalls api = servingPages(page("NodeList", "v1", "41", "t1", "n1"), page("NodeList", "v1", "41", null, "n2"));
        ApiCalls.Listed<String> listed = api.listVersioned(Kinds.NODES, KubeJson.MODEL, ApiCallsPagingTest::name);
        assertThat(listed.items()).containsExactly("n1", "n2");
        assertThat(listed.resourceVersion()).isEqualTo("41");
    }

    @Test
    void secretsMayComeAsATableOrAsTheirOwnListButNothingElse() throws Exception {
        String table = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{\"resourceVersion\":\"9\"},"
                + "\"columnDefinitions\":[{\"name\":\"Name\"},{\"name\":\"Type\"}],\"rows\":[{\"cells\":[\"a\",\"Opaque\"],"
                + "\"object\":{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":"
                + "{\"name\":\"a\",\"namespace\":\"kube-system\",\"uid\":\"u-a\"}}}]}";
        assertThat(servingPages(table).listPlain(Kinds.KUBE_SYSTEM_SECRETS, ApiCallsPagingTest::name)).containsExactly("a");
        assertThat(servingPages(page("SecretList", "v1", "9", null, "a"))
                .listPlain(Kinds.KUBE_SYSTEM_SECRETS, ApiCallsPagingTest::name)).containsExactly("a");
        ApiCalls withoutVersion = servingPages(table.replace("\"resourceVersion\":\"9\"", ""));
        assertThatThrownBy(() -> withoutVersion.listPlain(Kinds.KUBE_SYSTEM_SECRETS, ApiCallsPagingTest::name))
                .isInstanceOf(CollectionException.class).hasMessageContaining("no metadata.resourceVersion");
        // a Table answers only a request that asked for one: Nodes are read whole, and a Table is no list of them
        ApiCalls nodesAsTable = servingPages(table);
        assertThatThrownBy(() -> nodesAsTable.listPlain(Kinds.NODES, ApiCallsPagingTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("LIST nodes: unparsable answer from API server " + url())
                .hasMessageContaining("no items array");
        // the Secrets' own list kind, but in another group version
        ApiCalls otherGroup = servingPages(page("SecretList", "meta.k8s.io/v1", "9", null, "a"));
        assertThatThrownBy(() -> otherGroup.listPlain(Kinds.KUBE_SYSTEM_SECRETS, ApiCallsPagingTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("it is a SecretList (meta.k8s.io/v1), not the SecretList (v1) or Table "
                        + "(meta.k8s.io/v1) a LIST of it answers");
    }

    @Test
    void theTypedReaderAppliesTheSameRule() throws Exception {
        ApiCalls api = servingPages(page("PodList", "v1", "5", "t1", "p1"), page("PodList", "v1", "6", null, "p2"));
        assertThatThrownBy(() -> api.listAll("LIST pods", "/api/v1/pods", Pod.class, null, "spec.nodeName=n1",
                Function.identity()))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("LIST pods at " + url() + ": broken answer: page 2")
                .hasMessageContaining("it is at resourceVersion 6 but page 1 was at 5");
        ApiCalls lying = servingPages("{\"kind\":\"List\",\"metadata\":{},\"items\":[]}");
        assertThatThrownBy(() -> lying.listAll("LIST management.cattle.io/v3 nodes", "/apis/management.cattle.io/v3/nodes",
                GenericKubernetesResource.class, "Node", null, null, Function.identity()))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("not the NodeList (management.cattle.io/v3)")
                .hasMessageContaining("no metadata.resourceVersion");
        assertThat(servingPages(page("NodeList", "management.cattle.io/v3", "8", null, "m1"))
                .listAll("LIST management.cattle.io/v3 nodes", "/apis/management.cattle.io/v3/nodes",
                        GenericKubernetesResource.class, "Node", null, null, r -> r.getMetadata().getName()))
                .containsExactly("m1");
    }

    @Test
    void anOptionalApiAnsweredByALieIsAnErrorNotNotServed() throws Exception {
        ApiCalls api = servingPages("{\"kind\":\"List\",\"metadata\":{},\"items\":[]}");
        assertThatThrownBy(() -> api.serves(Kinds.CSINODES))
                .isInstanceOf(CollectionException.class)
                .isNotInstanceOf(ApiCalls.NotFound.class)
                .hasMessageContaining("/apis/storage.k8s.io/v1/csinodes?limit=1")
                .hasMessageContaining("not the CSINodeList (storage.k8s.io/v1)");
    }
}
