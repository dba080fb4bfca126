package io.nodegate.handover;

import io.nodegate.model.HostIdentity;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.NodeInfo;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The next {@link HandoverStatus} from the previous one and a look: checks replaced, violations and sightings
 * accumulated (a violation keeps when it happened and when it was first seen; one the latest read no longer shows
 * stays on the record, marked not seen now, but only when every read succeeded: a failed read never clears
 * anything), history appended. Pure.
 */
public final class StatusBuilder {

    private StatusBuilder() {
    }

    /** What a look found, ready to be merged into the status. */
    public record Look(HandoverReading reading, List<StepCheck> checks, List<Violations.Seen> violations,
                       List<HandoverStatus.HistoryEntry> events, String observedBy) {
        public Look {
            checks = List.copyOf(checks);
            violations = List.copyOf(violations);
            events = events == null ? List.of() : List.copyOf(events);
        }
    }

    /** Checks and violations of one look (the decisions), with the silence events it carries. */
    public static Look look(NodeHandover h, HandoverReading r, String observedBy) {
        return new Look(r, HandoverChecks.all(h, r), Violations.detect(h, r),
                r.silences() == null ? List.of() : r.silences().events(), observedBy);
    }

    public static HandoverStatus next(NodeHandover h, Look look) {
        HandoverStatus prev = h.status() == null ? HandoverStatus.EMPTY : h.status();
        HandoverReading r = look.reading();
        Instant at = r.at();
        boolean allRead = r.errors().isEmpty();
        List<HandoverStatus.HistoryEntry> history = new ArrayList<>(prev.history());
        history.addAll(look.events());

        Map<String, HandoverStatus.Violation> violations = new LinkedHashMap<>();
        prev.violations().forEach(v -> violations.put(v.key(), allRead
                ? new HandoverStatus.Violation(v.key(), v.kind(), v.node(), v.message(), v.happenedAt(),
                v.firstSeenAt(), v.lastSeenAt(), false) : v));
        for (Violations.Seen s : look.violations()) {
            HandoverStatus.Violation old = violations.get(s.key());
            if (old == null) {
                history.add(new HandoverStatus.HistoryEntry(at, "violation", s.node(), s.kind() + ": " + s.message()));
                violations.put(s.key(), new HandoverStatus.Violation(s.key(), s.kind(), s.node(), s.message(),
                        s.happenedAt(), at, at, true));
            } else {
                violations.put(s.key(), new HandoverStatus.Violation(s.key(), s.kind(), s.node(), old.message(),
                        old.happenedAt() != null ? old.happenedAt() : s.happenedAt(), old.firstSeenAt(), at, true));
            }
        }
        List<HandoverStatus.Violation> violationList = new ArrayList<>(violations.values());

        Map<String, HandoverStatus.Sighting> sightings = new LinkedHashMap<>();
        prev.sightings().forEach(s -> sightings.put(s.node() + "|" + s.cluster() + "|" + s.name(), s));
        for (HandoverReading.Other o : r.others()) {
            if (o.error() != null) {
                continue;
            }
            for (HandoverSpec.Target t : h.spec().targets()) {
                for (NodeInfo n : HostIdentity.appearances(t.systemUuid(), t.machineId(), o.nodes())) {
                    String key = t.node() + "|" + o.name() + "|" + n.name();
                    HandoverStatus.Sighting old = sightings.get(key);
                    if (old == null) {
                        history.add(new HandoverStatus.HistoryEntry(at, "seen", t.node(), t.node() + "'s host seen as "
                                + n.name() + " in " + o.name() + (o.destination() ? " (the destination)" : "")
                                + ", created " + n.created() + ", Ready=" + n.readyStatus()));
                    }
                    sightings.put(key, new HandoverStatus.Sighting(t.node(), o.name(), n.name(), n.created(),
                            old == null ? at : old.firstSeenAt(), n.readyStatus(), o.destination()));
                }
            }
        }

        List<HandoverStatus.CheckRow> rows = new ArrayList<>();
        for (StepCheck c : look.checks()) {
            Check k = c.check();
            rows.add(new HandoverStatus.CheckRow(c.step(), k.id(), c.node(), k.outcome().name(), k.title(),
                    k.reasons().stream().limit(10).map(StatusBuilder::cut).toList()));
        }
        Verdict verdict = StepCheck.worst(look.checks());
        if (!allRead) {
            verdict = Verdict.INVALID;
        }
        int last = h.lastStep();
        String next = null;
        if (!h.closed() && last < Step.LAST) {
            Step n = Step.of(last + 1);
            Verdict nv = StepCheck.worst(look.checks().stream().filter(c -> c.step() == n.number()).toList());
            next = n.label() + ": " + nv;
        }

        List<HandoverStatus.SilenceRow> silences = new ArrayList<>();
        List<HandoverStatus.AlertRow> alerts = new ArrayList<>();
        if (r.silences() != null) {
            for (SilenceDecision.Replica rep : r.silences().replicas()) {
                silences.add(new HandoverStatus.SilenceRow(rep.url(), rep.state(), rep.effective(), rep.endsAt(),
                        cut(rep.detail())));
            }
            for (SilenceDecision.Unsilenced u : r.silences().unsilenced()) {
                alerts.add(new HandoverStatus.AlertRow(u.state(), u.alertmanagers(), cut(u.detail()),
                        u.labels().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList(), null,
                        null, null));
            }
            for (SilenceDecision.MixedGroup g : r.silences().groups()) {
                alerts.add(new HandoverStatus.AlertRow("mixed-group", g.alertmanagers(),
                        cut(HandoverChecks.mixedGroupText(g)), g.labels().entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue()).toList(), g.receiver(), g.groupBy(), g.otherNodes()));
            }
            for (String p : r.silences().peering()) {
                alerts.add(new HandoverStatus.AlertRow("not-peered", List.of(), cut(p), null, null, null, null));
            }
        }
        // what earlier looks left out of the lists that accumulate stays counted; this look's lists start afresh
        HandoverStatus.Omitted before = prev.omitted() == null ? HandoverStatus.Omitted.NONE : prev.omitted();
        return bounded(new HandoverStatus(at, look.observedBy(), h.closed() ? HandoverStatus.CLOSED
                : HandoverStatus.OPEN, last < 0 ? null : Step.of(last).label(), next, verdict.name(),
                violationList.size(), r.errors(), rows, violationList, silences, alerts,
                new ArrayList<>(sightings.values()), history, new HandoverStatus.Omitted(null, null,
                before.violations(), null, null, before.sightings(), before.history(), null)));
    }

    /**
     * The status cut to the CRD's bounds, each cut counted in {@link HandoverStatus#omitted()}: the API server
     * refuses a status with one item or one character too many, and a refused write leaves the record unwritten
     * and every later look failing. Lists of one look keep their first items (alert rows: unsilenced target alerts,
     * then groups, then the rest); lists that accumulate keep the newest. Strings keep their first 1000 characters.
     */
    public static HandoverStatus bounded(HandoverStatus s) {
        HandoverStatus.Omitted o = s.omitted() == null ? HandoverStatus.Omitted.NONE : s.omitted();
        int[] inRows = {o.withinRows() == null ? 0 : o.withinRows()};
        List<String> errors = head(s.readErrors(), HandoverStatus.READ_ERROR_LIMIT).stream().map(StatusBuilder::cut)
                .toList();
        List<HandoverStatus.CheckRow> checks = head(s.checks(), HandoverStatus.CHECK_LIMIT).stream()
                .map(c -> new HandoverStatus.CheckRow(c.step(), cut(c.id()), cut(c.node()), cut(c.outcome()),
                        cut(c.title()), within(c.reasons(), HandoverStatus.REASON_LIMIT, inRows))).toList();
        List<HandoverStatus.Violation> violations = tail(s.violations(), HandoverStatus.VIOLATION_LIMIT).stream()
                .map(v -> new HandoverStatus.Violation(cut(v.key()), cut(v.kind()), cut(v.node()), cut(v.message()),
                        v.happenedAt(), v.firstSeenAt(), v.lastSeenAt(), v.seenNow())).toList();
        List<HandoverStatus.SilenceRow> silences = head(s.silences(), HandoverStatus.SILENCE_LIMIT).stream()
                .map(r -> new HandoverStatus.SilenceRow(cut(r.alertmanager()), cut(r.state()),
                        within(r.silenceIDs(), HandoverStatus.SILENCE_ID_LIMIT, inRows), r.endsAt(), cut(r.detail())))
                .toList();
        List<HandoverStatus.AlertRow> alerts = firstByKind(s.alerts(), HandoverStatus.ALERT_LIMIT).stream()
                .map(a -> new HandoverStatus.AlertRow(cut(a.kind()), within(a.alertmanagers(),
                        HandoverStatus.ROW_ALERTMANAGER_LIMIT, inRows), cut(a.message()),
                        within(a.labels(), HandoverStatus.LABEL_LIMIT, inRows), cut(a.receiver()),
                        within(a.groupBy(), HandoverStatus.GROUP_BY_LIMIT, inRows),
                        within(a.otherNodes(), HandoverStatus.OTHER_NODE_LIMIT, inRows))).toList();
        List<HandoverStatus.Sighting> sightings = tail(s.sightings(), HandoverStatus.SIGHTING_LIMIT).stream()
                .map(x -> new HandoverStatus.Sighting(cut(x.node()), cut(x.cluster()), cut(x.name()), x.created(),
                        x.firstSeenAt(), cut(x.ready()), x.destination())).toList();
        List<HandoverStatus.HistoryEntry> history = tail(s.history(), HandoverStatus.HISTORY_LIMIT).stream()
                .map(e -> new HandoverStatus.HistoryEntry(e.at(), cut(e.type()), cut(e.node()), cut(e.message())))
                .toList();
        HandoverStatus.Omitted omitted = new HandoverStatus.Omitted(
                count(o.readErrors(), s.readErrors().size() - errors.size()),
                count(o.checks(), s.checks().size() - checks.size()),
                count(o.violations(), s.violations().size() - violations.size()),
                count(o.silences(), s.silences().size() - silences.size()),
                count(o.alerts(), s.alerts().size() - alerts.size()),
                count(o.sightings(), s.sightings().size() - sightings.size()),
                count(o.history(), s.history().size() - history.size()), count(null, inRows[0]));
        Integer violationCount = s.violationCount() == null ? null
                : violations.size() + (omitted.violations() == null ? 0 : omitted.violations());
        return new HandoverStatus(s.observedAt(), cut(s.observedBy()), cut(s.phase()), cut(s.step()), cut(s.next()),
                cut(s.verdict()), violationCount, errors, checks, violations, silences, alerts, sightings, history,
                omitted.any() ? omitted : null);
    }

    private static Integer count(Integer before, int now) {
        int n = (before == null ? 0 : before) + Math.max(0, now);
        return n == 0 ? null : n;
    }

    private static <T> List<T> head(List<T> list, int limit) {
        return list.size() <= limit ? list : list.subList(0, limit);
    }

    private static List<String> within(List<String> list, int limit, int[] omitted) {
        omitted[0] += Math.max(0, list.size() - limit);
        return head(list, limit).stream().map(StatusBuilder::cut).toList();
    }

    /** The alert rows to keep: unsilenced target alerts first, then groups, then the rest; in their order. */
    private static List<HandoverStatus.AlertRow> firstByKind(List<HandoverStatus.AlertRow> rows, int limit) {
        if (rows.size() <= limit) {
            return rows;
        }
        List<String> rank = List.of("active", "mixed-group", "not-peered");
        List<Integer> keep = java.util.stream.IntStream.range(0, rows.size()).boxed()
                .sorted(java.util.Comparator.comparingInt(i -> {
                    int r = rank.indexOf(rows.get(i).kind());
                    return r < 0 ? rank.size() : r;
                })).limit(limit).sorted().toList();
        return keep.stream().map(rows::get).toList();
    }

    /** Adds history entries (a recorded step, the close) to a status without a new look. */
    public static HandoverStatus withHistory(HandoverStatus status, List<HandoverStatus.HistoryEntry> entries) {
        HandoverStatus s = status == null ? HandoverStatus.EMPTY : status;
        List<HandoverStatus.HistoryEntry> history = new ArrayList<>(s.history());
        history.addAll(entries);
        return bounded(new HandoverStatus(s.observedAt(), s.observedBy(), s.phase(), s.step(), s.next(), s.verdict(),
                s.violationCount(), s.readErrors(), s.checks(), s.violations(), s.silences(), s.alerts(),
                s.sightings(), history, s.omitted()));
    }

    private static <T> List<T> tail(List<T> list, int limit) {
        return list.size() <= limit ? list : list.subList(list.size() - limit, list.size());
    }

    /** Status strings stay under the CRD's maxLength. */
    public static String cut(String s) {
        return s == null || s.length() <= 1000 ? s : s.substring(0, 999) + "…";
    }
}
