package io.nodegate.cli;

import io.nodegate.InputException;
import io.nodegate.render.output.Style;
import io.nodegate.render.output.ListReport;
import io.nodegate.render.output.OutputFormat;
import io.nodegate.render.output.OutputFormats;
import io.nodegate.render.output.Rendering;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.stream.Collectors;

/**
 * -o FORMAT, the one output path of every command: a command declares the type of report it prints
 * ({@code OutputOptions.of(AuditRenderer.Output.class)}), the registry ({@link OutputFormats}) says which formats
 * can print it, and a format it cannot print is a usage error (exit 2) while the line is parsed, before anything is
 * read or changed. Commands whose report lists things ({@link ListReport}) also take --no-headers.
 */
public class OutputOptions {

    private final Class<?> reportType;
    private final OutputFormat defaultFormat;
    private OutputFormat chosen;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    OutputOptions(Class<?> reportType, String defaultFormat) {
        this.reportType = reportType;
        this.defaultFormat = OutputFormats.named(defaultFormat).filter(f -> f.accepts(reportType))
                .orElseThrow(() -> new IllegalArgumentException(defaultFormat + " cannot print " + reportType));
    }

    /** -o for a command printing reports of {@code reportType}, table by default. */
    static OutputOptions of(Class<?> reportType) {
        return of(reportType, "table");
    }

    static OutputOptions of(Class<?> reportType, String defaultFormat) {
        return ListReport.class.isAssignableFrom(reportType) ? new Listing(reportType, defaultFormat)
                : new OutputOptions(reportType, defaultFormat);
    }

    /**
     * What -o does with a value that is no output format at all, for a command whose -o meant something else before
     * (collect's -o DIR): true when taken. Formats still win, so `-o json` is always JSON.
     */
    private java.util.function.Predicate<String> otherMeaning;

    /** These options, with {@code otherMeaning} for a value that names no format (see the field). */
    OutputOptions orElse(java.util.function.Predicate<String> otherMeaning) {
        this.otherMeaning = otherMeaning;
        return this;
    }

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", description = "Output format.")
    void format(String name) {
        OutputFormat format = OutputFormats.named(name).orElse(null);
        if (format == null && otherMeaning != null && otherMeaning.test(name)) {
            return;
        }
        if (format == null || !format.accepts(reportType)) {
            String message = "-o " + name + ": " + (format == null ? "no such output format" : refusal(format))
                    + "; " + commandName() + " takes " + choices();
            if (command == null || command.commandLine() == null) {
                throw new InputException(message);
            }
            throw new CommandLine.ParameterException(command.commandLine(), message);
        }
        chosen = format;
    }

    /** Why a known format does not fit this command's report, in the user's words. */
    private static String refusal(OutputFormat format) {
        return switch (format.name()) {
            case "name" -> "this command prints no list of named things";
            case "junit", "policyreport" -> "only audit's findings are test cases and policy results";
            case "rule-file" -> "only alerts prints Prometheus rules";
            case "table", "wide" -> "this command prints no table";
            default -> "this command's output has no " + format.name() + " form";
        };
    }

    private String commandName() {
        return command == null ? "this command" : command.qualifiedName().replaceFirst("^nodegate ", "");
    }

    /** The formats this command takes, in the registry's order: "table, wide, json, yaml or name". */
    String choices() {
        List<String> names = formats();
        return names.size() == 1 ? names.get(0)
                : String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
    }

    List<String> formats() {
        return OutputFormats.names(reportType);
    }

    /** The chosen format's name (the default when -o was not given). */
    public String format() {
        return current().name();
    }

    private OutputFormat current() {
        return chosen != null ? chosen : defaultFormat;
    }

    /** A table for people (-o table or -o wide): progress and notes go to stdout with it, else to stderr. */
    public boolean isTable() {
        return "table".equals(format()) || "wide".equals(format());
    }

    public boolean wide() {
        return "wide".equals(format());
    }

    /** --no-headers (only commands that list things have it). */
    boolean noHeaders() {
        return false;
    }

    /** Colour only on a table, and only under {@link Terminal}'s rule. */
    boolean color() {
        return isTable() && Terminal.colour();
    }

    /** Prints {@code report}, which must be of the type this command declared, in the chosen format. */
    void print(PrintWriter out, Object report) {
        if (!reportType.isInstance(report)) {
            throw new IllegalStateException(commandName() + " printed a " + report.getClass().getSimpleName()
                    + " but declared " + reportType.getSimpleName());
        }
        try {
            // written as it is made (-o json, -o yaml), not built into one String first: see OutputFormat#write
            current().write(report, rendering(), out);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e); // a PrintWriter keeps its errors to itself; no other writer comes here
        }
        out.flush();
    }

    String render(Object report) {
        return current().render(report, rendering());
    }

    private Rendering rendering() {
        return new Rendering(new Style(color()), noHeaders());
    }

    /** The help text of -o for this command: its formats and default, and a line on each special format. */
    String description() {
        String special = OutputFormats.of(reportType).stream()
                .filter(f -> !List.of("table", "wide", "json", "yaml", "name").contains(f.name()))
                .map(f -> f.name() + ": " + f.summary()).collect(Collectors.joining("; "));
        return "Output format: " + choices() + " (default: " + defaultFormat.name() + ")."
                + (formats().contains("wide") ? " wide adds columns." : "")
                + (formats().contains("name") ? " name: kind/name per line, as kubectl's." : "")
                + (special.isEmpty() ? "" : " " + special + ". See docs/output.md.");
    }

    /**
     * Gives every command's -o the help text and completion candidates of its own formats (picocli's annotations
     * are the same for every command that mixes these options in).
     */
    static void describeEverywhere(CommandLine cl) {
        CommandSpec spec = cl.getCommandSpec();
        for (CommandSpec mixin : spec.mixins().values()) {
            if (mixin.userObject() instanceof OutputOptions output) {
                OptionSpec option = spec.findOption("--output");
                if (option != null) {
                    spec.remove(option);
                    spec.addOption(OptionSpec.builder(option).description(output.description())
                            .completionCandidates(output.formats()).build());
                }
            }
        }
        cl.getSubcommands().values().stream().distinct().forEach(OutputOptions::describeEverywhere);
    }

    /** -o for a report that lists things: also -o name and --no-headers. */
    static final class Listing extends OutputOptions {

        @Option(names = "--no-headers",
                description = "With -o table or wide: the rows of the list alone (no header line, no source line, no "
                        + "findings), for awk and while read; the exit code still tells findings. Ignored by other "
                        + "formats, as kubectl's.")
        boolean noHeaders;

        Listing(Class<?> reportType, String defaultFormat) {
            super(reportType, defaultFormat);
        }

        @Override
        boolean noHeaders() {
            return noHeaders;
        }
    }
}
