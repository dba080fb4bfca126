package io.nodegate.render;

import io.nodegate.render.output.Structured;
import io.nodegate.render.output.Style;
import io.nodegate.handover.HandoverSpec;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.NodeHandover;
import io.nodegate.handover.Step;
import io.nodegate.handover.StepRecord;

import io.nodegate.render.output.ListReport;
import io.nodegate.render.output.TextReport;
import io.nodegate.render.output.TreeReport;
import tools.jackson.databind.JsonNode;

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
            // the thread's address on a line of its own when the title would pass 120 columns with it
            int title = out.length() - style.bold("hand-over " + h.name()).length() + ("hand-over " + h.name()).length();
            boolean fits = title + ", thread ".length() + s.ticket().length() <= TextTable.FIT;
            out.append(fits ? ", thread " : ",\n  thread ").append(s.ticket());
        }
        out.append('\n');
        FindingsSection.fit("nodes: " + String.join(", ", s.nodes()), "  ", "         ")
                .forEach(l -> out.append(l).append('\n'));
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
                c.reasons().forEach(r -> wrap(r, "        - ", "          ")
                        .forEach(l -> out.append(l).append('\n')));
            }
        }
        if (!st.readErrors().isEmpty()) {
            out.append("read errors (nothing they would have shown is known):\n");
            st.readErrors().forEach(e -> wrap(e, "  - ", "    ")
                    .forEach(l -> out.append(l).append('\n')));
        }
        out.append("violations: ").append(st.violations().isEmpty() ? "none" : st.violations().size()).append('\n');
        for (HandoverStatus.Violation v : st.violations()) {
            out.append("  ").append(v.kind()).append(" ").append(v.node())
                    .append(v.happenedAt() == null ? "" : ": happened " + v.happenedAt())
                    .append(", first seen ").append(v.firstSeenAt())
                    .append(Boolean.TRUE.equals(v.seenNow()) ? " (seen now)" : ", last seen " + v.lastSeenAt())
                    .append('\n');
            wrap(v.message(), "      ", "      ").forEach(l -> out.append(l).append('\n'));
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
                StringBuilder alert = new StringBuilder(a.kind()).append(": ");
                if (!a.labels().isEmpty() && !"mixed-group".equals(a.kind())) {
                    alert.append("{").append(String.join(", ", a.labels())).append("} ");
                }
                alert.append(a.message());
                if (!a.alertmanagers().isEmpty()) {
                    alert.append(" (").append(String.join(", ", a.alertmanagers())).append(")");
                }
                wrap(alert.toString(), "  ", "      ").forEach(l -> out.append(l).append('\n'));
            }
        }
        if (st.omitted() != null && st.omitted().any()) {
            out.append("left out of the record (its lists are bounded):\n");
            st.omitted().describe().forEach(d -> wrap(d, "  - ", "    ").forEach(l -> out.append(l).append('\n')));
        }
        List<HandoverStatus.Sighting> seen = st.sightings();
        if (!seen.isEmpty()) {
            out.append("seen in other clusters:\n");
            for (HandoverStatus.Sighting x : seen) {
                String line = x.node() + ": " + x.name() + " in " + x.cluster()
                        + (Boolean.TRUE.equals(x.destination()) ? " (destination)" : "") + ", created " + x.created()
                        + ", Ready=" + x.ready() + ", first seen " + x.firstSeenAt();
                wrap(line, "  ", "      ").forEach(l -> out.append(l).append('\n'));
            }
        }
        return out.toString();
    }

    private static boolean sameBut(HandoverStatus.CheckRow a, HandoverStatus.CheckRow b) {
        return b.node() != null && a.step() == b.step() && a.id().equals(b.id()) && a.outcome().equals(b.outcome())
                && a.title().equals(b.title()) && a.reasons().isEmpty() && b.reasons().isEmpty();
    }

    /**
     * Word-wraps a line of the hand-over to 120 columns, never inside a `command` the reader is meant to paste
     * (the next step's command line stays whole on its line).
     */
    private static List<String> wrap(String text, String first, String rest) {
        StringBuilder kept = new StringBuilder();
        boolean inCode = false;
        for (char c : text.toCharArray()) {
            inCode ^= c == '`';
            kept.append(inCode && c == ' ' ? '\u00a0' : c);
        }
        return FindingsSection.wrap(kept.toString(), first, rest).stream().map(l -> l.replace('\u00a0', ' ')).toList();
    }

    /**
     * Hand-overs as `handover open|step|status|close` print them: one in full ({@code single}), or one line each
     * (`status` without NAME); -o name lists them as kubectl would (nodehandover.nodegate.io/NAME), --no-headers
     * prints the lines alone. {@code tree} is the object (or {"items": [...]}) as the API server stores it.
     */
    public record Output(List<NodeHandover> handovers, boolean single, JsonNode tree, List<String> notes)
            implements ListReport, TreeReport {

        @Override
        public String text(Style style, boolean wide) {
            StringBuilder out = new StringBuilder();
            if (single) {
                out.append(render(handovers.get(0), style));
            } else {
                out.append(handovers.isEmpty() ? "no hand-overs\n" : listTable(handovers, wide).render(style));
            }
            notes.forEach(n -> out.append("note: ").append(n).append('\n'));
            return out.toString();
        }

        @Override
        public String rows(Style style, boolean wide) {
            return listTable(handovers, wide).rows(style);
        }

        @Override
        public List<String> names() {
            return handovers.stream().map(h -> "nodehandover.nodegate.io/" + h.name()).toList();
        }
    }

    /** `handover report --html FILE`: where the page went, and what it holds. */
    public record PageOutput(String file, long bytes, String handover, int nodes, int violations)
            implements TextReport, TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            String wrote = String.format("wrote %s (%d bytes):", file, bytes);
            String what = String.format("hand-over %s, %d node(s), %d violation(s)", handover, nodes, violations);
            return wrote.length() + 1 + what.length() <= TextTable.FIT ? wrote + " " + what + "\n"
                    : wrote + "\n  " + what + "\n";
        }

        @Override
        public JsonNode tree() {
            return Structured.tree(this);
        }
    }

    /** {@code wide} adds the type, who asked and the thread. */
    private static TextTable listTable(List<NodeHandover> all, boolean wide) {
        TextTable table = wide ? new TextTable("NAME", "STEP", "NODES", "DESTINATION", "DUE", "VIOLATIONS", "NEXT",
                "PHASE", "TYPE", "REQUESTER", "THREAD")
                : new TextTable("NAME", "STEP", "NODES", "DESTINATION", "DUE", "VIOLATIONS", "NEXT", "PHASE");
        for (NodeHandover h : all) {
            HandoverStatus st = h.status() == null ? HandoverStatus.EMPTY : h.status();
            List<String> cells = new ArrayList<>(List.of(h.name(), st.step() == null ? "-" : st.step(),
                    String.join(",", h.spec().nodes()),
                    h.spec().destination() == null ? "-" : h.spec().destination().cluster(),
                    String.valueOf(h.spec().due()), String.valueOf(st.violationCount() == null ? 0
                            : st.violationCount()), st.next() == null ? "-" : st.next(),
                    h.closed() ? HandoverStatus.CLOSED : HandoverStatus.OPEN));
            if (wide) {
                cells.add(h.spec().type() == null ? "-" : h.spec().type().text());
                cells.add(h.spec().requester() == null ? "-" : h.spec().requester());
                cells.add(h.spec().ticket() == null ? "-" : h.spec().ticket());
            }
            table.row(cells.toArray(String[]::new));
        }
        return table;
    }
}
