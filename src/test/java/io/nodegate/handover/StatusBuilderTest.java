package io.nodegate.handover;

import io.nodegate.model.NodeInfo;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.nodegate.handover.Fixtures.T0;
import static io.nodegate.handover.Fixtures.giving;
import static io.nodegate.handover.Fixtures.gpuA07;
import static io.nodegate.handover.Fixtures.handover;
import static io.nodegate.handover.Fixtures.node;
import static io.nodegate.handover.Fixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

/** Violations and sightings accumulate across looks; a failed read never clears anything. */
class StatusBuilderTest {

    private static final NodeInfo A07 = gpuA07("Unknown", true);
    private static final NodeInfo IN_B = node("b-gpu-07", "uid-b7", "198.51.100.67", A07.systemInfo().systemUuid(),
            "mid-a07", "boot-b", "True", false, Instant.parse("2026-10-22T05:23:45Z"));

    private static HandoverReading look(Instant at, HandoverReading.Other... others) {
        return new HandoverReading(at, giving(A07), List.of(others), null, List.of(), null, null);
    }

    private static NodeHandover next(NodeHandover h, HandoverReading r) {
        return h.withStatus(StatusBuilder.next(h, StatusBuilder.look(h, r, "test")));
    }

    @Test
    void aViolationKeepsWhenItWasFirstSeenAndStaysOnTheRecordAfterItIsGone() {
        NodeHandover h = handover(List.of(A07), step(0, "lee", T0), step(1, "kim", T0));
        Instant first = Instant.parse("2026-10-22T05:30:00Z");
        Instant second = Instant.parse("2026-10-22T05:30:30Z");
        Instant third = Instant.parse("2026-10-22T05:31:00Z");
        HandoverReading.Other b = new HandoverReading.Other("cluster-b", false, List.of(IN_B), null);
        HandoverReading.Other bEmpty = new HandoverReading.Other("cluster-b", false, List.of(), null);
        HandoverReading.Other bFailed = new HandoverReading.Other("cluster-b", false, null, "HTTP 503");

        h = next(h, look(first, b));
        h = next(h, look(second, b));
        assertThat(h.status().violations()).singleElement().satisfies(v -> {
            assertThat(v.firstSeenAt()).isEqualTo(first);
            assertThat(v.lastSeenAt()).isEqualTo(second);
            assertThat(v.happenedAt()).isEqualTo(IN_B.created());
            assertThat(v.seenNow()).isTrue();
        });
        assertThat(h.status().history()).filteredOn(e -> "violation".equals(e.type())).hasSize(1);
        assertThat(h.status().sightings()).singleElement().satisfies(s -> assertThat(s.firstSeenAt()).isEqualTo(first));

        // a failed read clears nothing
        NodeHandover afterFailure = next(h, look(third, bFailed));
        assertThat(afterFailure.status().violations()).singleElement().satisfies(v -> assertThat(v.seenNow()).isTrue());
        assertThat(afterFailure.status().verdict()).isEqualTo("INVALID");
        assertThat(afterFailure.status().readErrors()).containsExactly("cluster cluster-b: HTTP 503");

        // a good read that no longer shows it: kept on the record, not seen now
        NodeHandover afterGone = next(h, look(third, bEmpty));
        assertThat(afterGone.status().violations()).singleElement().satisfies(v -> {
            assertThat(v.seenNow()).isFalse();
            assertThat(v.firstSeenAt()).isEqualTo(first);
            assertThat(v.lastSeenAt()).isEqualTo(second);
        });
        assertThat(afterGone.status().violationCount()).isEqualTo(1);
    }

    @Test
    void historyKeepsTheNewestWithinItsBound() {
        NodeHandover h = handover(List.of(A07), step(0, "lee", T0));
        List<HandoverStatus.HistoryEntry> many = new java.util.ArrayList<>();
        for (int i = 0; i < HandoverStatus.HISTORY_LIMIT + 20; i++) {
            many.add(new HandoverStatus.HistoryEntry(T0.plusSeconds(i), "silence-extended", null, "n" + i));
        }
        HandoverStatus s = StatusBuilder.withHistory(null, many);
        assertThat(s.history()).hasSize(HandoverStatus.HISTORY_LIMIT);
        assertThat(s.history().get(s.history().size() - 1).message()).isEqualTo("n" + (HandoverStatus.HISTORY_LIMIT + 19));
        assertThat(s.history().get(0).message()).isEqualTo("n20");
        assertThat(Map.of()).isEmpty();
    }
}
