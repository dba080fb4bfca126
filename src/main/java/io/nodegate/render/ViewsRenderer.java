package io.nodegate.render;

import io.nodegate.render.output.Structured;
import io.nodegate.render.output.Style;
import io.nodegate.detect.controlplane.ViewsReport;
import io.nodegate.detect.controlplane.ViewsTable;

import io.nodegate.render.output.ListReport;
import io.nodegate.render.output.TreeReport;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/** Prints a {@link ViewsReport}: one line per view, the Nodes side by side, then findings and notes. */
public final class ViewsRenderer {

    private ViewsRenderer() {
    }

    /** The comparison as `views` prints it: -o name lists the Nodes of any view (node/NAME). */
    public record Output(ViewsReport report) implements ListReport, TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            return table(report, style, wide);
        }

        @Override
        public String rows(Style style, boolean wide) {
            return sideBySide(report).rows(style);
        }

        @Override
        public List<String> names() {
            return report.rows().stream().map(r -> "node/" + r.node()).toList();
        }

        @Override
        public JsonNode tree() {
            return Structured.tree(report);
        }
    }

    public static String table(ViewsReport report, Style style) {
        return table(report, style, false);
    }

    /** The default fits 120 columns; {@code wide} adds each view's SOURCE (where and when it was read). */
    public static String table(ViewsReport report, Style style, boolean wide) {
        StringBuilder out = new StringBuilder();
        TextTable summary = wide ? new TextTable("VIEW", "SERVER", "VERSION", "NODES", "SOURCE")
                : new TextTable("VIEW", "SERVER", "VERSION", "NODES");
        for (ViewsTable.ViewSummary v : report.views()) {
            if (wide) {
                summary.row(v.name(), orDash(v.server()), orDash(v.serverVersion()), String.valueOf(v.nodeCount()),
                        orDash(v.source()));
            } else {
                summary.row(v.name(), orDash(v.server()), orDash(v.serverVersion()), String.valueOf(v.nodeCount()));
            }
        }
        out.append(summary.render(style)).append('\n');
        out.append(sideBySide(report).render(style));
        out.append(style.dim("(cell: Ready status and uid prefix; - = the view has no such Node)")).append("\n\n");
        out.append(FindingsSection.block(report.findings(), report.notes(), style));
        return out.toString();
    }

    private static TextTable sideBySide(ViewsReport report) {
        List<String> header = new ArrayList<>();
        header.add("NODE");
        report.views().forEach(v -> header.add(v.name()));
        TextTable side = new TextTable(header.toArray(String[]::new));
        for (ViewsTable.Row row : report.rows()) {
            List<String> cells = new ArrayList<>();
            cells.add(row.node());
            for (ViewsTable.ViewSummary v : report.views()) {
                ViewsTable.Cell c = row.cells().get(v.name());
                cells.add(c == null ? "-" : readyWord(c.ready()) + " " + c.uidShort());
            }
            side.row(cells.toArray(String[]::new));
        }
        return side;
    }

    private static String readyWord(String status) {
        return switch (status) {
            case "True" -> "Ready";
            case "False" -> "NotReady(False)";
            case "Unknown" -> "NotReady(Unknown)";
            default -> "NoReadyCondition";
        };
    }

    private static String orDash(String s) {
        return s == null || s.isBlank() ? "-" : s;
    }
}
