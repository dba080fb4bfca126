package io.nodegate.watch;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.testing.SeedCluster;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watch's HTTP endpoints against slow and idle clients. Field case: three connections that
 * sent {@code GET /metrics HTTP/1.1} and one header, then nothing, held both threads of the JDK HttpServer, and the
 * kubelet's liveness probe restarted a healthy pod every minute.
 */
class WatchHttpTest {

    private ApiTestServer api;
    private KubernetesClient client;
    private WatchService service;
    private final List<Socket> held = new ArrayList<>();
    private WatchHttp http;

    @BeforeEach
    void ready() throws Exception {
        api = ApiTestServer.start();
        Instant now = Instant.now();
        api.create(SeedCluster.node("w1", "10.0.3.1", "True", false, Map.of("node-role.kubernetes.io/worker", "true"),
                "boot-w1", "uuid-w1", 0, now, now), SeedCluster.lease("w1", now));
        client = api.newClient();
        var settings = new WatchService.Settings(Duration.ofMillis(500), Duration.ofMillis(100),
                new InetSocketAddress("127.0.0.1", 0), null, "http-test", Duration.ofSeconds(2),
                Duration.ofMillis(1500), Duration.ofMillis(250), true, 50, 100, false, AuditSettings.DEFAULTS,
                Detectors.all(), Duration.ofSeconds(5), "live: test", null, api.url(), "test");
        service = new WatchService(settings, KubeConnection.wrapping(client, Duration.ofSeconds(5)),
                Clock.systemUTC(), line -> { });
        service.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!get(service.httpPort(), "/readyz", 5_000).startsWith("HTTP/1.1 200")) {
            assertThat(System.nanoTime()).as("ready within 30 s").isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket s : held) {
            s.close();
        }
        if (http != null) {
            http.close();
        }
        service.close();
        client.close();
        api.close();
    }

    /** A connection that sent a request line and one header, then nothing: half a request, held open. */
    private Socket halfOpen(int port) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: nodegate\r\n".getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
        held.add(s);
        return s;
    }

    /** One request on a new connection; what came back before EOF, or up to the timeout. */
    private static String get(int port, String path, int timeoutMillis) throws IOException {
        return send(port, "GET " + path + " HTTP/1.1\r\nHost: nodegate\r\nConnection: close\r\n\r\n", timeoutMillis);
    }

    private static String send(int port, String request, int timeoutMillis) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(timeoutMillis);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            return readAll(s.getInputStream());
        }
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException timedOut) {
            return out.toString(StandardCharsets.UTF_8) + "<TIMEOUT>";
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void threeHalfOpenConnectionsDoNotKeepTheProbesWaiting() throws Exception {
        int port = service.httpPort();
        for (int i = 0; i < 3; i++) {
            halfOpen(port);
        }
        Thread.sleep(200);
        for (String path : List.of("/healthz", "/readyz", "/healthz")) {
            long start = System.nanoTime();
            String answer = get(port, path, 1_000);
            assertThat(answer).as(path).startsWith("HTTP/1.1 200 OK").endsWith("ok\n");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as(path).isLessThan(Duration.ofSeconds(1));
        }
    }

    @Test
    void aRequestThatNeverCompletesIsClosedAfterTheRequestTimeout() throws Exception {
        http = server(Duration.ofMillis(800));
        Socket slow = halfOpen(http.port());
        slow.setSoTimeout(5_000);
        long start = System.nanoTime();
        assertThat(readAll(slow.getInputStream())).as("closed, nothing answered").isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(600),
                Duration.ofSeconds(3));
    }

    @Test
    void whenTheConnectionCapIsFullTheNextRequestIsAnswered503AtOnceNotQueued() throws Exception {
        // A request timeout long enough that the four idle connections are surely still held when the fifth
        // arrives, even on a loaded machine (an 800 ms timeout let them close first and the fifth got 200).
        http = server(Duration.ofSeconds(4));
        for (int i = 0; i < 4; i++) {
            halfOpen(http.port());
        }
        WatchHttp full = http;
        io.nodegate.testing.Await.until("four connections held", Duration.ofSeconds(3),
                () -> full.openConnections() == 4);
        long start = System.nanoTime();
        assertThat(get(http.port(), "/healthz", 1_000)).startsWith("HTTP/1.1 503").contains("too many connections");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
        // the idle ones are closed after the request timeout; then the probe is served again
        io.nodegate.testing.Await.until("the idle connections closed", Duration.ofSeconds(10),
                () -> full.openConnections() == 0);
        assertThat(get(http.port(), "/healthz", 1_000)).startsWith("HTTP/1.1 200");
    }

    private WatchHttp server(Duration requestTimeout) throws IOException {
        var limits = new WatchHttp.Limits(4, requestTimeout, Duration.ofSeconds(30), Duration.ofSeconds(5),
                16 * 1024, 1024);
        return new WatchHttp(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service.engine(),
                service.metrics(), Clock.systemUTC(), Duration.ofMinutes(1), limits);
    }

    @Test
    void answersGetAndHeadKeepsTheConnectionAliveAndRefusesTheRest() throws Exception {
        int port = service.httpPort();
        String two = send(port, "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\nHEAD /metrics HTTP/1.1\r\nHost: a\r\n"
                + "Connection: close\r\n\r\n", 2_000);
        assertThat(two).startsWith("HTTP/1.1 200 OK").contains("Connection: keep-alive")
                .contains("\r\n\r\nok\nHTTP/1.1 200 OK").contains("Content-Type: text/plain; version=0.0.4")
                .doesNotContain("nodegate_build_info").doesNotContain("<TIMEOUT>");
        assertThat(send(port, "POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}", 2_000))
                .startsWith("HTTP/1.1 405").contains("Allow: GET, HEAD");
        assertThat(get(port, "/secrets", 2_000)).startsWith("HTTP/1.1 404");
        assertThat(send(port, "GET /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\n", 2_000))
                .startsWith("HTTP/1.1 413");
        assertThat(send(port, "GET /healthz HTTP/1.1\r\nX-Big: " + "x".repeat(20_000) + "\r\n\r\n", 2_000))
                .startsWith("HTTP/1.1 431");
        assertThat(send(port, "garbage\r\n\r\n", 2_000)).startsWith("HTTP/1.1 400");
        assertThat(get(port, "/metrics?x=1", 2_000)).startsWith("HTTP/1.1 200").contains("nodegate_build_info");
    }
}
