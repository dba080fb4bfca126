package io.nodegate.render;

import io.nodegate.render.output.Structured;
import io.nodegate.render.output.Style;
import io.nodegate.render.output.TextReport;
import io.nodegate.render.output.TreeReport;
import tools.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What `collect` wrote: where it read, when, how many items each file holds, the notes (optional APIs absent), and
 * the directory. -o wide adds each file's path.
 *
 * @param source      the cluster read (context and server), never credentials
 * @param collectedAt the server's time of the read, which offline audits age against
 * @param files       file name to item count, in the order written
 */
public record CollectOutput(String source, Instant collectedAt, Map<String, Integer> files, List<String> notes,
                            String directory) implements TextReport, TreeReport {

    @Override
    public String text(Style style, boolean wide) {
        StringBuilder out = new StringBuilder();
        out.append("collected from ").append(source).append(" at ").append(collectedAt).append('\n');
        files.forEach((file, count) -> out.append(String.format("  %-32s %6d%s%n", file, count,
                wide ? "   " + directory + "/" + file : "")));
        // a note may carry a server's whole error message: wrapped, so the table fits a terminal
        notes.forEach(n -> FindingsSection.wrap(n, "  note: ", "        ").forEach(l -> out.append(l).append('\n')));
        out.append("wrote ").append(directory).append('\n');
        return out.toString();
    }

    @Override
    public JsonNode tree() {
        return Structured.tree(this);
    }
}
