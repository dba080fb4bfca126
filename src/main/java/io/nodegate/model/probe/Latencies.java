package io.nodegate.model.probe;

import io.nodegate.time.Durations;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * p50, p99 and max of a set of request latencies, nearest-rank: the p-th percentile is the value at rank
 * ceil(p/100 × n) of the sorted samples. With fewer than 100 samples p99 is the largest or second largest
 * sample, which is the point: one slow renewal in twenty is one a leader can lose its lease on.
 */
public record Latencies(int count, Duration p50, Duration p99, Duration max) {

    public static Latencies of(List<Duration> samples) {
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("no samples");
        }
        List<Duration> sorted = new ArrayList<>(samples);
        sorted.sort(null);
        return new Latencies(sorted.size(), rank(sorted, 50), rank(sorted, 99), sorted.get(sorted.size() - 1));
    }

    /** Seconds with millisecond precision, as the JSON output and finding evidence carry them. */
    public static double seconds(Duration d) {
        return Math.round(d.toNanos() / 1_000_000.0) / 1000.0;
    }

    /** Latency for people: "84ms", "2.21s", "2s" (finer than {@link Durations#format}, which is for ages). */
    public static String ms(Duration d) {
        long micros = d.toNanos() / 1_000;
        if (micros >= 1_000_000 && micros % 1_000_000 == 0) {
            return micros / 1_000_000 + "s";
        }
        if (micros < 10_000) {
            return String.format(Locale.ROOT, "%.1fms", micros / 1000.0);
        }
        if (micros < 1_000_000) {
            return (micros / 1000) + "ms";
        }
        return String.format(Locale.ROOT, "%.2fs", micros / 1_000_000.0);
    }

    static Duration rank(List<Duration> sorted, int percentile) {
        int rank = (int) Math.ceil(percentile / 100.0 * sorted.size());
        return sorted.get(Math.max(rank, 1) - 1);
    }
}
