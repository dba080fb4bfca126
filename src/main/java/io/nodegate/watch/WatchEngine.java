package io.nodegate.watch;

import io.nodegate.audit.Audit;
import io.nodegate.audit.AuditReport;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.model.ClusterState;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One evaluation pass: the informers' objects become the same {@link ClusterState} a live `audit` builds
 * ({@link io.nodegate.source.StateAssembler}, mapping only what changed since the last pass), the same detectors run on it, and the findings are compared by {@link Finding#key()}
 * with the previous pass: a new key is an appearance, a key that is gone is a resolution.
 *
 * <p>The core rule: a pass runs only when every kind is usable ({@link WatchCache#unhealthy()} empty). Otherwise
 * it is a failed pass: nothing is reported as new, nothing is resolved, the last good findings stay on /metrics
 * and /findings, and /readyz fails. An error never becomes "0 found".
 *
 * <p>Only the leader posts Events. A replica that is not leading still follows the findings, so when it takes
 * over it announces only what changes from then on (the old leader already announced the rest).
 */
public final class WatchEngine {

    /** What one pass ended with. */
    public record Pass(Instant at, boolean ok, String error, AuditReport report, ClusterState state,
                       Duration took) {
    }

    private final WatchCache cache;
    private final Clock clock;
    private final AuditSettings settings;
    private final List<Detector> detectors;
    private final EventSink events;
    private final BooleanSupplier leader;
    private final Consumer<String> log;
    private final String source;
    private final String context;
    private final String server;
    private final WatchMetrics metrics;

    private Map<String, Finding> announced = new LinkedHashMap<>();
    /** What is added to the informers' state before it is judged (the BMC readings, {@link BmcPoller#feed}). */
    private volatile java.util.function.UnaryOperator<ClusterState> feed = java.util.function.UnaryOperator.identity();
    private volatile Pass lastGood;
    private volatile Pass last;

    public WatchEngine(WatchCache cache, Clock clock, AuditSettings settings, List<Detector> detectors,
                       EventSink events, BooleanSupplier leader, WatchMetrics metrics, String source,
                       String context, String server, Consumer<String> log) {
        this.cache = cache;
        this.clock = clock;
        this.settings = settings;
        this.detectors = List.copyOf(detectors);
        this.events = events;
        this.leader = leader;
        this.metrics = metrics;
        this.source = source;
        this.context = context;
        this.server = server;
        this.log = log;
    }

    /** Runs one pass now (passes never overlap). */
    public synchronized Pass evaluate() {
        long started = System.nanoTime();
        Instant now = clock.instant();
        List<String> unusable = cache.unhealthy();
        if (!unusable.isEmpty()) {
            String error = "not evaluated: informer(s) not synced or failing: " + String.join("; ", unusable)
                    + ". Nothing is reported or resolved until they recover.";
            Pass failed = new Pass(now, false, error, null, null, Duration.ofNanos(System.nanoTime() - started));
            last = failed;
            metrics.passFailed(failed.took());
            log.accept(error);
            return failed;
        }
        ClusterState state;
        AuditReport report;
        try {
            state = feed.apply(cache.state(now, source, context, server));
            report = Audit.run(state, settings, detectors);
        } catch (RuntimeException e) {
            Pass failed = new Pass(now, false, "evaluation failed: " + e, null, null,
                    Duration.ofNanos(System.nanoTime() - started));
            last = failed;
            metrics.passFailed(failed.took());
            log.accept(failed.error());
            return failed;
        }
        Map<String, Finding> current = new LinkedHashMap<>();
        report.findings().forEach(f -> current.putIfAbsent(f.key(), f));
        if (leader.getAsBoolean()) {
            for (var e : current.entrySet()) {
                if (!announced.containsKey(e.getKey())) {
                    log.accept("new finding " + e.getValue().code() + " on " + String.join(", ", e.getValue().nodes()));
                    events.appeared(e.getValue());
                }
            }
            for (var e : announced.entrySet()) {
                if (!current.containsKey(e.getKey())) {
                    log.accept("resolved " + e.getValue().code() + " on " + String.join(", ", e.getValue().nodes()));
                    events.resolved(e.getValue());
                }
            }
        }
        announced = current;
        Pass ok = new Pass(now, true, null, report, state, Duration.ofNanos(System.nanoTime() - started));
        lastGood = ok;
        last = ok;
        metrics.passSucceeded(ok);
        return ok;
    }

    /** Every later pass judges {@code feed} applied to the informers' state (e.g. with the BMC readings in it). */
    public void feed(java.util.function.UnaryOperator<ClusterState> newFeed) {
        this.feed = newFeed;
    }

    /** The last pass that ran on usable data, or null before the first. */
    public Pass lastGood() {
        return lastGood;
    }

    /** The last pass, good or failed, or null before the first. */
    public Pass last() {
        return last;
    }

    public WatchCache cache() {
        return cache;
    }
}
