package io.nodegate.render;

import io.nodegate.detect.Finding;

import java.util.List;

/**
 * The findings block every command prints under its own table: one entry per finding with code, severity,
 * nodes, message and hint. Findings arrive already sorted.
 */
public final class FindingsSection {

    private FindingsSection() {
    }

    public static String render(List<Finding> findings, Style style) {
        StringBuilder out = new StringBuilder();
        out.append(style.bold("FINDINGS (" + findings.size() + ")")).append('\n');
        if (findings.isEmpty()) {
            out.append("  none\n");
            return out.toString();
        }
        for (Finding f : findings) {
            out.append("  ").append(style.severity(f.severity(), f.code() + " " + f.severity().label()))
                    .append("  ").append(f.name() == null ? "" : f.name())
                    .append("  ").append(String.join(", ", f.nodes())).append('\n');
            out.append("    ").append(f.message()).append('\n');
            if (f.hint() != null && !f.hint().isBlank()) {
                out.append("    ").append(style.dim("hint: " + f.hint())).append('\n');
            }
        }
        return out.toString();
    }

    public static String notes(List<String> notes, Style style) {
        if (notes.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder(style.bold("NOTES")).append('\n');
        notes.forEach(n -> out.append("  - ").append(n).append('\n'));
        return out.toString();
    }
}
