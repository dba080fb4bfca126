package io.nodegate.render.controlplane;

import io.nodegate.detect.Finding;

import java.util.List;
import java.util.Locale;

/** The findings block shared by the control-plane commands' tables. */
final class FindingsText {
    private FindingsText() {
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
                out.append("           ").append(f.message()).append('\n');
                if (f.hint() != null) {
                    out.append("           What to do: ").append(f.hint()).append('\n');
                }
            }
        }
        if (!notes.isEmpty()) {
            out.append("\nNotes:\n");
            notes.forEach(n -> out.append("  - ").append(n).append('\n'));
        }
        return out.toString();
    }
}
