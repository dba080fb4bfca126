package io.nodegate.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The event -> metric latency of nodegate watch (issue 21: p99 <= 2 s), measured from outside as Prometheus sees it:
 * /metrics is scraped every {@code every}, and each change a scrape shows is timed against the event behind it.
 * <ul>
 *   <li>Lease renewals: a {@code nodegate_node_lease_renew_timestamp_seconds} series whose value moved shows a
 *       renewal whose time is the value itself (the server stamps renewTime when it sends the event, with
 *       microseconds; the gauge has milliseconds). Latency = end of the scrape that first shows it - renewTime.
 *       A series that moved by more than one renewal period skipped renewals: those are counted as never shown.</li>
 *   <li>Node Ready flips (FakeApiServer#changeNodes): the server notes when it sent each one (/_bench/node-changes);
 *       the flip to False shows as a new {@code nodegate_finding{code="NG102",...}} series, the flip back as its
 *       disappearance. Latency = end of the first scrape that shows it - the time the server sent the event.</li>
 * </ul>
 * Every latency is an upper bound: the change may have been visible up to one scrape interval (plus the scrape's own
 * time) earlier. That is the resolution, printed with the results. Both processes read the same system clock.
 */
final class MetricLatency {

    private static final String RENEW = "nodegate_node_lease_renew_timestamp_seconds{node=\"";
    private static final String NOT_READY = "nodegate_finding{code=\"NG102\"";

    private MetricLatency() {
    }

    static void run(String metricsUrl, String server, Duration total, Duration every) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest scrape = HttpRequest.newBuilder(URI.create(metricsUrl)).timeout(Duration.ofSeconds(10)).build();
        Map<String, Double> renewTimes = new HashMap<>();
        List<Double> renewLatency = new ArrayList<>();
        long renewalsSkipped = 0;
        /* series that moved once: their value is a renewal seen, where the first one seen was the LIST's */
        Set<String> moved = new HashSet<>();
        Set<String> notReady = null;
        /* node -> observed transitions: {scrape end in µs, 1 for NotReady / 0 for Ready} */
        Map<String, List<long[]>> seen = new HashMap<>();
        List<Double> scrapeMillis = new ArrayList<>();
        long failures = 0;
        long startMicros = nowMicros();
        long end = System.nanoTime() + total.toNanos();
        long next = System.nanoTime();
        while (System.nanoTime() < end) {
            long started = System.nanoTime();
            String body;
            try {
                body = http.send(scrape, HttpResponse.BodyHandlers.ofString()).body();
            } catch (java.io.IOException e) {
                failures++;
                next += every.toNanos();
                sleepUntil(next);
                continue;
            }
            Instant after = Instant.now();
            scrapeMillis.add((System.nanoTime() - started) / 1e6);
            double afterSeconds = after.getEpochSecond() + after.getNano() / 1e9;
            long afterMicros = after.getEpochSecond() * 1_000_000L + after.getNano() / 1000;
            Set<String> nowNotReady = new HashSet<>();
            for (String line : body.split("\n")) {
                if (line.startsWith(RENEW)) {
                    int close = line.indexOf('"', RENEW.length());
                    String node = line.substring(RENEW.length(), close);
                    double value = Double.parseDouble(line.substring(line.indexOf(' ', close) + 1));
                    Double before = renewTimes.put(node, value);
                    if (before != null && value > before) {
                        renewLatency.add(afterSeconds - value);
                        // the synthetic kubelets renew every 10 s: a bigger step skipped renewals (not counted from
                        // the value the LIST held, written when the server generated the cluster)
                        if (!moved.add(node)) {
                            renewalsSkipped += Math.max(0, Math.round((value - before) / 10.0) - 1);
                        }
                    }
                } else if (line.startsWith(NOT_READY)) {
                    int at = line.indexOf("node=\"");
                    nowNotReady.add(line.substring(at + 6, line.indexOf('"', at + 6)));
                }
            }
            if (notReady != null) {
                for (String node : nowNotReady) {
                    if (!notReady.contains(node)) {
                        seen.computeIfAbsent(node, k -> new ArrayList<>()).add(new long[] {afterMicros, 1});
                    }
                }
                for (String node : notReady) {
                    if (!nowNotReady.contains(node)) {
                        seen.computeIfAbsent(node, k -> new ArrayList<>()).add(new long[] {afterMicros, 0});
                    }
                }
            }
            notReady = nowNotReady;
            next += every.toNanos();
            sleepUntil(next);
        }

        long endMicros = nowMicros();
        List<Double> flipLatency = new ArrayList<>();
        int flips = 0;
        int missed = 0;
        String changes = http.send(HttpRequest.newBuilder(URI.create(server + "/_bench/node-changes")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        for (String line : changes.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.trim().split(" ");
            long sentMicros = Long.parseLong(f[2]);
            long wanted = f[1].equals("False") ? 1 : 0;
            if (sentMicros < startMicros || sentMicros > endMicros - 5_000_000) {
                continue; // before the sampling began, or too late to be shown before it ended
            }
            flips++;
            long[] first = seen.getOrDefault(f[0], List.of()).stream()
                    .filter(o -> o[1] == wanted && o[0] >= sentMicros).findFirst().orElse(null);
            if (first == null) {
                missed++;
            } else {
                flipLatency.add((first[0] - sentMicros) / 1e6);
            }
        }
        System.out.printf(Locale.ROOT, "scrape every %d ms (resolution: a latency is an upper bound, up to one interval "
                        + "plus the scrape late): %d scrapes, %d failed, scrape time p50 %.1f ms, max %.1f ms%n",
                every.toMillis(), scrapeMillis.size(), failures, pct(scrapeMillis, 50),
                pct(scrapeMillis, 100));
        System.out.printf(Locale.ROOT, "lease renewal -> gauge: %d shown, %d never shown (skipped between scrapes by "
                        + "the gauge), latency p50 %.2f s, p99 %.2f s, max %.2f s%n", renewLatency.size(),
                renewalsSkipped, pct(renewLatency, 50), pct(renewLatency, 99), pct(renewLatency, 100));
        System.out.printf(Locale.ROOT, "node Ready flip -> NG102 series: %d flips, %d never shown, latency p50 %.2f s, "
                        + "p99 %.2f s, max %.2f s%n", flips, missed, pct(flipLatency, 50), pct(flipLatency, 99),
                pct(flipLatency, 100));
        Collections.sort(flipLatency);
        System.out.printf(Locale.ROOT, "node flip latencies (s, sorted): %s%n", flipLatency.stream()
                .map(d -> String.format(Locale.ROOT, "%.2f", d)).toList());
    }

    private static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    /** The p-th percentile (nearest rank), in the list's unit; NaN if empty. */
    private static double pct(List<Double> values, double p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        long wait = nanos - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
    }
}
