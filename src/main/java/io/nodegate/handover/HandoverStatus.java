package io.nodegate.handover;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.List;

/**
 * What nodegate read the last time it looked at the hand-over (a {@code handover} command or a pass of the watch),
 * written to the status subresource. Violations, sightings and history accumulate: a violation seen once stays on
 * the record with when it happened and when nodegate first saw it, even after the condition went away.
 *
 * @param observedAt     when this status was read
 * @param observedBy     what wrote it ("handover status", "watch/&lt;pod&gt;")
 * @param phase          Open or Closed
 * @param step           the last recorded step ("2: host cleanup"; the STEP column)
 * @param next           the next step and its state ("3: gate, delete, first check: HOLD")
 * @param verdict        the worst outcome of the checks below (INVALID when a read failed)
 * @param violationCount how many violations the record holds (the VIOLATIONS column)
 * @param readErrors     the reads that failed in this look: nothing they would have shown is known
 * @param checks         every check of the recorded steps and of the next one
 * @param violations     every violation of the procedure's don'ts seen so far
 * @param silences       the hand-over's silence on each Alertmanager replica
 * @param alerts         target alerts that are not silenced, and groups a silence cannot help
 * @param sightings      target hosts seen in another cluster (the destination or any other cluster read)
 * @param history        what happened, oldest first (silences created, vanished and re-created, violations seen,
 *                       steps recorded, the close); the oldest entries go when it exceeds {@link #HISTORY_LIMIT}
 * @param omitted        how many items each list left out to stay within the CRD's bounds (null: none)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record HandoverStatus(Instant observedAt, String observedBy, String phase, String step, String next,
                             String verdict, Integer violationCount, List<String> readErrors, List<CheckRow> checks,
                             List<Violation> violations, List<SilenceRow> silences, List<AlertRow> alerts,
                             List<Sighting> sightings, List<HistoryEntry> history, Omitted omitted) {

    public static final String OPEN = "Open";
    public static final String CLOSED = "Closed";
    /** Bounds the CRD also states: a status that grew without end would one day be refused by the API server. */
    public static final int HISTORY_LIMIT = 200;
    public static final int VIOLATION_LIMIT = 200;
    public static final int SIGHTING_LIMIT = 200;
    public static final int READ_ERROR_LIMIT = 50;
    public static final int CHECK_LIMIT = 1000;
    public static final int SILENCE_LIMIT = 16;
    public static final int ALERT_LIMIT = 200;
    /** Bounds of the lists inside a row, and of every string. */
    public static final int REASON_LIMIT = 20;
    public static final int SILENCE_ID_LIMIT = 20;
    public static final int ROW_ALERTMANAGER_LIMIT = 16;
    public static final int LABEL_LIMIT = 64;
    public static final int GROUP_BY_LIMIT = 32;
    public static final int OTHER_NODE_LIMIT = 500;
    public static final int TEXT_LENGTH = 1024;

    public HandoverStatus {
        readErrors = readErrors == null ? List.of() : List.copyOf(readErrors);
        checks = checks == null ? List.of() : List.copyOf(checks);
        violations = violations == null ? List.of() : List.copyOf(violations);
        silences = silences == null ? List.of() : List.copyOf(silences);
        alerts = alerts == null ? List.of() : List.copyOf(alerts);
        sightings = sightings == null ? List.of() : List.copyOf(sightings);
        history = history == null ? List.of() : List.copyOf(history);
    }

    public HandoverStatus(Instant observedAt, String observedBy, String phase, String step, String next,
                          String verdict, Integer violationCount, List<String> readErrors, List<CheckRow> checks,
                          List<Violation> violations, List<SilenceRow> silences, List<AlertRow> alerts,
                          List<Sighting> sightings, List<HistoryEntry> history) {
        this(observedAt, observedBy, phase, step, next, verdict, violationCount, readErrors, checks, violations,
                silences, alerts, sightings, history, null);
    }

    public static final HandoverStatus EMPTY = new HandoverStatus(null, null, null, null, null, null, null, null,
            null, null, null, null, null, null, null);

    /**
     * How many items each list of the status left out to stay within the CRD's bounds (a status over them is
     * refused by the API server). The lists of one look (readErrors, checks, silences, alerts) count what this
     * look left out, with items cut inside rows (labels, other nodes, reasons) in {@code withinRows}; the lists
     * that accumulate (violations, sightings, history: the oldest go) count everything left out so far.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Omitted(Integer readErrors, Integer checks, Integer violations, Integer silences, Integer alerts,
                          Integer sightings, Integer history, Integer withinRows) {

        public static final Omitted NONE = new Omitted(null, null, null, null, null, null, null, null);

        public boolean any() {
            return !equals(NONE);
        }

        /** In words, for `status`: "210 alerts: 10 left out", … */
        public List<String> describe() {
            List<String> out = new java.util.ArrayList<>();
            add(out, readErrors, "read errors", READ_ERROR_LIMIT);
            add(out, checks, "checks", CHECK_LIMIT);
            add(out, violations, "violations (the oldest)", VIOLATION_LIMIT);
            add(out, silences, "silence rows (one per Alertmanager)", SILENCE_LIMIT);
            add(out, alerts, "alert rows", ALERT_LIMIT);
            add(out, sightings, "sightings (the oldest)", SIGHTING_LIMIT);
            add(out, history, "history entries (the oldest)", HISTORY_LIMIT);
            if (withinRows != null && withinRows > 0) {
                out.add(withinRows + " items inside rows (labels, other nodes, reasons, ids or alertmanagers beyond "
                        + "a row's bound)");
            }
            return out;
        }

        private static void add(List<String> out, Integer n, String what, int limit) {
            if (n != null && n > 0) {
                out.add(n + " " + what + " beyond the " + limit + " the record holds");
            }
        }
    }

    /** One check of one step, about one node or the whole hand-over (node null). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record CheckRow(int step, String id, String node, String outcome, String title, List<String> reasons) {
        public CheckRow {
            reasons = reasons == null ? List.of() : List.copyOf(reasons);
        }
    }

    /**
     * One violation of the procedure's don'ts.
     *
     * @param key         what identifies it across reads (kind, node, and what was seen)
     * @param kind        {@link Violations} kinds: renamed-or-readdressed, host-in-another-cluster,
     *                    notready-read-as-cleanup, deleted-outside-the-procedure, step-contradicted
     * @param happenedAt  when the thing itself happened, when the cluster records it (a Node's creation in another
     *                    cluster); null when nothing records it
     * @param firstSeenAt the first read that showed it
     * @param lastSeenAt  the last read that showed it
     * @param seenNow     whether the latest read still shows it
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Violation(String key, String kind, String node, String message, Instant happenedAt,
                            Instant firstSeenAt, Instant lastSeenAt, Boolean seenNow) {
    }

    /** The hand-over's silence on one Alertmanager replica. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SilenceRow(String alertmanager, String state, List<String> silenceIDs, Instant endsAt,
                             String detail) {
        public SilenceRow {
            silenceIDs = silenceIDs == null ? List.of() : List.copyOf(silenceIDs);
        }
    }

    /**
     * A target alert that fires unsilenced ({@code kind} active), or a notification group a silence cannot help
     * (mixed-group): the receiver keeps getting it because of other nodes' alerts.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record AlertRow(String kind, List<String> alertmanagers, String message, List<String> labels,
                           String receiver, List<String> groupBy, List<String> otherNodes) {
        public AlertRow {
            alertmanagers = alertmanagers == null ? List.of() : List.copyOf(alertmanagers);
            labels = labels == null ? List.of() : List.copyOf(labels);
            groupBy = groupBy == null ? List.of() : List.copyOf(groupBy);
            otherNodes = otherNodes == null ? List.of() : List.copyOf(otherNodes);
        }
    }

    /** A target host seen as a Node of another cluster. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Sighting(String node, String cluster, String name, Instant created, Instant firstSeenAt,
                           String ready, Boolean destination) {
    }

    /** One thing that happened to the hand-over. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record HistoryEntry(Instant at, String type, String node, String message) {
    }
}
