package io.nodegate.render.output;

import io.nodegate.render.output.Structured;

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
        return Structured.json(((TreeReport) report).tree());
    }
}
