package io.nodegate.render.output;

import java.util.List;
import java.util.Optional;

/**
 * The registry of output formats: the one place that decides what -o accepts. Every command's -o is checked here
 * against the type of report the command prints; its help and its shell completion list what this returns.
 */
public final class OutputFormats {

    /** Every format, in the order help lists them. */
    public static final List<OutputFormat> ALL = List.of(new TableFormat(), new WideFormat(), new JsonFormat(),
            new YamlFormat(), new NameFormat(), new JunitFormat(), new PolicyReportFormat(), new RuleFileFormat());

    private OutputFormats() {
    }

    public static Optional<OutputFormat> named(String name) {
        return ALL.stream().filter(f -> f.name().equals(name)).findFirst();
    }

    /** The formats a report of this type can be printed in. */
    public static List<OutputFormat> of(Class<?> reportType) {
        return ALL.stream().filter(f -> f.accepts(reportType)).toList();
    }

    public static List<String> names(Class<?> reportType) {
        return of(reportType).stream().map(OutputFormat::name).toList();
    }
}
