package io.nodegate.source.json;

import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Parser failures in words that never quote the input. SnakeYAML's messages carry an excerpt of the offending line
 * (with a caret under it), and Jackson's name the unrecognised token: for a config.yaml whose `token:` value has an
 * unclosed quote, that excerpt is the join token (a red-team pass found it on stderr). So a message here says where
 * (line and column) and what kind of problem, with source lines dropped and any quoted text longer than one
 * character replaced by an ellipsis.
 */
public final class ParseErrors {

    private static final Pattern QUOTED = Pattern.compile("'[^'\\n]{2,}'|\"[^\"\\n]{2,}\"|`[^`\\n]{2,}`");

    private ParseErrors() {
    }

    /** " at line N, column M" (1-based), or "" when the parser did not say where. */
    public static String at(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof JacksonException je && je.getLocation() != null && je.getLocation().getLineNr() > 0) {
                TokenStreamLocation loc = je.getLocation();
                return " at line " + loc.getLineNr() + (loc.getColumnNr() > 0 ? ", column " + loc.getColumnNr() : "");
            }
            if (t instanceof MarkedYamlEngineException ye) {
                Optional<Mark> mark = ye.getProblemMark().or(ye::getContextMark);
                if (mark.isPresent()) {
                    return " at line " + (mark.get().getLine() + 1) + ", column " + (mark.get().getColumn() + 1);
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return "";
    }

    /** What went wrong, in the parser's words, without any text of the input. */
    public static String problem(Throwable e) {
        String raw = e instanceof JacksonException je ? je.getOriginalMessage() : e.getMessage();
        if (raw == null || raw.isBlank()) {
            return "(no detail)";
        }
        List<String> lines = new ArrayList<>();
        for (String line : raw.split("\\R")) {
            String t = line.strip();
            // SnakeYAML: " in reader, line 3, column 8:", then the source line indented by 4, then the caret
            if (t.isEmpty() || t.startsWith("in ") || t.startsWith("^") || t.startsWith("at [")
                    || line.startsWith("    ")) {
                continue;
            }
            lines.add(QUOTED.matcher(t).replaceAll("'…'"));
        }
        return lines.isEmpty() ? "(no detail)" : String.join("; ", lines);
    }

    /** "FILE is not valid YAML at line N, column M (problem)": the usual sentence. */
    public static String describe(String file, String format, Throwable e) {
        return file + " is not valid " + format + at(e) + " (" + problem(e) + "; the line is not shown, it may hold "
                + "a secret)";
    }
}
