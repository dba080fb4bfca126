package io.nodegate.render.output;

/** -o table: for people; fits 120 columns on the examples. With --no-headers, a list's rows alone. */
public final class TableFormat implements OutputFormat {

    @Override
    public String name() {
        return "table";
    }

    @Override
    public String summary() {
        return "for people; fits 120 columns";
    }

    @Override
    public boolean accepts(Class<?> reportType) {
        return TextReport.class.isAssignableFrom(reportType);
    }

    @Override
    public String render(Object report, Rendering how) {
        return text(report, how, false);
    }

    static String text(Object report, Rendering how, boolean wide) {
        if (how.noHeaders() && report instanceof ListReport list) {
            return list.rows(how.style(), wide);
        }
        return ((TextReport) report).text(how.style(), wide);
    }
}
