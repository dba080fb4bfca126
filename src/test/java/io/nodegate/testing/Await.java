package io.nodegate.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Waiting for the condition a test needs, not for time: polls until true or fails naming it. */
public final class Await {

    /**
     * A ceiling for a condition that normally holds within a second or two: it only decides how long a failing test
     * waits, so it is set for a 2-core machine running the whole suite beside a CPU hog (a watch's first pass took
     * over 30 s there), not for a quiet one.
     */
    public static final Duration LOADED_MACHINE = Duration.ofSeconds(90);

    private Await() {
    }

    /** Polls every 20 ms until {@code condition} holds; fails after {@code timeout}. Returns how long it took. */
    public static Duration until(String what, Duration timeout, BooleanSupplier condition) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what, e);
            }
        }
        assertThat(condition.getAsBoolean()).as("timed out after " + timeout + " waiting for: " + what).isTrue();
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
