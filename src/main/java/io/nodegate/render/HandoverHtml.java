package io.nodegate.render;

import io.nodegate.handover.HandoverSpec;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.NodeHandover;
import io.nodegate.handover.Step;
import io.nodegate.handover.StepRecord;
import io.nodegate.handover.Timeline;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * `handover report --html`: one self-contained page (inline CSS and SVG, no script, no external asset, no link
 * that leaves the page), written as XHTML so any XML parser can read it back. A timeline per target node, a lane
 * for the silences, the steps, the violations and the last look's checks.
 */
public final class HandoverHtml {

    private static final int LEFT = 20;
    private static final int WIDTH = 960;
    private static final int RIGHT = 40;

    private HandoverHtml() {
    }

    public static String render(NodeHandover h, Instant generatedAt) {
        Map<String, List<Timeline.Event>> lanes = Timeline.of(h);
        Instant[] range = range(lanes);
        HandoverSpec s = h.spec();
        HandoverStatus st = h.status() == null ? HandoverStatus.EMPTY : h.status();
        StringBuilder out = new StringBuilder();
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n");
        out.append("<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"UTF-8\"/>\n");
        out.append("<title>hand-over ").append(esc(h.name())).append("</title>\n<style>\n").append(CSS)
                .append("</style>\n</head>\n<body>\n");
        out.append("<h1>Hand-over ").append(esc(h.name())).append("</h1>\n<p class=\"meta\">")
                .append(esc(s.type() == null ? "?" : s.type().text()));
        if (s.destination() != null) {
            out.append(" to <b>").append(esc(s.destination().cluster())).append("</b>");
        }
        out.append(", due ").append(esc(s.due())).append(", requested by ").append(esc(s.requester()));
        if (s.ticket() != null) {
            out.append(", thread <code>").append(esc(s.ticket())).append("</code>");
        }
        out.append(". Nodes: ").append(esc(String.join(", ", s.nodes()))).append(". ")
                .append(h.closed() ? "Closed by " + esc(s.closed().by()) + " at " + esc(String.valueOf(s.closed().at()))
                        : "Open" + (st.next() == null ? "" : "; next: " + esc(st.next()))).append(".</p>\n");
        out.append("<p class=\"meta\">");
        if (st.observedAt() == null) {
            // a record no look has read yet: say so, never "null by null"
            out.append("No look recorded yet (<code>nodegate handover status ").append(esc(h.name()))
                    .append("</code> writes one).");
        } else {
            out.append("Last look: ").append(esc(time(st.observedAt()))).append(" by ")
                    .append(esc(Objects.toString(st.observedBy(), "?"))).append(" (")
                    .append(esc(Objects.toString(st.verdict(), "no verdict"))).append(").");
        }
        out.append(" Page written ").append(esc(time(generatedAt))).append(".</p>\n");

        out.append("<h2>Steps</h2>\n<table class=\"steps\">\n<tr><th>step</th><th>role</th><th>done by</th>"
                + "<th>at</th><th>message and recorded values</th></tr>\n");
        for (int n = 0; n <= Step.LAST; n++) {
            Step step = Step.of(n);
            StepRecord r = h.step(n).orElse(null);
            out.append("<tr><td>").append(n).append(" ").append(esc(step.title())).append("</td><td>")
                    .append(esc(step.role())).append("</td><td>").append(r == null ? "-" : esc(r.by()))
                    .append("</td><td class=\"time\">").append(r == null ? "-" : esc(time(r.at()))).append("</td><td>")
                    .append(r == null ? "" : esc(Objects.toString(r.message(), "")) + (r.override() == null ? ""
                            : " <span class=\"bad\">override: " + esc(r.override()) + "</span>"));
            if (r != null && !r.evidence().isEmpty()) {
                // every value the step was recorded with (OS, driver, new names and IPs, term, return date, ...)
                out.append("<dl class=\"values\">");
                for (StepRecord.Evidence e : r.evidence()) {
                    out.append("<dt>").append(esc(e.name())).append("</dt><dd>").append(esc(e.value())).append("</dd>");
                }
                out.append("</dl>");
            }
            out.append("</td></tr>\n");
        }
        out.append("</table>\n");

        boolean anyDated = lanes.values().stream().flatMap(List::stream).anyMatch(e -> e.at() != null);
        out.append("<h2>Timeline</h2>\n<p class=\"meta\">")
                .append(anyDated ? "The hand-over's events run from " + esc(time(range[0])) + " to " + esc(time(range[1]))
                        : "No dated event yet")
                .append(". Each lane has its own time axis, from its first event to its last (so events hours apart "
                        + "stay apart in a hand-over that lasts weeks); dashed lines are recorded steps.</p>\n");
        out.append(legend());
        List<Timeline.Event> common = lanes.get(null);
        for (String node : s.nodes()) {
            out.append("<section class=\"lane\">\n<h3>").append(esc(node)).append("</h3>\n");
            out.append(svg(lanes.get(node), common));
            out.append(table(lanes.get(node)));
            out.append("</section>\n");
        }
        out.append("<section class=\"lane\">\n<h3>Hand-over: steps and silences</h3>\n");
        out.append(svg(common, common));
        out.append(table(common));
        out.append("</section>\n");

        out.append("<h2>Violations</h2>\n");
        if (st.violations().isEmpty()) {
            out.append("<p>None seen.</p>\n");
        } else {
            out.append("<table>\n<tr><th>kind</th><th>node</th><th>happened</th><th>first seen</th><th>what</th></tr>\n");
            for (HandoverStatus.Violation v : st.violations()) {
                out.append("<tr class=\"violation\"><td>").append(esc(v.kind())).append("</td><td>")
                        .append(esc(v.node())).append("</td><td class=\"time\">").append(esc(time(v.happenedAt())))
                        .append("</td><td class=\"time\">").append(esc(time(v.firstSeenAt()))).append("</td><td>")
                        .append(esc(v.message())).append("</td></tr>\n");
            }
            out.append("</table>\n");
        }
        if (!st.silences().isEmpty() || !st.alerts().isEmpty()) {
            out.append("<h2>Silences and alerts (last look")
                    .append(st.observedAt() == null ? "" : ", " + esc(time(st.observedAt())))
                    .append(")</h2>\n<table>\n<tr><th>Alertmanager</th><th>state</th><th>detail</th></tr>\n");
            for (HandoverStatus.SilenceRow r : st.silences()) {
                // a row's time is when it was read or written (a close writes what it expired)
                out.append("<tr><td>").append(esc(r.alertmanager())).append("</td><td>").append(esc(r.state()))
                        .append("</td><td>").append(esc(r.detail())).append("</td></tr>\n");
            }
            for (HandoverStatus.AlertRow a : st.alerts()) {
                out.append("<tr><td>").append(esc(String.join(", ", a.alertmanagers()))).append("</td><td>")
                        .append(esc(a.kind())).append("</td><td>").append(esc(a.message()));
                if (a.labels() != null && !a.labels().isEmpty()) {
                    // the alert's own labels: which alert it is, for the person who has to silence or fix it
                    out.append("<div class=\"labels\">");
                    a.labels().forEach(l -> out.append("<code>").append(esc(l)).append("</code> "));
                    out.append("</div>");
                }
                out.append("</td></tr>\n");
            }
            out.append("</table>\n");
        }
        if (!st.checks().isEmpty()) {
            out.append("<h2>Checks (last look)</h2>\n<table>\n<tr><th>step</th><th>node</th><th>check</th>"
                    + "<th>outcome</th><th>why</th></tr>\n");
            for (HandoverStatus.CheckRow c : st.checks()) {
                out.append("<tr><td>").append(c.step()).append("</td><td>").append(esc(Objects.toString(c.node(), "")))
                        .append("</td><td>").append(esc(c.title())).append("</td><td class=\"")
                        .append("PASS".equals(c.outcome()) ? "good" : "NOT_CHECKED".equals(c.outcome()) ? "dim" : "bad")
                        .append("\">").append(esc(c.outcome())).append("</td><td>")
                        .append(esc(String.join("; ", c.reasons()))).append("</td></tr>\n");
            }
            out.append("</table>\n");
        }
        out.append("</body>\n</html>\n");
        return out.toString();
    }

    private static Instant[] range(Map<String, List<Timeline.Event>> lanes) {
        Instant min = null;
        Instant max = null;
        for (List<Timeline.Event> lane : lanes.values()) {
            for (Timeline.Event e : lane) {
                if (e.at() == null) {
                    continue;
                }
                min = min == null || e.at().isBefore(min) ? e.at() : min;
                max = max == null || e.at().isAfter(max) ? e.at() : max;
            }
        }
        if (min == null) {
            Instant now = Instant.EPOCH;
            return new Instant[]{now, now.plusSeconds(1)};
        }
        if (!max.isAfter(min)) {
            max = min.plusSeconds(1);
        }
        return new Instant[]{min, max};
    }

    private static double x(Instant at, Instant[] range) {
        double span = Duration.between(range[0], range[1]).toMillis();
        double off = Duration.between(range[0], at).toMillis();
        return LEFT + (WIDTH - LEFT - RIGHT) * (span <= 0 ? 0.5 : off / span);
    }

    /** Height of one label row, and the estimated width of one character of a label (10 px sans-serif). */
    private static final int ROW = 14;
    private static final double CHAR = 6.2;

    /**
     * One lane: a line on the lane's own time axis (its first event to its last), a tick per recorded step inside
     * that span, a marker per event, and each marker's label on the first row below the axis where it overlaps no
     * other label (so nine events of one afternoon never stack their words). Labels stay inside the drawing.
     */
    private static String svg(List<Timeline.Event> events, List<Timeline.Event> steps) {
        List<Timeline.Event> dated = events.stream().filter(e -> e.at() != null).toList();
        Instant[] range = range(Map.of("lane", dated));
        List<List<double[]>> rows = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (Timeline.Event e : dated) {
            double x = x(e.at(), range);
            String label = e.label();
            double w = label.length() * CHAR;
            double from = Math.max(2, Math.min(x - w / 2, WIDTH - 2 - w));
            int row = 0;
            while (row < rows.size() && overlaps(rows.get(row), from, from + w)) {
                row++;
            }
            if (row == rows.size()) {
                rows.add(new ArrayList<>());
            }
            rows.get(row).add(new double[]{from, from + w});
            labels.add(String.format(java.util.Locale.ROOT, "<line x1=\"%.1f\" y1=\"25\" x2=\"%.1f\" y2=\"%d\" "
                    + "class=\"leader\"/>%n<text x=\"%.1f\" y=\"%d\" class=\"label %s\">%s</text>%n", x, x,
                    38 + row * ROW - 9, from, 38 + row * ROW, css(e.kind()), esc(label)));
        }
        int height = 46 + Math.max(1, rows.size()) * ROW;
        StringBuilder out = new StringBuilder();
        out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100%\" viewBox=\"0 0 ").append(WIDTH).append(' ')
                .append(height).append("\" role=\"img\">\n");
        out.append("<line x1=\"").append(LEFT).append("\" y1=\"20\" x2=\"").append(WIDTH - RIGHT)
                .append("\" y2=\"20\" class=\"axis\"/>\n");
        for (Timeline.Event s : steps) {
            if (Timeline.STEP.equals(s.kind()) && s.at() != null && !s.at().isBefore(range[0])
                    && !s.at().isAfter(range[1])) {
                double x = x(s.at(), range);
                out.append(String.format(java.util.Locale.ROOT, "<line x1=\"%.1f\" y1=\"8\" x2=\"%.1f\" y2=\"%d\" "
                        + "class=\"stepline\"><title>%s</title></line>%n", x, x, 30, esc(s.label())));
            }
        }
        for (Timeline.Event e : dated) {
            out.append(String.format(java.util.Locale.ROOT, "<circle cx=\"%.1f\" cy=\"20\" r=\"5\" class=\"%s\">"
                    + "<title>%s: %s</title></circle>%n", x(e.at(), range), css(e.kind()), esc(time(e.at())),
                    esc(e.label() + " - " + e.detail())));
        }
        labels.forEach(out::append);
        // the lane's own axis, named at both ends under the last row of labels
        int axisY = height - 4;
        out.append("<text x=\"").append(LEFT).append("\" y=\"").append(axisY).append("\" class=\"axislabel\">")
                .append(dated.isEmpty() ? "no dated event" : esc(time(range[0]))).append("</text>\n");
        if (dated.size() > 1 && range[1].isAfter(range[0])) {
            out.append("<text x=\"").append(WIDTH - RIGHT).append("\" y=\"").append(axisY)
                    .append("\" class=\"axislabel\" text-anchor=\"end\">").append(esc(time(range[1]))).append("</text>\n");
        }
        out.append("</svg>\n");
        return out.toString();
    }

    private static boolean overlaps(List<double[]> row, double from, double to) {
        for (double[] r : row) {
            if (from < r[1] + 6 && to > r[0] - 6) {
                return true;
            }
        }
        return false;
    }

    /** A time as a person reads it: to the second, in UTC (a record may carry nanoseconds; nobody reads those). */
    static String time(Instant at) {
        return at == null ? "-" : TIME.format(at);
    }

    private static final java.time.format.DateTimeFormatter TIME = java.time.format.DateTimeFormatter
            .ofPattern("yyyy-MM-dd HH:mm:ss'Z'", java.util.Locale.ROOT).withZone(java.time.ZoneOffset.UTC);

    private static String table(List<Timeline.Event> events) {
        StringBuilder out = new StringBuilder("<table class=\"events\">\n<tr><th>at</th><th>event</th><th>detail</th>"
                + "</tr>\n");
        for (Timeline.Event e : events) {
            out.append("<tr class=\"").append(css(e.kind())).append("\"><td class=\"time\">").append(esc(time(e.at())))
                    .append("</td><td>").append(esc(e.label())).append("</td><td>").append(esc(e.detail()))
                    .append("</td></tr>\n");
        }
        return out.append("</table>\n").toString();
    }

    private static String legend() {
        List<String[]> kinds = new ArrayList<>();
        kinds.add(new String[]{Timeline.CORDON, "cordon"});
        kinds.add(new String[]{Timeline.LEASE, "Lease stop"});
        kinds.add(new String[]{Timeline.REPLY, "owner's reply"});
        kinds.add(new String[]{Timeline.REMOVAL_TIME, "stated removal"});
        kinds.add(new String[]{Timeline.GATE, "gate"});
        kinds.add(new String[]{Timeline.DELETE, "DELETE"});
        kinds.add(new String[]{Timeline.VERIFY, "verify-gone"});
        kinds.add(new String[]{Timeline.DESTINATION, "seen elsewhere"});
        kinds.add(new String[]{Timeline.SILENCE, "silence"});
        kinds.add(new String[]{Timeline.VIOLATION, "violation"});
        StringBuilder out = new StringBuilder("<p class=\"legend\">");
        for (String[] k : kinds) {
            out.append("<span class=\"key ").append(css(k[0])).append("\">").append(esc(k[1])).append("</span> ");
        }
        return out.append("</p>\n").toString();
    }

    private static String css(String kind) {
        return "k-" + kind;
    }

    /** Text and attribute values escaped for XML (and so for HTML). */
    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> {
                    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
                        out.append(' ');
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    private static final String CSS = """
            body { font-family: sans-serif; margin: 1.5em; color: #222; }
            h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; } h3 { font-size: 1em; }
            .meta { color: #555; }
            table { border-collapse: collapse; margin: 0.4em 0 1em 0; }
            th, td { border: 1px solid #ccc; padding: 2px 6px; font-size: 0.85em; text-align: left; vertical-align: top; }
            th { background: #f0f0f0; }
            .axis { stroke: #888; stroke-width: 1; }
            .stepline { stroke: #bbb; stroke-dasharray: 3 3; }
            .label { font-size: 10px; }
            .axislabel { font-size: 9px; fill: #666; }
            .leader { stroke: #ccc; stroke-width: 1; }
            svg { max-width: 960px; display: block; }
            td.time { white-space: nowrap; }
            dl.values { margin: 2px 0 0 0; font-size: 0.9em; color: #444; }
            dl.values dt { float: left; clear: left; margin-right: 0.5em; font-family: monospace; }
            dl.values dd { margin: 0 0 0 0; overflow-wrap: break-word; }
            .labels code { font-size: 0.85em; margin-right: 0.4em; }
            @page { size: A4; margin: 12mm; }
            @media print {
              body { margin: 0; font-size: 10pt; }
              section.lane { break-inside: avoid; }
              tr { break-inside: avoid; }
            }
            .good { color: #17612b; } .bad { color: #a11; font-weight: bold; } .dim { color: #888; }
            .key { padding: 1px 6px; border-radius: 3px; margin-right: 4px; font-size: 0.8em; color: #fff; }
            circle.k-step, .key.k-step { fill: #777; background: #777; }
            circle.k-cordon, .key.k-cordon { fill: #3465a4; background: #3465a4; }
            circle.k-lease-stop, .key.k-lease-stop { fill: #75507b; background: #75507b; }
            circle.k-reply, .key.k-reply { fill: #4e9a06; background: #4e9a06; }
            circle.k-stated-removal, .key.k-stated-removal { fill: #8ae234; background: #6a9a26; }
            circle.k-gate, .key.k-gate { fill: #c4a000; background: #c4a000; }
            circle.k-delete, .key.k-delete { fill: #ce5c00; background: #ce5c00; }
            circle.k-verify-gone, .key.k-verify-gone { fill: #06989a; background: #06989a; }
            circle.k-destination, .key.k-destination { fill: #204a87; background: #204a87; }
            circle.k-silence, .key.k-silence { fill: #888a85; background: #888a85; }
            circle.k-violation, .key.k-violation { fill: #cc0000; background: #cc0000; }
            circle.k-closed { fill: #000; }
            text.k-violation { fill: #cc0000; font-weight: bold; }
            tr.k-violation td, tr.violation td { background: #fde8e8; }
            """;
}
