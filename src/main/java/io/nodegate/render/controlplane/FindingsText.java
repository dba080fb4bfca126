package io.nodegate.render.controlplane;

import io.nodegate.detect.Finding;

import java.util.List;
import java.util.Locale;

/** The findings block shared by the control-plane commands' tables. */
final class FindingsText {
    private static final String INDENT = "           ";
    private static final int WIDTH = 110;

    private FindingsText() {
    }

    /** Word-wraps a paragraph so findings stay readable in a terminal; words longer than a line stay whole. */
    static String wrap(String text, String indent) {
        StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder(indent);
        for (String word : text.split(" ")) {
            if (line.length() > indent.length() && line.length() + 1 + word.length() > WIDTH) {
                out.append(line).append('\n');
                line = new StringBuilder(indent);
            }
            if (line.length() > indent.length()) {
                line.append(' ');
            }
            line.append(word);
        }
        return out.append(line).append('\n').toString();
    }

    static String render(List<Finding> findings, List<String> notes) {
        StringBuilder out = new StringBuilder();
        if (findings.isEmpty()) {
            out.append("\nNo findings.\n");
        } else {
            out.append("\nFindings:\n");
            for (Finding f : findings) {
                out.append(String.format(Locale.ROOT, "  %-8s %s %s%s%n", f.severity().label().toUpperCase(Locale.ROOT),
                        f.code(), f.name(), f.nodes().isEmpty() ? "" : "  [" + String.join(", ", f.nodes()) + "]"));
                out.append(wrap(f.message(), INDENT));
                if (f.hint() != null) {
                    out.append(wrap("What to do: " + f.hint(), INDENT));
                }
            }
        }
        if (!notes.isEmpty()) {
            out.append("\nNotes:\n");
            notes.forEach(n -> out.append("  - ").append(wrap(n, "    ").substring(4)));
        }
        return out.toString();
    }
}
