package io.nodegate.source.bmc;

import io.nodegate.model.bmc.BmcReading;
import io.nodegate.model.bmc.BmcReadings;
import io.nodegate.time.Durations;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Reads many BMCs: one request at a time per BMC, up to {@code parallel} BMCs at once (so 200 BMCs take about
 * 200 / parallel times the slowest, not 200 times), each request within {@code requestTimeout} and the whole read
 * within {@code deadline}. A BMC that fails, or is not done by the deadline, is a failed reading naming it: never
 * dropped, never "no systems".
 */
public final class BmcSource {

    /**
     * @param tls            how BMC certificates are checked
     * @param session        true: log in with a session (POST, X-Auth-Token, DELETE at the end); false: HTTP Basic
     * @param requestTimeout the most one request may take, connect to last byte
     * @param deadline       the most the whole read may take
     * @param parallel       how many BMCs are read at once
     */
    public record Settings(BmcTls tls, boolean session, Duration requestTimeout, Duration deadline, int parallel) {
    }

    private final Settings settings;
    private final Clock clock;
    private final Consumer<String> notes;
    private final RedfishHttp.RequestLog requests;

    /** @param notes where things worth saying go (a session that could not be closed); never a secret */
    public BmcSource(Settings settings, Clock clock, Consumer<String> notes) {
        this(settings, clock, notes, RedfishHttp.RequestLog.NONE);
    }

    BmcSource(Settings settings, Clock clock, Consumer<String> notes, RedfishHttp.RequestLog requests) {
        this.settings = settings;
        this.clock = clock;
        this.notes = notes;
        this.requests = requests;
    }

    public BmcReadings read(List<BmcTarget> targets) {
        if (targets.isEmpty()) {
            return BmcReadings.of(List.of());
        }
        int threads = Math.max(1, Math.min(settings.parallel(), targets.size()));
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "nodegate-bmc-read");
            t.setDaemon(true);
            return t;
        });
        List<RedfishHttp> clients = new ArrayList<>();
        List<Future<BmcReading>> futures = new ArrayList<>();
        for (BmcTarget target : targets) {
            RedfishHttp http = new RedfishHttp(target.url(), settings.tls(), settings.requestTimeout(), requests);
            clients.add(http);
            RedfishReader reader = new RedfishReader(target, http,
                    settings.session() ? RedfishReader.Auth.SESSION : RedfishReader.Auth.BASIC, clock, notes);
            futures.add(pool.submit(reader::read));
        }
        long end = System.nanoTime() + settings.deadline().toNanos();
        List<BmcReading> readings = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
            readings.add(await(targets.get(i), futures.get(i), clients.get(i), end));
        }
        pool.shutdown();
        try {
            // sessions of BMCs stopped at the deadline are closed on the way out: give those DELETEs their time
            pool.awaitTermination(settings.requestTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return BmcReadings.of(readings);
    }

    private BmcReading await(BmcTarget target, Future<BmcReading> future, RedfishHttp http, long end) {
        try {
            return future.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            http.abort();
            future.cancel(true);
            return BmcReading.failed(target.url(), clock.instant(), "not read within the overall deadline of "
                    + Durations.format(settings.deadline()) + " (--bmc-deadline)");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            return BmcReading.failed(target.url(), clock.instant(), "reading failed unexpectedly: "
                    + (cause == null ? e : cause.getClass().getSimpleName() + (cause.getMessage() == null ? ""
                    : " " + cause.getMessage())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            http.abort();
            future.cancel(true);
            return BmcReading.failed(target.url(), clock.instant(), "interrupted");
        }
    }
}
