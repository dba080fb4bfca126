package io.nodegate.source.alertmanager;

import io.nodegate.CollectionException;
import io.nodegate.testing.SlowServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An Alertmanager replica that sends its headers and then a byte a second, or accepts and never answers: every call
 * (reads and writes) ends within --alertmanager-timeout, plus what a loaded machine adds, as a failure naming the
 * replica, the call and the deadline. HttpRequest.timeout alone bounded only the headers: the trickle held a
 * `handover status --alertmanager-timeout 5s` for minutes.
 */
class AlertmanagerClientDeadlineTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Duration MARGIN = Duration.ofSeconds(10);

    private static void endsInTime(SlowServer server, String call, Runnable r) {
        long start = System.nanoTime();
        assertThatThrownBy(r::run).isInstanceOf(CollectionException.class)
                .hasMessageStartingWith("Alertmanager " + server.url() + ": " + call)
                .hasMessageContaining("no complete answer within 2s")
                .hasMessageContaining("--alertmanager-timeout");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as(call).isLessThan(TIMEOUT.plus(MARGIN));
    }

    private static void everyCallEndsInTime(SlowServer server) {
        AlertmanagerClient am = AlertmanagerClient.of(server.url(), TIMEOUT);
        endsInTime(server, "GET /api/v2/silences", am::silences);
        endsInTime(server, "GET /api/v2/status", am::status);
        endsInTime(server, "GET /api/v2/alerts", am::alerts);
        endsInTime(server, "GET /api/v2/alerts/groups", am::groups);
        endsInTime(server, "POST /api/v2/silences", () -> am.post(new AlertmanagerClient.PostableSilence(null,
                List.of(), Instant.parse("2026-11-01T00:00:00Z"), Instant.parse("2026-11-02T00:00:00Z"), "nodegate",
                "test")));
        endsInTime(server, "DELETE /api/v2/silence/abc", () -> am.expire("abc"));
    }

    @Test
    void aTricklingReplicaEndsEveryCallAtTheDeadline() {
        try (SlowServer trickle = SlowServer.trickling()) {
            everyCallEndsInTime(trickle);
        }
    }

    @Test
    void aReplicaThatNeverAnswersEndsEveryCallAtTheDeadline() {
        try (SlowServer silent = SlowServer.silent()) {
            everyCallEndsInTime(silent);
        }
    }
}
