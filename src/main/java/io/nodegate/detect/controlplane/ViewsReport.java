package io.nodegate.detect.controlplane;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.nodegate.detect.Finding;

import java.util.List;

/**
 * What `nodegate views` found: the side-by-side rows, the NG207 findings and notes. Rendering is
 * {@code io.nodegate.render.ViewsRenderer}'s job; JSON/YAML follow the component order below.
 */
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
}
