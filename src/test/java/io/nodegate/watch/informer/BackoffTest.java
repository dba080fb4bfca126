package io.nodegate.watch.informer;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** client-go's reflector back-off (tools/cache/reflector.go): 800 ms doubling, jitter 1.0, reset after 2 min. */
class BackoffTest {

    private static final long S = 1_000_000_000L;

    @Test
    void doublesFrom800msJittersUpToItsOwnLengthAndNeverWaitsMoreThan30s() {
        Backoff lowest = new Backoff(Backoff.CLIENT_GO, () -> 0.0);
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            waits.add(lowest.next(i * S).toMillis());
        }
        assertThat(waits).containsExactly(800L, 1600L, 3200L, 6400L, 12800L, 25600L, 30000L, 30000L);

        Backoff highest = new Backoff(Backoff.CLIENT_GO, () -> 0.999);
        assertThat(highest.next(0).toMillis()).isEqualTo(1599);
        assertThat(highest.next(S).toMillis()).isEqualTo(3198);
        for (int i = 2; i < 10; i++) {
            assertThat(highest.next(i * S)).as("capped after the jitter").isLessThanOrEqualTo(Duration.ofSeconds(30));
        }
    }

    @Test
    void startsAgainFrom800msOnlyAfterTwoMinutesWithoutAFailure() {
        Backoff b = new Backoff(Backoff.CLIENT_GO, () -> 0.0);
        b.next(0);
        b.next(S);
        assertThat(b.next(2 * S).toMillis()).isEqualTo(3200);
        // a failure 119 s after the last one: still backing off
        assertThat(b.next(121 * S).toMillis()).isEqualTo(6400);
        // a watch that stayed healthy for more than 2 min: back to the first wait
        assertThat(b.next(242 * S).toMillis()).isEqualTo(800);
    }
}
