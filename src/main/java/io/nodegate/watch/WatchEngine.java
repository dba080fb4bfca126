package io.nodegate.watch;

import io.nodegate.watch.leadership.LeadershipLost;
import io.nodegate.watch.informer.FreshnessProof;
import io.nodegate.watch.informer.WatchCache;
import io.nodegate.watch.leadership.LeaderGuard;
import io.nodegate.watch.publishing.EventSink;
import io.nodegate.audit.Audit;
import io.nodegate.audit.AuditReport;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.model.ClusterState;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * One evaluation pass: the informers' objects become the same {@link ClusterState} a live `audit` builds
 * ({@link io.nodegate.source.kube.StateAssembler}, mapping only what changed since the last pass), the same detectors run on it, and the findings are compared
 * with the previous pass per node they name ({@link #perNode}): a new finding on a node is an appearance, one that
 * is gone from a node is a resolution.
 *
 * <p>The core rule: a pass runs only when every kind's copy is proven fresh ({@link WatchCache#unhealthy()}
 * empty). Otherwise it is a failed pass: nothing is reported as new, nothing is resolved, no Event, the last good
 * findings and metrics stay on /metrics and /findings, and /readyz fails. An error, and a copy that may be stale,
 * never becomes "0 found" nor "resolved". When freshness returns, the next pass decides.
 *
 * <p>A silence finding (NG101-NG103, {@link #SILENCE_CODES}) becomes active only from a copy proven fresh at quorum
 * ({@link WatchCache#proveSilenceInputs}), judged at the moment of that read; otherwise the pass is held.
 *
 * <p>Only the leader posts Events, and it asks again before each one. A replica that is not leading still follows
 * the findings, so when it takes over it announces only what changes from then on (the old leader already announced
 * the rest). Until a replica has learnt who leads it follows nothing, so one that starts alone and wins the Lease
 * announces what it found before it knew, whichever came first, its first pass or its first read of the Lease.
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
    private final BooleanSupplier leaderKnown;
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
                       EventSink events, BooleanSupplier leader, BooleanSupplier leaderKnown, WatchMetrics metrics,
                       String source,
                       String context, String server, Consumer<String> log) {
        this.cache = cache;
        this.clock = clock;
        this.settings = settings;
        this.detectors = List.copyOf(detectors);
        this.events = events;
        this.leader = leader;
        this.leaderKnown = leaderKnown;
        this.metrics = metrics;
        metrics.checking(this.detectors.stream().map(d -> d.code().code()).toList());
        this.source = source;
        this.context = context;
        this.server = server;
        this.log = log;
    }

    /**
     * The silence findings: what they say rests on Lease renewTimes and Ready conditions, so a frozen copy makes
     * them up (every Lease "stopped" at the moment the stream froze). None becomes active unless the copy it rests on
     * is proven fresh at quorum ({@link WatchCache#proveSilenceInputs}). NG304 (the BMC says On while the Lease is
     * silent) rests on the same Lease silence.
     */
    static final Set<String> SILENCE_CODES = codes(FindingCode.NG101, FindingCode.NG102, FindingCode.NG103,
            FindingCode.NG304);
    /** The silence findings whose nodes' Node objects are re-read as well (their Ready condition). */
    private static final Set<String> READY_CODES = codes(FindingCode.NG101, FindingCode.NG102);

    /** The code strings findings carry, of the rows given. */
    private static Set<String> codes(FindingCode... rows) {
        return Arrays.stream(rows).map(FindingCode::code).collect(Collectors.toUnmodifiableSet());
    }

    /** Runs one pass now (passes never overlap). */
    public synchronized Pass evaluate() {
        long started = System.nanoTime();
        Instant now = clock.instant();
        List<String> unusable = cache.unhealthy();
        if (!unusable.isEmpty()) {
            return failed(now, started, "not evaluated: the copy of " + String.join("; ", unusable)
                    + " is not proven fresh. Nothing is reported or resolved until it is.");
        }
        Evaluated result;
        try {
            result = evaluateAt(now);
        } catch (RuntimeException e) {
            return failed(now, started, "evaluation failed: " + e);
        }
        Set<String> nodesToProve = new TreeSet<>();
        boolean newSilence = newSilence(result.findings(), nodesToProve);
        if (newSilence) {
            // never report silence from a copy that is not proven fresh: re-read at quorum first, and judge the
            // ages at the moment of that read
            Instant provenAt = clock.instant();
            FreshnessProof.Result proof = cache.proveSilenceInputs(nodesToProve);
            if (!proof.fresh()) {
                return failed(now, started, "held: a new silence finding (" + silenceSummary(result.findings())
                        + ") is not reported from a copy that is not proven fresh: " + proof.why()
                        + ". The next pass decides.");
            }
            try {
                result = evaluateAt(provenAt);
            } catch (RuntimeException e) {
                return failed(now, started, "evaluation failed: " + e);
            }
            Set<String> nowNamed = new TreeSet<>();
            newSilence(result.findings(), nowNamed);
            if (!nodesToProve.containsAll(nowNamed)) {
                return failed(now, started, "held: the silence findings changed while their copy was proven fresh ("
                        + silenceSummary(result.findings()) + "). The next pass decides.");
            }
            now = provenAt;
        }
        Map<String, Finding> current = result.findings();
        // a follower follows everything; a leader's pass stopped by a lost Lease keeps what it did not post for the
        // next pass (if it still leads then; if not, its next pass follows everything again). A replica that does not
        // know yet who leads follows nothing: if it turns out to lead, it announces what it found meanwhile.
        if (leader.getAsBoolean()) {
            announced = announce(current);
        } else if (leaderKnown.getAsBoolean()) {
            announced = current;
        }
        Pass ok = new Pass(now, true, null, result.report(), result.state(),
                Duration.ofNanos(System.nanoTime() - started));
        lastGood = ok;
        last = ok;
        metrics.passSucceeded(ok);
        return ok;
    }

    /**
     * What the informers' state gets before {@link #feed}: the open NodeHandovers ({@link OpenHandoverReads#feed}),
     * which the watch reads apart from the informers.
     */
    private volatile java.util.function.UnaryOperator<ClusterState> handovers =
            java.util.function.UnaryOperator.identity();

    /** Every later pass judges the informers' state with the open hand-overs {@code reads} last read. */
    public void handovers(OpenHandoverReads reads) {
        this.handovers = reads::feed;
    }

    /** Every later pass judges {@code feed} applied to the informers' state (e.g. with the BMC readings in it). */
    public void feed(java.util.function.UnaryOperator<ClusterState> newFeed) {
        this.feed = newFeed;
    }

    /** One state and report from the copy, judged at {@code at}. */
    private record Evaluated(ClusterState state, AuditReport report, Map<String, Finding> findings) {
    }

    private Evaluated evaluateAt(Instant at) {
        ClusterState state = feed.apply(handovers.apply(cache.state(at, source, context, server)));
        AuditReport report = Audit.run(state, settings, detectors);
        return new Evaluated(state, report, perNode(report.findings()));
    }

    /**
     * The findings as the Events speak of them: one entry per finding and node it names, keyed by code, node and
     * discriminator, each holding the finding narrowed to that node. A finding that names several nodes (NG103's
     * batch, NG110's pair) changes its node set as its nodes come and go; keyed as a whole, a batch of four whose
     * first two kubelets came back was "resolved" on all four and "new" on the two still silent (seen on a real
     * control plane, where kubelets come back one by one). Per node, the two that came back are resolved and the
     * two still silent are left alone. A finding that names no node is kept whole (it has no Event).
     */
    static Map<String, Finding> perNode(List<Finding> findings) {
        Map<String, Finding> out = new LinkedHashMap<>();
        for (Finding f : findings) {
            if (f.nodes().isEmpty()) {
                out.putIfAbsent(f.key(), f);
                continue;
            }
            for (String node : f.nodes()) {
                String key = f.code() + "|" + node + "|" + (f.discriminator() == null ? "" : f.discriminator());
                out.putIfAbsent(key, f.nodes().size() == 1 ? f : new Finding(f.code(), f.name(), f.severity(),
                        List.of(node), f.message(), f.evidence(), f.hint(), f.discriminator()));
            }
        }
        return out;
    }

    /** True when a silence finding is not active yet; adds the nodes whose Ready condition it rests on. */
    private boolean newSilence(Map<String, Finding> current, Set<String> readyNodes) {
        boolean any = false;
        for (var e : current.entrySet()) {
            Finding f = e.getValue();
            if (SILENCE_CODES.contains(f.code()) && !announced.containsKey(e.getKey())) {
                any = true;
                if (READY_CODES.contains(f.code())) {
                    readyNodes.addAll(f.nodes());
                }
            }
        }
        return any;
    }

    private String silenceSummary(Map<String, Finding> current) {
        Map<String, Integer> nodes = new java.util.TreeMap<>();
        for (var e : current.entrySet()) {
            Finding f = e.getValue();
            if (SILENCE_CODES.contains(f.code()) && !announced.containsKey(e.getKey())) {
                nodes.merge(f.code(), f.nodes().size(), Integer::sum);
            }
        }
        List<String> parts = new java.util.ArrayList<>();
        nodes.forEach((code, n) -> parts.add(code + " on " + n + " node(s)"));
        return String.join(", ", parts);
    }

    /**
     * Posts what appeared and what went away. Leadership is asked again before every write (and the sink checks the
     * Lease itself, {@link LeaderGuard}): a replica that lost it stops posting at once, in the middle of a pass.
     */
    private Map<String, Finding> announce(Map<String, Finding> current) {
        Map<String, Finding> done = new LinkedHashMap<>(announced);
        try {
            for (var e : current.entrySet()) {
                if (!announced.containsKey(e.getKey())) {
                    requireLeader();
                    log.accept("new finding " + e.getValue().code() + " on " + String.join(", ",
                            e.getValue().nodes()));
                    events.appeared(e.getValue());
                    done.put(e.getKey(), e.getValue());
                }
            }
            for (var e : announced.entrySet()) {
                if (!current.containsKey(e.getKey())) {
                    requireLeader();
                    log.accept("resolved " + e.getValue().code() + " on " + String.join(", ", e.getValue().nodes()));
                    events.resolved(e.getValue());
                    done.remove(e.getKey());
                }
            }
            return current;
        } catch (LeadershipLost lost) {
            log.accept("stopped posting Events in this pass: " + lost.getMessage());
            return done;
        }
    }

    private void requireLeader() {
        if (!leader.getAsBoolean()) {
            throw new LeadershipLost("this replica no longer leads");
        }
    }

    private Pass failed(Instant at, long started, String error) {
        Pass failed = new Pass(at, false, error, null, null, Duration.ofNanos(System.nanoTime() - started));
        last = failed;
        metrics.passFailed(failed.took());
        log.accept(error);
        return failed;
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
