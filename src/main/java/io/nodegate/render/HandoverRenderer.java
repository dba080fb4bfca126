package io.nodegate.render;

import io.nodegate.handover.HandoverSpec;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.NodeHandover;
import io.nodegate.handover.Step;
import io.nodegate.handover.StepRecord;

import java.util.ArrayList;
import java.util.List;

/** A hand-over as people read it on a terminal: the record, the checks, the violations, the silences. */
public final class HandoverRenderer {

    private HandoverRenderer() {
    }

    /** Everything about one hand-over: what was recorded, then what nodegate read the last time it looked. */
    public static String render(NodeHandover h, Style style) {
        StringBuilder out = new StringBuilder();
        HandoverSpec s = h.spec();
        HandoverStatus st = h.status() == null ? HandoverStatus.EMPTY : h.status();
        out.append(style.bold("hand-over " + h.name())).append(": ").append(s.type() == null ? "?" : s.type().text());
        if (s.destination() != null) {
            out.append(" to ").append(s.destination().cluster());
            if (s.destination().context() != null) {
                out.append(" (context ").append(s.destination().context()).append(")");
            }
        }
        out.append(", due ").append(s.due()).append(", requested by ").append(s.requester());
        if (s.ticket() != null) {
            out.append(", thread ").append(s.ticket());
        }
        out.append('\n');
        out.append("  nodes: ").append(String.join(", ", s.nodes())).append('\n');
        out.append("  ").append(h.closed() ? "closed by " + s.closed().by() + " at " + s.closed().at()
                + (s.closed().reason() == null ? "" : " (" + s.closed().reason() + ")") : "open");
        if (st.next() != null) {
            out.append("; next: ").append(st.next());
        }
        out.append('\n');
        out.append("steps:\n");
        for (int n = 0; n <= Step.LAST; n++) {
            StepRecord r = h.step(n).orElse(null);
            Step step = Step.of(n);
            if (r == null) {
                out.append(String.format("  %d %-26s %s%n", n, step.title(), style.dim("- (" + step.role() + ")")));
                continue;
            }
            out.append(String.format("  %d %-26s done by %s at %s%s%n", n, step.title(), r.by(), r.at(),
                    r.message() == null ? "" : ": " + r.message()));
            if (r.override() != null) {
                out.append("      override: ").append(r.override()).append('\n');
            }
        }
        if (!st.checks().isEmpty()) {
            out.append("checks (").append(st.observedAt()).append(", ").append(st.observedBy()).append("): ")
                    .append(st.verdict()).append('\n');
            // rows that say the same thing about several nodes are one line naming them
            List<HandoverStatus.CheckRow> rows = st.checks();
            for (int i = 0; i < rows.size(); i++) {
                HandoverStatus.CheckRow c = rows.get(i);
                List<String> nodes = new ArrayList<>();
                if (c.node() != null) {
                    nodes.add(c.node());
                }
                while (i + 1 < rows.size() && c.node() != null && sameBut(c, rows.get(i + 1))) {
                    nodes.add(rows.get(++i).node());
                }
                String outcome = "NOT_CHECKED".equals(c.outcome()) ? "not checked" : c.outcome();
                out.append(String.format("  [%d] %-11s %s%s%n", c.step(), outcome, c.title(),
                        nodes.isEmpty() ? "" : ": " + String.join(", ", nodes)));
                c.reasons().forEach(r -> out.append("        - ").append(r).append('\n'));
            }
        }
        if (!st.readErrors().isEmpty()) {
            out.append("read errors (nothing they would have shown is known):\n");
            st.readErrors().forEach(e -> out.append("  - ").append(e).append('\n'));
        }
        out.append("violations: ").append(st.violations().isEmpty() ? "none" : st.violations().size()).append('\n');
        for (HandoverStatus.Violation v : st.violations()) {
            out.append("  ").append(v.kind()).append(" ").append(v.node())
                    .append(v.happenedAt() == null ? "" : ": happened " + v.happenedAt())
                    .append(", first seen ").append(v.firstSeenAt())
                    .append(Boolean.TRUE.equals(v.seenNow()) ? " (seen now)" : ", last seen " + v.lastSeenAt())
                    .append('\n');
            out.append("      ").append(v.message()).append('\n');
        }
        if (!st.silences().isEmpty() || !s.alertmanagers().isEmpty()) {
            out.append("silences:").append(st.silences().isEmpty() ? " not read\n" : "\n");
            for (HandoverStatus.SilenceRow r : st.silences()) {
                out.append("  ").append(r.alertmanager()).append("  ").append(r.state()).append(": ").append(r.detail())
                        .append('\n');
            }
        }
        if (!st.alerts().isEmpty()) {
            out.append("alerts:\n");
            for (HandoverStatus.AlertRow a : st.alerts()) {
                out.append("  ").append(a.kind()).append(": ");
                if (!a.labels().isEmpty() && !"mixed-group".equals(a.kind())) {
                    out.append("{").append(String.join(", ", a.labels())).append("} ");
                }
                out.append(a.message());
                if (!a.alertmanagers().isEmpty()) {
                    out.append(" (").append(String.join(", ", a.alertmanagers())).append(")");
                }
                out.append('\n');
            }
        }
        List<HandoverStatus.Sighting> seen = st.sightings();
        if (!seen.isEmpty()) {
            out.append("seen in other clusters:\n");
            for (HandoverStatus.Sighting x : seen) {
                out.append("  ").append(x.node()).append(": ").append(x.name()).append(" in ").append(x.cluster())
                        .append(Boolean.TRUE.equals(x.destination()) ? " (destination)" : "").append(", created ")
                        .append(x.created()).append(", Ready=").append(x.ready()).append(", first seen ")
                        .append(x.firstSeenAt()).append('\n');
            }
        }
        return out.toString();
    }

    private static boolean sameBut(HandoverStatus.CheckRow a, HandoverStatus.CheckRow b) {
        return b.node() != null && a.step() == b.step() && a.id().equals(b.id()) && a.outcome().equals(b.outcome())
                && a.title().equals(b.title()) && a.reasons().isEmpty() && b.reasons().isEmpty();
    }

    /** One line per hand-over, as `kubectl get nodehandovers` would show it plus what nodegate adds. */
    public static String list(List<NodeHandover> all) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[]{"NAME", "STEP", "NODES", "DESTINATION", "DUE", "VIOLATIONS", "NEXT", "PHASE"});
        for (NodeHandover h : all) {
            HandoverStatus st = h.status() == null ? HandoverStatus.EMPTY : h.status();
            rows.add(new String[]{h.name(), st.step() == null ? "-" : st.step(),
                    String.join(",", h.spec().nodes()),
                    h.spec().destination() == null ? "-" : h.spec().destination().cluster(),
                    String.valueOf(h.spec().due()), String.valueOf(st.violationCount() == null ? 0
                    : st.violationCount()), st.next() == null ? "-" : st.next(),
                    h.closed() ? HandoverStatus.CLOSED : HandoverStatus.OPEN});
        }
        int[] width = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                line.append(i == r.length - 1 ? r[i] : String.format("%-" + (width[i] + 2) + "s", r[i]));
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }
}
