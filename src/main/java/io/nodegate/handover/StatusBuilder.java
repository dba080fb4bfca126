package io.nodegate.handover;

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
        List<HandoverStatus.Violation> violationList = tail(new ArrayList<>(violations.values()),
                HandoverStatus.VIOLATION_LIMIT);

        Map<String, HandoverStatus.Sighting> sightings = new LinkedHashMap<>();
        prev.sightings().forEach(s -> sightings.put(s.node() + "|" + s.cluster() + "|" + s.name(), s));
        for (HandoverReading.Other o : r.others()) {
            if (o.error() != null) {
                continue;
            }
            for (HandoverSpec.Target t : h.spec().targets()) {
                for (NodeInfo n : HostIdentity.appearances(t, o.nodes())) {
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
        return new HandoverStatus(at, look.observedBy(), h.closed() ? HandoverStatus.CLOSED : HandoverStatus.OPEN,
                last < 0 ? null : Step.of(last).label(), next, verdict.name(), violationList.size(), r.errors(), rows,
                violationList, silences, alerts, tail(new ArrayList<>(sightings.values()),
                HandoverStatus.SIGHTING_LIMIT), tail(history, HandoverStatus.HISTORY_LIMIT));
    }

    /** Adds history entries (a recorded step, the close) to a status without a new look. */
    public static HandoverStatus withHistory(HandoverStatus status, List<HandoverStatus.HistoryEntry> entries) {
        HandoverStatus s = status == null ? HandoverStatus.EMPTY : status;
        List<HandoverStatus.HistoryEntry> history = new ArrayList<>(s.history());
        history.addAll(entries);
        return new HandoverStatus(s.observedAt(), s.observedBy(), s.phase(), s.step(), s.next(), s.verdict(),
                s.violationCount(), s.readErrors(), s.checks(), s.violations(), s.silences(), s.alerts(),
                s.sightings(), tail(history, HandoverStatus.HISTORY_LIMIT));
    }

    private static <T> List<T> tail(List<T> list, int limit) {
        return list.size() <= limit ? list : list.subList(list.size() - limit, list.size());
    }

    /** Status strings stay under the CRD's maxLength. */
    static String cut(String s) {
        return s == null || s.length() <= 1000 ? s : s.substring(0, 999) + "…";
    }
}
