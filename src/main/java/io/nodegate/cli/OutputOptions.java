package io.nodegate.cli;

import io.nodegate.render.Structured;
import io.nodegate.render.Style;
import picocli.CommandLine.Option;
import tools.jackson.databind.JsonNode;

import java.util.function.Function;
import java.util.function.Supplier;

/** -o table|wide|json|yaml, shared by every command that prints a report. wide is the table with every column. */
public final class OutputOptions {

    public enum Format { table, wide, json, yaml }

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "table",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Format format = Format.table;

    /** These options with {@code format} chosen, for a command that parses a wider -o of its own (audit). */
    static OutputOptions of(Format format) {
        OutputOptions options = new OutputOptions();
        options.format = format;
        return options;
    }

    public Format format() {
        return format;
    }

    /** A table for people: -o table (fits 120 columns) or -o wide (every column, as kubectl's). */
    public boolean isTable() {
        return format == Format.table || format == Format.wide;
    }

    public boolean wide() {
        return format == Format.wide;
    }

    /** The report in the chosen format: {@code table} with this output's {@link Style}, or the tree as JSON/YAML. */
    public String render(Supplier<JsonNode> tree, Function<Style, String> table) {
        return switch (format) {
            case table, wide -> table.apply(new Style(color()));
            case json -> Structured.json(tree.get());
            case yaml -> Structured.yaml(tree.get());
        };
    }

    /** Colour only on a table, and never when NO_COLOR is set (https://no-color.org) or output is not a terminal. */
    public boolean color() {
        return color(format, System.getenv("NO_COLOR"), System.console() != null);
    }

    /** The colour rule with its inputs explicit, so it can be tested without a terminal or environment. */
    static boolean color(Format format, String noColorEnv, boolean terminal) {
        return (format == Format.table || format == Format.wide) && (noColorEnv == null || noColorEnv.isEmpty()) && terminal;
    }
}
