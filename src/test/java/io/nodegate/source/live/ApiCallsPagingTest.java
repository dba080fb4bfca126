package io.nodegate.source.live;

import com.sun.net.httpserver.HttpServer;
import io.nodegate.CollectionException;
import io.nodegate.source.Kinds;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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

    /** Serves node pages: page i carries continue token tokens[i] (null = last page). */
    private ApiCalls serving(String... tokens) throws Exception {
        AtomicInteger page = new AtomicInteger();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            int i = Math.min(page.getAndIncrement(), tokens.length - 1);
            String token = tokens[i] == null ? "" : ",\"continue\":\"" + tokens[i] + "\"";
            byte[] body = ("{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"1\"" + token
                    + "},\"items\":[{\"metadata\":{\"name\":\"node-" + i + "\",\"uid\":\"u" + i + "\"}}]}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "http://127.0.0.1:%d"}}]
                users: [{name: u, user: {token: t}}]
                contexts: [{name: c, context: {cluster: c, user: u}}]
                current-context: c
                """.formatted(server.getAddress().getPort()));
        return new ApiCalls(KubeConnection.open(kubeconfig, null, Duration.ofSeconds(10)), 1);
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
    }
}
