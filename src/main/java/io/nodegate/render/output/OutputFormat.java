package io.nodegate.render.output;

import java.io.IOException;
import java.io.Writer;

/**
 * One value of {@code -o}: which reports it can print, and how. Adding a format is one class implementing this,
 * listed in {@link OutputFormats#ALL}; every command that prints a report of a type the format accepts then takes
 * it, its help lists it, and OutputEverywhereTest runs it.
 *
 * <p>A format decides by the capabilities a report implements ({@link TextReport}, {@link TreeReport},
 * {@link ListReport}, ...), never by the command: a command declares the type of report it prints, so a format it
 * cannot print is refused while the command line is parsed, before anything is read or changed.
 */
public interface OutputFormat {

    /** The word after -o. */
    String name();

    /** One line for the help of -o and docs/output.md. */
    String summary();

    /** Whether a report of this type can be printed in this format. */
    boolean accepts(Class<?> reportType);

    /** The report in this format; {@code report} is of a type this format {@link #accepts}. */
    String render(Object report, Rendering how);

    /**
     * The report in this format, written to {@code out}. Formats whose text can be large (-o json, -o yaml) write it
     * as they make it rather than build it whole first: at the end of a large audit the heap already holds the
     * report, and a String of the output (with the buffer it was built in) would come on top.
     */
    default void write(Object report, Rendering how, Writer out) throws IOException {
        out.write(render(report, how));
    }
}
