package io.nodegate.watch.informer;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * How long a failing watch waits before it tries again: client-go's reflector back-off
 * ({@code tools/cache/reflector.go}: {@code wait.NewExponentialBackoffManager(800*time.Millisecond,
 * 30*time.Second, 2*time.Minute, 2.0, 1.0, clock)}). The wait doubles from 800 ms, each wait is jittered by up to
 * its own length again (jitter 1.0), and it falls back to 800 ms only after 2 minutes without a failure, so a
 * server that keeps ending watches at once is not asked again at once after each one.
 *
 * <p>One deviation, on purpose: client-go caps the wait before the jitter, so a wait can reach 60 s. Here the
 * jittered wait is capped at 30 s, so that after an outage the copy is fresh again within a minute of the API
 * answering (a request that hangs takes the request timeout, then at most 30 s of waiting).
 */
public final class Backoff {

    /** client-go's values. */
    public static final Settings CLIENT_GO = new Settings(Duration.ofMillis(800), Duration.ofSeconds(30),
            Duration.ofMinutes(2), 1.0);

    /**
     * @param first  the first wait (before jitter)
     * @param cap    no wait is longer, jitter included
     * @param reset  a failure this long after the previous one starts again from {@code first}
     * @param jitter each wait is {@code d * (1 + jitter * random)}
     */
    public record Settings(Duration first, Duration cap, Duration reset, double jitter) {
        public Settings {
            if (first.isNegative() || first.isZero() || cap.compareTo(first) < 0 || reset.isNegative()
                    || !(jitter >= 0)) {
                throw new IllegalArgumentException("back-off " + first + " .. " + cap + ", reset after " + reset
                        + ", jitter " + jitter);
            }
        }

        /** The same shape with every duration divided by {@code factor} (tests that play minutes in seconds). */
        public Settings scaled(double factor) {
            return new Settings(divide(first, factor), divide(cap, factor), divide(reset, factor), jitter);
        }

        private static Duration divide(Duration d, double factor) {
            return Duration.ofNanos(Math.max(1_000_000, (long) (d.toNanos() / factor)));
        }
    }

    private final Settings settings;
    private final DoubleSupplier random;
    private long nextNanos;
    private long lastFailureNanos;
    private boolean failedBefore;

    public Backoff(Settings settings, DoubleSupplier random) {
        this.settings = settings;
        this.random = random;
        this.nextNanos = settings.first().toNanos();
    }

    /** The wait after a failure seen at {@code nowNanos} (System.nanoTime), and the next one doubled. */
    public synchronized Duration next(long nowNanos) {
        if (failedBefore && nowNanos - lastFailureNanos > settings.reset().toNanos()) {
            nextNanos = settings.first().toNanos();
        }
        failedBefore = true;
        lastFailureNanos = nowNanos;
        long base = nextNanos;
        long jittered = base + (long) (base * settings.jitter() * random.getAsDouble());
        long wait = Math.min(settings.cap().toNanos(), jittered);
        nextNanos = Math.min(settings.cap().toNanos(), base * 2);
        return Duration.ofNanos(wait);
    }
}
