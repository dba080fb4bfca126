package io.nodegate.render.output;

/** -o rule-file: a plain Prometheus rule file (`groups:`) for promtool and a Prometheus without the operator. */
public final class RuleFileFormat implements OutputFormat {

    @Override
    public String name() {
        return "rule-file";
    }

    @Override
    public String summary() {
        return "a Prometheus rule file (groups:), for promtool";
    }

    @Override
    public boolean accepts(Class<?> reportType) {
        return RuleFileReport.class.isAssignableFrom(reportType);
    }

    @Override
    public String render(Object report, Rendering how) {
        return ((RuleFileReport) report).ruleFile();
    }
}
