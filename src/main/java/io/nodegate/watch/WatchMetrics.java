package io.nodegate.watch;

import io.nodegate.watch.informer.WatchCache;
import io.nodegate.watch.publishing.FindingEvents;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.model.ClusterState;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The watch's Prometheus metrics, in the text exposition format (version 0.0.4). The names and labels are an
 * interface users write rules on (docs/metrics.md): change them only with a migration note.
 *
 * <p>Per-finding and per-node series come from the last pass that ran on usable data; a failed pass leaves them
 * as they were (never emptied, which would read as "resolved") and counts in
 * {@code nodegate_evaluation_errors_total}. One exception: {@code nodegate_node_lease_renew_timestamp_seconds} is read
 * at scrape time from the Leases the watch holds ({@link NodeLeases}), because a renewal changes no finding and runs
 * no pass: read from the last pass it trailed each renewal by up to --interval (15 s).
 */
public final class WatchMetrics {

    /** Upper bounds of nodegate_evaluation_duration_seconds, in seconds. */
    static final double[] BUCKETS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2.5, 5, 10};

    private final String version;
    private final Supplier<Map<String, Boolean>> informerHealth;
    private final BooleanSupplier leader;
    private final Supplier<Map<String, Map<String, Long>>> restarts;
    private final long[] bucketCounts = new long[BUCKETS.length];
    private double durationSum;
    private long durationCount;
    private long evaluations;
    private long errors;
    private WatchEngine.Pass lastGood;
    /** More series from outside the pass (the BMC poller's), given the last good pass's state; none by default. */
    private volatile java.util.function.Function<ClusterState, String> more = state -> "";
    /** Kind id -> BOOKMARK events received (nodegate_informer_bookmarks_total); none when not given. */
    private volatile Supplier<Map<String, Long>> bookmarks = Map::of;
    /** The series of the hand-over looks ({@link HandoverReconciler#metrics}); none without them. */
    private volatile Supplier<String> handoverSeries = () -> "";
    /** The codes the passes check: their nodegate_findings series read 0 when nothing is found, not absent. */
    private volatile Set<String> checked = Set.of();
    private final NodeLeases leases;

    /**
     * Where {@code nodegate_node_lease_renew_timestamp_seconds} is read at each scrape: the node Leases as last seen,
     * each with its name and model (null when the object could not be mapped). Returns false, calling nothing, when
     * none has been seen yet. The watch's is {@link WatchCache#nodeLeasesNow}; without one, the last good pass's.
     */
    @FunctionalInterface
    public interface NodeLeases {
        boolean forEach(BiConsumer<String, LeaseInfo> each);
    }

    public WatchMetrics(String version, Supplier<Map<String, Boolean>> informerHealth, BooleanSupplier leader) {
        this(version, informerHealth, Map::of, leader);
    }

    /** @param restarts kind id -> reason -> watches started again for it (nodegate_informer_restarts_total) */
    public WatchMetrics(String version, Supplier<Map<String, Boolean>> informerHealth,
                        Supplier<Map<String, Map<String, Long>>> restarts, BooleanSupplier leader) {
        this(version, informerHealth, restarts, leader, null);
    }

    /** @param leases the node Leases the renewal gauge reads at scrape time; null: the last good pass's */
    public WatchMetrics(String version, Supplier<Map<String, Boolean>> informerHealth,
                        Supplier<Map<String, Map<String, Long>>> restarts, BooleanSupplier leader, NodeLeases leases) {
        this.version = version;
        this.informerHealth = informerHealth;
        this.restarts = restarts;
        this.leader = leader;
        this.leases = leases != null ? leases : this::lastPassLeases;
    }

    /** The last good pass's Leases (called under this object's lock, from {@link #render}). */
    private boolean lastPassLeases(BiConsumer<String, LeaseInfo> each) {
        if (lastGood == null) {
            return false;
        }
        lastGood.state().nodeLeases().forEach(l -> each.accept(l.name(), l));
        return true;
    }

    /**
     * The codes every pass checks. Their {@code nodegate_findings} count is exported as 0 at each severity the code
     * can have ({@link FindingCode#severities()}) when nothing is found, as Prometheus advises for label values
     * known in advance: 0 then reads "checked, none", and a missing series "not checked" (a code under --skip).
     */
    void checking(Collection<String> codes) {
        this.checked = Set.copyOf(codes);
    }

    synchronized void passSucceeded(WatchEngine.Pass pass) {
        observe(pass.took());
        evaluations++;
        lastGood = pass;
    }

    synchronized void passFailed(Duration took) {
        observe(took);
        evaluations++;
        errors++;
    }

    private void observe(Duration took) {
        double seconds = took.toNanos() / 1e9;
        for (int i = 0; i < BUCKETS.length; i++) {
            if (seconds <= BUCKETS[i]) {
                bucketCounts[i]++;
            }
        }
        durationSum += seconds;
        durationCount++;
    }

    /** The name of the cluster this watch runs in, a label on every sample; null: none. */
    private volatile String cluster;

    /**
     * Labels every sample with {@code cluster="NAME"}: where many clusters' watches meet in one place (federation,
     * Thanos), a series says which cluster it came from by itself, without relying on external labels that
     * Thanos' alerts API drops.
     */
    public void cluster(String name) {
        this.cluster = name;
    }

    /** The whole exposition. */
    public String render() {
        String text = exposition();
        String name = cluster;
        return name == null ? text : withLabel(text, "cluster", name);
    }

    /** {@code text} (the text format) with {@code name="value"} first on every sample line. */
    static String withLabel(String text, String name, String value) {
        String label = name + "=\"" + escape(value) + "\"";
        StringBuilder out = new StringBuilder(text.length() + 4096);
        for (String line : text.split("\n", -1)) {
            if (line.isEmpty() || line.startsWith("#")) {
                out.append(line);
            } else {
                int brace = line.indexOf('{');
                int space = line.indexOf(' ');
                if (brace >= 0 && (space < 0 || brace < space)) {
                    boolean empty = line.charAt(brace + 1) == '}';
                    out.append(line, 0, brace + 1).append(label).append(empty ? "" : ",").append(line.substring(brace + 1));
                } else {
                    out.append(line, 0, space).append('{').append(label).append('}').append(line.substring(space));
                }
            }
            out.append('\n');
        }
        out.setLength(out.length() - 1);
        return out.toString();
    }

    private synchronized String exposition() {
        StringBuilder out = new StringBuilder(4096);
        if (lastGood != null) {
            findings(out);
            hosts(out, lastGood.state());
        } else {
            header(out, "nodegate_finding", "gauge", "1 for each active finding and each node it names");
            header(out, "nodegate_findings", "gauge", "Count of active findings by code and severity");
        }
        leaseRenewals(out);
        header(out, "nodegate_informer_synced", "gauge",
                "1 when that informer's copy is proven fresh: listed, watching, progress within its idle limit");
        informerHealth.get().forEach((kind, ok) -> sample(out, "nodegate_informer_synced",
                labels("kind", kind), ok ? 1 : 0));
        Map<String, Map<String, Long>> restarted = restarts.get();
        if (!restarted.isEmpty()) {
            header(out, "nodegate_informer_restarts_total", "counter",
                    "Watches started again, by reason: idle, stale, short, gone, error");
            restarted.forEach((kind, reasons) -> reasons.forEach((reason, n) -> sample(out,
                    "nodegate_informer_restarts_total", labels("kind", kind, "reason", reason), n)));
        }
        Map<String, Long> marks = bookmarks.get();
        if (!marks.isEmpty()) {
            header(out, "nodegate_informer_bookmarks_total", "counter",
                    "BOOKMARK events received: the apiserver moved the watch's resourceVersion on without a change");
            marks.forEach((kind, n) -> sample(out, "nodegate_informer_bookmarks_total", labels("kind", kind), n));
        }
        header(out, "nodegate_leader", "gauge", "1 on the replica that holds the nodegate-watch Lease");
        out.append("nodegate_leader ").append(leader.getAsBoolean() ? 1 : 0).append('\n');
        header(out, "nodegate_evaluation_duration_seconds", "histogram", "Time of one evaluation pass");
        for (int i = 0; i < BUCKETS.length; i++) {
            sample(out, "nodegate_evaluation_duration_seconds_bucket", labels("le", number(BUCKETS[i])),
                    bucketCounts[i]);
        }
        sample(out, "nodegate_evaluation_duration_seconds_bucket", labels("le", "+Inf"), durationCount);
        out.append("nodegate_evaluation_duration_seconds_sum ").append(number(durationSum)).append('\n');
        out.append("nodegate_evaluation_duration_seconds_count ").append(durationCount).append('\n');
        header(out, "nodegate_evaluations_total", "counter", "Evaluation passes, failed ones included");
        out.append("nodegate_evaluations_total ").append(evaluations).append('\n');
        header(out, "nodegate_evaluation_errors_total", "counter",
                "Failed passes: an informer not synced or failing, or the evaluation itself failed");
        out.append("nodegate_evaluation_errors_total ").append(errors).append('\n');
        header(out, "nodegate_build_info", "gauge", "1, labelled with the nodegate version");
        sample(out, "nodegate_build_info", labels("version", version), 1);
        out.append(more.apply(lastGood == null ? null : lastGood.state()));
        out.append(handoverSeries.get());
        return out.toString();
    }

    /** Exports {@code perKind} (kind id -> BOOKMARK events received) as nodegate_informer_bookmarks_total. */
    void bookmarks(Supplier<Map<String, Long>> perKind) {
        this.bookmarks = perKind;
    }

    /** Appends the hand-over looks' series to every exposition. */
    void handovers(Supplier<String> series) {
        this.handoverSeries = series;
    }

    /** Appends {@code series} (text format) to every exposition, given the last good pass's state (null before one). */
    public void also(java.util.function.Function<ClusterState, String> series) {
        this.more = series;
    }

    private void findings(StringBuilder out) {
        header(out, "nodegate_finding", "gauge", "1 for each active finding and each node it names");
        Map<String, Integer> counts = new TreeMap<>();
        for (String code : checked) {
            FindingCode.of(code).ifPresent(row -> row.severities()
                    .forEach(severity -> counts.put(code + "\u0000" + severity.label(), 0)));
        }
        for (Finding f : lastGood.report().findings()) {
            for (String node : f.nodes()) {
                sample(out, "nodegate_finding", labels("code", f.code(), "name", FindingEvents.reason(f),
                        "severity", f.severity().label(), "node", node), 1);
            }
            counts.merge(f.code() + "\u0000" + f.severity().label(), 1, Integer::sum);
        }
        header(out, "nodegate_findings", "gauge", "Count of active findings by code and severity");
        counts.forEach((k, n) -> {
            String[] parts = k.split("\u0000");
            sample(out, "nodegate_findings", labels("code", parts[0], "severity", parts[1]), n);
        });
    }

    private static void hosts(StringBuilder out, ClusterState state) {
        header(out, "nodegate_host_info", "gauge",
                "1 per Node: the host identity a federated Prometheus can join across clusters");
        for (NodeInfo n : state.nodes()) {
            sample(out, "nodegate_host_info", labels("node", n.name(),
                    "system_uuid", nz(n.systemInfo().systemUuid()), "machine_id", nz(n.systemInfo().machineId()),
                    "internal_ip", String.join(",", n.internalIps()), "boot_id", nz(n.systemInfo().bootId())), 1);
        }
    }

    /**
     * Each node Lease's renewTime as last seen, read now ({@link #leases}), not from the last pass. A Lease whose
     * latest version could not be mapped shows the last good pass's renewTime, if it had one: the value last seen,
     * never one made up. No series (and no header) before any Lease was seen.
     */
    private void leaseRenewals(StringBuilder out) {
        int start = out.length();
        header(out, "nodegate_node_lease_renew_timestamp_seconds", "gauge",
                "The Node's kube-node-lease Lease renewTime as last seen, in Unix seconds");
        boolean seen = leases.forEach((name, lease) -> {
            LeaseInfo shown = lease != null ? lease
                    : lastGood == null ? null : lastGood.state().leaseOf(name).orElse(null);
            if (shown != null && shown.renewTime() != null) {
                out.append("nodegate_node_lease_renew_timestamp_seconds").append(labels("node", name)).append(' ')
                        .append(number(shown.renewTime().toEpochMilli() / 1000.0)).append('\n');
            }
        });
        if (!seen) {
            out.setLength(start);
        }
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }

    private static void header(StringBuilder out, String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void sample(StringBuilder out, String name, String labels, long value) {
        out.append(name).append(labels).append(' ').append(value).append('\n');
    }

    private static String labels(String... pairs) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < pairs.length; i += 2) {
            if (i > 0) {
                b.append(',');
            }
            b.append(pairs[i]).append("=\"").append(escape(pairs[i + 1])).append('"');
        }
        return b.append('}').toString();
    }

    /** Label value escaping of the text format: backslash, double quote and line feed. */
    static String escape(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    private static String number(double d) {
        if (d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return Double.toString(d);
    }
}
