package io.nodegate.source.live;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.nodegate.CollectionException;
import io.nodegate.source.Kinds;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A LIST page that kube-apiserver would never send is a broken answer, whichever reader asks (the plain readers of
 * the model, the lifecycle and the watch; the typed reader of probe, pods-on-node and Rancher; the one-item probe of
 * an optional API): a page without a resourceVersion (the empty {@code {"kind":"List","metadata":{},"items":[]}}
 * a proxy answered in the field), a page of another kind, a continue page at another resourceVersion than the
 * first. Each names the server, the URL and what was wrong, and nothing of that LIST is returned.
 */
class LyingListPagesTest {

    @TempDir
    Path dir;
    private HttpServer server;
    private final List<String> asked = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    /** Serves the given bodies in turn (the last one again when they run out), one per request, 200 JSON. */
    private ApiCalls serving(String... pages) throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            asked.add(exchange.getRequestURI().toString());
            byte[] body = pages[Math.min(asked.size() - 1, pages.length - 1)].getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        Path kubeconfig = ApiTestServer.writeKubeconfig(dir.resolve("kubeconfig"), "c",
                "http://127.0.0.1:" + server.getAddress().getPort());
        return new ApiCalls(KubeConnection.open(kubeconfig, null, Duration.ofSeconds(10)), 1, 20);
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

    private static String name(Map<String, Object> item) {
        return (String) ((Map<?, ?>) item.get("metadata")).get("name");
    }

    @Test
    void theEmptyListAProxyAnsweredIsABrokenAnswerNotAClusterWithoutNodes() throws Exception {
        ApiCalls api = serving("{\"kind\":\"List\",\"metadata\":{},\"items\":[]}");
        assertThatThrownBy(() -> api.listPlain(Kinds.NODES, LyingListPagesTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageStartingWith("LIST nodes at " + url() + ": broken answer: page 1 (GET " + url()
                        + "/api/v1/nodes?limit=1)")
                .hasMessageContaining("it is a List (null), not the NodeList (v1) a LIST of it answers")
                .hasMessageContaining("it carries no metadata.resourceVersion")
                .hasMessageContaining("Nothing this LIST returned is used");
    }

    @Test
    void aPageOfTheRightKindWithoutAResourceVersionIsABrokenAnswer() throws Exception {
        ApiCalls api = serving(page("NodeList", "v1", null, null, "n1"));
        assertThatThrownBy(() -> api.listPlain(Kinds.NODES, LyingListPagesTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("page 1 (GET " + url() + "/api/v1/nodes?limit=1): it carries no "
                        + "metadata.resourceVersion")
                .hasMessageNotContaining("not the NodeList");
    }

    @Test
    void aPageOfAnotherKindOrGroupVersionIsABrokenAnswer() throws Exception {
        ApiCalls pods = serving(page("PodList", "v1", "7", null, "n1"));
        assertThatThrownBy(() -> pods.listPlain(Kinds.NODES, LyingListPagesTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("it is a PodList (v1), not the NodeList (v1) a LIST of it answers")
                .hasMessageNotContaining("resourceVersion");
        stop();
        asked.clear();
        // Leases are coordination.k8s.io/v1: the right kind name in the core group is another answer
        ApiCalls leases = serving(page("LeaseList", "v1", "7", null, "n1"));
        assertThatThrownBy(() -> leases.listPlain(Kinds.NODE_LEASES, LyingListPagesTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("LIST leases in kube-node-lease at " + url())
                .hasMessageContaining("it is a LeaseList (v1), not the LeaseList (coordination.k8s.io/v1)");
    }

    @Test
    void aSecondPageThatLiesFailsTheWholeListNamingThatPage() throws Exception {
        String first = page("NodeList", "v1", "41", "t1", "n1");
        for (String second : List.of(page("NodeList", "v1", "42", null, "n2"), page("NodeList", "v1", null, null),
                "{\"kind\":\"List\",\"metadata\":{},\"items\":[]}", page("PodList", "v1", "41", null, "n2"))) {
            stop();
            asked.clear();
            ApiCalls api = serving(first, second);
            assertThatThrownBy(() -> api.listPlain(Kinds.NODES, LyingListPagesTest::name))
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
        ApiCalls api = serving(page("NodeList", "v1", "41", "t1", "n1"), page("NodeList", "v1", "41", null, "n2"));
        ApiCalls.Listed<String> listed = api.listVersioned(Kinds.NODES, KubeJson.MODEL, LyingListPagesTest::name);
        assertThat(listed.items()).containsExactly("n1", "n2");
        assertThat(listed.resourceVersion()).isEqualTo("41");
    }

    @Test
    void secretsMayComeAsATableOrAsTheirOwnListButNothingElse() throws Exception {
        String table = "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{\"resourceVersion\":\"9\"},"
                + "\"columnDefinitions\":[{\"name\":\"Name\"},{\"name\":\"Type\"}],\"rows\":[{\"cells\":[\"a\",\"Opaque\"],"
                + "\"object\":{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":"
                + "{\"name\":\"a\",\"namespace\":\"kube-system\",\"uid\":\"u-a\"}}}]}";
        assertThat(serving(table).listPlain(Kinds.KUBE_SYSTEM_SECRETS, LyingListPagesTest::name)).containsExactly("a");
        stop();
        assertThat(serving(page("SecretList", "v1", "9", null, "a"))
                .listPlain(Kinds.KUBE_SYSTEM_SECRETS, LyingListPagesTest::name)).containsExactly("a");
        stop();
        ApiCalls withoutVersion = serving(table.replace("\"resourceVersion\":\"9\"", ""));
        assertThatThrownBy(() -> withoutVersion.listPlain(Kinds.KUBE_SYSTEM_SECRETS, LyingListPagesTest::name))
                .isInstanceOf(CollectionException.class).hasMessageContaining("no metadata.resourceVersion");
        stop();
        // a Table answers only a request that asked for one: Nodes are read whole, and a Table is no list of them
        ApiCalls nodesAsTable = serving(table);
        assertThatThrownBy(() -> nodesAsTable.listPlain(Kinds.NODES, LyingListPagesTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("LIST nodes: unparsable answer from API server " + url())
                .hasMessageContaining("no items array");
        stop();
        // the Secrets' own list kind, but in another group version
        ApiCalls otherGroup = serving(page("SecretList", "meta.k8s.io/v1", "9", null, "a"));
        assertThatThrownBy(() -> otherGroup.listPlain(Kinds.KUBE_SYSTEM_SECRETS, LyingListPagesTest::name))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("it is a SecretList (meta.k8s.io/v1), not the SecretList (v1) or Table "
                        + "(meta.k8s.io/v1) a LIST of it answers");
    }

    @Test
    void theTypedReaderAppliesTheSameRule() throws Exception {
        ApiCalls api = serving(page("PodList", "v1", "5", "t1", "p1"), page("PodList", "v1", "6", null, "p2"));
        assertThatThrownBy(() -> api.listAll("LIST pods", "/api/v1/pods", Pod.class, null, "spec.nodeName=n1",
                Function.identity()))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("LIST pods at " + url() + ": broken answer: page 2")
                .hasMessageContaining("it is at resourceVersion 6 but page 1 was at 5");
        stop();
        asked.clear();
        ApiCalls lying = serving("{\"kind\":\"List\",\"metadata\":{},\"items\":[]}");
        assertThatThrownBy(() -> lying.listAll("LIST management.cattle.io/v3 nodes", "/apis/management.cattle.io/v3/nodes",
                GenericKubernetesResource.class, "Node", null, null, Function.identity()))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("not the NodeList (management.cattle.io/v3)")
                .hasMessageContaining("no metadata.resourceVersion");
        stop();
        asked.clear();
        assertThat(serving(page("NodeList", "management.cattle.io/v3", "8", null, "m1"))
                .listAll("LIST management.cattle.io/v3 nodes", "/apis/management.cattle.io/v3/nodes",
                        GenericKubernetesResource.class, "Node", null, null, r -> r.getMetadata().getName()))
                .containsExactly("m1");
    }

    @Test
    void anOptionalApiAnsweredByALieIsAnErrorNotNotServed() throws Exception {
        ApiCalls api = serving("{\"kind\":\"List\",\"metadata\":{},\"items\":[]}");
        assertThatThrownBy(() -> api.serves(Kinds.CSINODES))
                .isInstanceOf(CollectionException.class)
                .isNotInstanceOf(ApiCalls.NotFound.class)
                .hasMessageContaining("/apis/storage.k8s.io/v1/csinodes?limit=1")
                .hasMessageContaining("not the CSINodeList (storage.k8s.io/v1)");
    }
}
