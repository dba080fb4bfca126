package io.nodegate.render.output;

/** -o wide: the table with more columns (IDs whole, where counts came from, taints), as kubectl's -o wide. */
public final class WideFormat implements OutputFormat {

    @Override
    public String name() {
        return "wide";
    }

    @Override
    public String summary() {
        return "the table with more columns";
    }

    @Override
    public boolean accepts(Class<?> reportType) {
        return TextReport.class.isAssignableFrom(reportType);
    }

    @Override
    public String render(Object report, Rendering how) {
        return TableFormat.text(report, how, true);
    }
}
