package io.nodegate.source.etcd;

import com.sun.net.httpserver.HttpServer;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.InputException;
import org.junit.jupiter.api.AfterEach;
import io.nodegate.testing.SlowServer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Endpoint failures that real etcd will not produce on demand: proxies, gateway errors, hangs. */
class EtcdSourceTest {

    private HttpServer server;
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() {
        release.countDown();
        if (server != null) {
            server.stop(0);
        }
    }

    private URI serve(String path, int status, String body) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.createContext("/", ex -> {
            String p = ex.getRequestURI().getPath();
            byte[] bytes;
            int code;
            if ("/hang".equals(path)) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (p.equals(EtcdSource.MEMBER_LIST)) {
                code = 200;
                bytes = EtcdAnswersTest.MEMBERS.getBytes(StandardCharsets.UTF_8);
            } else {
                code = status;
                bytes = body.getBytes(StandardCharsets.UTF_8);
            }
            ex.sendResponseHeaders(code, bytes.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(bytes);
            }
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private EtcdEndpointReport readOne(URI uri, Duration timeout) {
        List<EtcdEndpointReport> r = new EtcdSource(timeout, null).read(List.of(uri));
        assertThat(r).hasSize(1);
        return r.get(0);
    }

    @Test
    void goodAnswersMakeAReport() throws IOException {
        EtcdEndpointReport r = readOne(serve("/", 200, EtcdAnswersTest.STATUS), Duration.ofSeconds(2));
        assertThat(r.ok()).isTrue();
        assertThat(r.members()).hasSize(2);
        assertThat(r.memberListClusterId()).isEqualTo(r.status().clusterId());
    }

    @Test
    void unparsableStatusIsAnErrorOnThatEndpoint() throws IOException {
        EtcdEndpointReport r = readOne(serve("/", 200, "<html>hello</html>"), Duration.ofSeconds(2));
        assertThat(r.ok()).isFalse();
        assertThat(r.error()).startsWith("unparsable answer: status answer is not JSON");
        assertThat(r.status()).isNull();
    }

    @Test
    void gatewayErrorIsKeptWithItsMessage() throws IOException {
        EtcdEndpointReport r = readOne(serve("/", 503,
                "{\"error\":\"etcdserver: no leader\",\"code\":14,\"message\":\"etcdserver: no leader\"}"), Duration.ofSeconds(2));
        assertThat(r.error()).isEqualTo("/v3/maintenance/status: HTTP 503: etcdserver: no leader");
    }

    @Test
    void hangingEndpointTimesOutAndOthersStillAnswer() throws IOException {
        URI hanging = serve("/hang", 200, EtcdAnswersTest.STATUS);
        List<EtcdEndpointReport> r = new EtcdSource(Duration.ofMillis(300), null)
                .read(List.of(hanging, URI.create("http://127.0.0.1:1")));
        assertThat(r.get(0).error()).isEqualTo("no complete answer within 300ms (--etcd-timeout: the whole answer, "
                + "headers and body)");
        assertThat(r.get(1).error()).startsWith("connection refused");
    }

    /**
     * An endpoint that sends its headers and then a byte a second, and one that accepts and never answers: each is a
     * failed report naming the deadline once --etcd-timeout has passed (plus what a loaded machine adds), and the
     * endpoint that answers is read all the same.
     */
    @Test
    void tricklingAndSilentEndpointsEndAtTheDeadline() throws IOException {
        URI good = serve("/", 200, EtcdAnswersTest.STATUS);
        try (SlowServer trickle = SlowServer.trickling(); SlowServer silent = SlowServer.silent()) {
            Duration timeout = Duration.ofSeconds(2);
            long start = System.nanoTime();
            List<EtcdEndpointReport> r = new EtcdSource(timeout, null).read(List.of(URI.create(trickle.url()),
                    URI.create(silent.url()), good));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(timeout.plusSeconds(10));
            for (int i = 0; i < 2; i++) {
                assertThat(r.get(i).endpoint()).isEqualTo(i == 0 ? trickle.url() : silent.url());
                assertThat(r.get(i).error()).isEqualTo("no complete answer within 2s (--etcd-timeout: the whole "
                        + "answer, headers and body)");
            }
            assertThat(r.get(2).error()).isNull();
        }
    }

    @Test
    void nonHttpEndpointIsAnInputError() {
        assertThatThrownBy(() -> new EtcdSource(Duration.ofSeconds(1), null).read(List.of(URI.create("unix:///run/etcd.sock"))))
                .isInstanceOf(InputException.class).hasMessageContaining("expected http(s)://HOST:PORT");
    }
}
