package io.nodegate.render.controlplane;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.detect.controlplane.ViewsTable;

import java.util.ArrayList;
import java.util.List;

/** What `nodegate views` prints: the side-by-side table, the NG207 findings and notes. */
@JsonPropertyOrder({"views", "rows", "findings", "notes"})
public record ViewsReport(List<ViewsTable.ViewSummary> views, List<ViewsTable.Row> rows, List<Finding> findings,
                          List<String> notes) {

    public ViewsReport {
        views = List.copyOf(views);
        rows = List.copyOf(rows);
        findings = List.copyOf(findings);
        notes = List.copyOf(notes);
    }

    public static ViewsReport of(ViewsTable table, List<Finding> findings, List<String> notes) {
        return new ViewsReport(table.views(), table.rows(), findings, notes);
    }

    public boolean hasWarningOrWorse() {
        return findings.stream().anyMatch(f -> f.severity().atLeast(Severity.WARNING));
    }

    public String table() {
        StringBuilder out = new StringBuilder();
        TextTable summary = new TextTable("VIEW", "SERVER", "VERSION", "NODES", "SOURCE");
        for (ViewsTable.ViewSummary v : views) {
            summary.row(v.name(), orDash(v.server()), orDash(v.serverVersion()), String.valueOf(v.nodeCount()),
                    orDash(v.source()));
        }
        out.append(summary.render()).append('\n');
        List<String> header = new ArrayList<>();
        header.add("NODE");
        views.forEach(v -> header.add(v.name()));
        TextTable side = new TextTable(header.toArray(String[]::new));
        for (ViewsTable.Row row : rows) {
            List<String> cells = new ArrayList<>();
            cells.add(row.node());
            for (ViewsTable.ViewSummary v : views) {
                ViewsTable.Cell c = row.cells().get(v.name());
                cells.add(c == null ? "-" : readyWord(c.ready()) + " " + c.uidShort());
            }
            side.row(cells.toArray(String[]::new));
        }
        out.append(side.render());
        out.append("(cell: Ready status and uid prefix; - = the view has no such Node)\n");
        out.append(FindingsText.render(findings, notes));
        return out.toString();
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
