package io.nodegate.source.http;

import io.nodegate.testing.Await;
import io.nodegate.testing.SlowServer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The deadline of a whole answer over {@link HttpClient}: a server that sends its headers and then a byte a second,
 * and one that accepts and never answers, both end the call at the deadline (give or take a loaded machine), and the
 * exchange is cancelled: the server sees the connection closed rather than a client still reading.
 */
class WholeAnswerTest {

    /** What a loaded 2-core machine may add to a deadline before the call returns. */
    private static final Duration MARGIN = Duration.ofSeconds(10);
    private static final Duration DEADLINE = Duration.ofSeconds(2);

    private static HttpRequest get(String url) {
        return HttpRequest.newBuilder(URI.create(url + "/api/v2/silences")).GET().build();
    }

    @Test
    void aTricklingAnswerEndsAtTheDeadlineAndTheConnectionIsClosed() {
        try (SlowServer trickle = SlowServer.trickling()) {
            HttpClient client = HttpClient.newHttpClient();
            long start = System.nanoTime();
            assertThatThrownBy(() -> WholeAnswer.send(client, get(trickle.url()), DEADLINE, WholeAnswer.DEFAULT_MAX_BYTES))
                    .isInstanceOf(WholeAnswer.DeadlineExceeded.class)
                    .hasMessage("no complete answer within 2s (the whole answer, headers and body)");
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).isGreaterThanOrEqualTo(DEADLINE).isLessThan(DEADLINE.plus(MARGIN));
            Await.until("the trickling server sees its connection closed", Duration.ofSeconds(30),
                    () -> trickle.closedByClient() == 1);
        }
    }

    @Test
    void anAnswerThatNeverComesEndsAtTheDeadline() throws Exception {
        try (SlowServer silent = SlowServer.silent()) {
            HttpClient client = HttpClient.newHttpClient();
            long start = System.nanoTime();
            var future = WholeAnswer.sendAsync(client, get(silent.url()), DEADLINE, WholeAnswer.DEFAULT_MAX_BYTES);
            assertThatThrownBy(future::join).hasCauseInstanceOf(WholeAnswer.DeadlineExceeded.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(DEADLINE.plus(MARGIN));
            Await.until("the silent server sees its connection closed", Duration.ofSeconds(30),
                    () -> silent.closedByClient() == 1);
        }
    }

    @Test
    void aBodyOverTheCapIsNotRead() throws IOException {
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            byte[] body = "[\"0123456789\"]".repeat(1000).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort();
            assertThatThrownBy(() -> WholeAnswer.send(HttpClient.newHttpClient(), get(url), DEADLINE, 1000))
                    .isInstanceOf(WholeAnswer.TooLarge.class).hasMessageContaining("larger than 1000 bytes");
            assertThat(WholeAnswer.send(HttpClient.newHttpClient(), get(url), DEADLINE, 1_000_000).body())
                    .hasSize(14_000);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        } finally {
            server.stop(0);
        }
    }
}
