package io.nodegate.cli;

import picocli.CommandLine.Option;

/** -o table|json|yaml, shared by every command that prints a report. */
public final class OutputOptions {

    public enum Format { table, json, yaml }

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "table",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Format format = Format.table;

    public Format format() {
        return format;
    }

    /** Colour only on a table, and never when NO_COLOR is set (https://no-color.org) or output is not a terminal. */
    public boolean color() {
        return color(format, System.getenv("NO_COLOR"), System.console() != null);
    }

    /** The colour rule with its inputs explicit, so it can be tested without a terminal or environment. */
    static boolean color(Format format, String noColorEnv, boolean terminal) {
        return format == Format.table && (noColorEnv == null || noColorEnv.isEmpty()) && terminal;
    }
}
