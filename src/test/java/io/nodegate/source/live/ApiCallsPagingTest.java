package io.nodegate.source.live;

import com.sun.net.httpserver.HttpServer;
import io.nodegate.CollectionException;
import io.nodegate.source.Kinds;
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
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The one pagination rule of both LIST readers: follow continue tokens to the end, and treat a server that sends a
 * token it already sent as broken (the list would never end) rather than looping or returning what it has.
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

    /** Serves node pages: page i carries continue token tokens[i] (null = last page). */
    private ApiCalls serving(String... tokens) throws Exception {
        return serving(i -> tokens[Math.min(i, tokens.length - 1)]);
    }

    /** Serves node pages: page i carries continue token {@code tokenOfPage(i)} (null = last page). */
    private ApiCalls serving(java.util.function.IntFunction<String> tokenOfPage) throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            int i = pagesServed.getAndIncrement();
            String t = tokenOfPage.apply(i);
            String token = t == null ? "" : ",\"continue\":\"" + t + "\"";
            byte[] body = ("{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"1\"" + token
                    + "},\"items\":[{\"metadata\":{\"name\":\"node-" + i + "\",\"uid\":\"u" + i + "\"}}]}")
                    .getBytes(StandardCharsets.UTF_8);
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

}
