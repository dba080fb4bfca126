package io.nodegate.render.output;

import io.nodegate.render.output.PolicyReports;
import io.nodegate.render.output.Structured;

import java.util.Map;
import java.util.TreeMap;

/**
 * -o policyreport: wgpolicyk8s.io/v1alpha2 ClusterPolicyReport documents (one unless the results need parts), for
 * {@code kubectl apply -f -} and Policy Reporter.
 */
public final class PolicyReportFormat implements OutputFormat {

    @Override
    public String name() {
        return "policyreport";
    }

    @Override
    public String summary() {
        return "wgpolicyk8s.io/v1alpha2 ClusterPolicyReport YAML for policy UIs";
    }

    @Override
    public boolean accepts(Class<?> reportType) {
        return CheckedFindings.class.isAssignableFrom(reportType);
    }

    @Override
    public String render(Object report, Rendering how) {
        CheckedFindings checked = (CheckedFindings) report;
        var audit = checked.findings();
        Map<String, String> labels = new TreeMap<>(Map.of("app.kubernetes.io/name", "nodegate",
                "app.kubernetes.io/component", checked.component(), "app.kubernetes.io/managed-by", "nodegate"));
        StringBuilder out = new StringBuilder();
        for (var doc : PolicyReports.reports("nodegate-" + checked.component(), labels, audit.findings(),
                checked.checks(), f -> audit.now(), code -> audit.now())) {
            out.append("---\n").append(Structured.yaml(doc));
        }
        return out.toString();
    }
}
