package io.nodegate.render.output;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;

/** -o json: the report's one JSON shape, indented, ending with a newline. */
public final class JsonFormat implements OutputFormat {

    @Override
    public String name() {
        return "json";
    }

    @Override
    public String summary() {
        return "JSON, to pipe (jq)";
    }

    @Override
    public boolean accepts(Class<?> reportType) {
        return TreeReport.class.isAssignableFrom(reportType);
    }

    @Override
    public String render(Object report, Rendering how) {
        StringWriter text = new StringWriter();
        try {
            write(report, how, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not throw
        }
        return text.toString();
    }

    @Override
    public void write(Object report, Rendering how, Writer out) throws IOException {
        Structured.json((TreeReport) report, out);
    }
}
