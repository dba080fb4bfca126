package io.nodegate.render;

import io.nodegate.render.output.Style;
import io.nodegate.detect.Finding;

import java.util.ArrayList;
import java.util.List;

/**
 * The findings block every command prints under its own table: one entry per finding with code, severity,
 * name and nodes, then the message and hint word-wrapped so a long explanation stays readable in a terminal.
 * Findings arrive already sorted.
 */
public final class FindingsSection {

    /** Lines are wrapped to this many columns; a word longer than a line stays whole. */
    static final int WIDTH = 110;
    private static final String INDENT = "    ";

    private FindingsSection() {
    }

    /** The findings, then (after a blank line) the notes if there are any: what every table output ends with. */
    public static String block(List<Finding> findings, List<String> notes, Style style) {
        String notesText = notes(notes, style);
        return render(findings, style) + (notesText.isEmpty() ? "" : "\n" + notesText);
    }

    public static String render(List<Finding> findings, Style style) {
        StringBuilder out = new StringBuilder();
        out.append(style.bold("FINDINGS (" + findings.size() + ")")).append('\n');
        if (findings.isEmpty()) {
            out.append("  none\n");
            return out.toString();
        }
        for (Finding f : findings) {
            String head = "  " + f.code() + " " + f.severity().label() + "  " + (f.name() == null ? "" : f.name());
            out.append("  ").append(style.severity(f.severity(), f.code() + " " + f.severity().label()))
                    .append("  ").append(f.name() == null ? "" : f.name());
            // the subject nodes follow the name; a long list goes on indented lines below it, whole names only
            int column = head.length();
            for (int i = 0; i < f.nodes().size(); i++) {
                String node = f.nodes().get(i) + (i < f.nodes().size() - 1 ? "," : "");
                String gap = i == 0 ? "  " : " ";
                if (column + gap.length() + node.length() > TextTable.FIT && column > INDENT.length()) {
                    out.append('\n').append(INDENT);
                    column = INDENT.length();
                    gap = "";
                }
                out.append(gap).append(node);
                column += gap.length() + node.length();
            }
            out.append('\n');
            wrap(f.message(), INDENT, INDENT).forEach(l -> out.append(l).append('\n'));
            if (f.hint() != null && !f.hint().isBlank()) {
                wrap("hint: " + f.hint(), INDENT, INDENT).forEach(l -> out.append(style.dim(l)).append('\n'));
            }
        }
        return out.toString();
    }

    public static String notes(List<String> notes, Style style) {
        if (notes.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder(style.bold("NOTES")).append('\n');
        notes.forEach(n -> wrap(n, "  - ", INDENT).forEach(l -> out.append(l).append('\n')));
        return out.toString();
    }

    /**
     * A header line of parts ("source: ...", "now: ..."), three spaces apart while the line stays within
     * {@link TextTable#FIT} columns, else each further part on its own line; a part longer than a line continues on
     * indented lines, broken between words only (a path broken in two cannot be pasted).
     */
    public static String header(Style style, String... parts) {
        StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder();
        for (String part : parts) {
            if (line.length() > 0 && line.length() + 3 + part.length() > TextTable.FIT) {
                fit(line.toString(), "", "  ").forEach(l -> out.append(style.dim(l)).append('\n'));
                line = new StringBuilder();
            }
            line.append(line.length() > 0 ? "   " : "").append(part);
        }
        // a part longer than a line by itself continues on indented lines, broken between words only
        fit(line.toString(), "", "  ").forEach(l -> out.append(style.dim(l)).append('\n'));
        return out.toString();
    }

    /**
     * {@code first + text} as one line when it fits {@link TextTable#FIT} columns, else word-wrapped as
     * {@link #wrap}: lines that fit stay exactly as they were.
     */
    static List<String> fit(String text, String first, String rest) {
        return first.length() + text.length() <= TextTable.FIT ? List.of(first + text) : wrap(text, first, rest);
    }

    /** Word-wraps {@code text} to {@link #WIDTH}: the first line starts with {@code first}, the rest with {@code rest}. */
    static List<String> wrap(String text, String first, String rest) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder(first);
        int start = first.length();
        for (String word : text.strip().split("\\s+")) {
            if (line.length() > start && line.length() + 1 + word.length() > WIDTH) {
                lines.add(line.toString());
                line = new StringBuilder(rest);
                start = rest.length();
            }
            if (line.length() > start) {
                line.append(' ');
            }
            line.append(word);
        }
        lines.add(line.toString());
        return lines;
    }
}
