package io.nodegate.render.output;

import io.nodegate.render.output.Style;

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

    /**
     * The report's text with every control character from its data escaped ({@link TerminalText}); colour codes
     * are written as marks first and become codes only after that, so none of them is escaped and no data can
     * pass for one.
     */
    static String text(Object report, Rendering how, boolean wide) {
        Style style = how.style().color() ? Style.marked() : Style.PLAIN;
        String text = how.noHeaders() && report instanceof ListReport list
                ? list.rows(style, wide)
                : ((TextReport) report).text(style, wide);
        return style.finish(TerminalText.escape(text));
    }
}
