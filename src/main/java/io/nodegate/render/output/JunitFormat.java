package io.nodegate.render.output;

import io.nodegate.render.output.JunitReport;

/** -o junit: JUnit XML for CI test reports (Jenkins, GitLab), a testcase per finding and per clean check. */
public final class JunitFormat implements OutputFormat {

    @Override
    public String name() {
        return "junit";
    }

    @Override
    public String summary() {
        return "JUnit XML for CI (a testcase per finding, a passing one per clean check)";
    }

    @Override
    public boolean accepts(Class<?> reportType) {
        return CheckedFindings.class.isAssignableFrom(reportType);
    }

    @Override
    public String render(Object report, Rendering how) {
        CheckedFindings checked = (CheckedFindings) report;
        return JunitReport.xml(checked.findings(), checked.checks(), checked.skipped());
    }
}
