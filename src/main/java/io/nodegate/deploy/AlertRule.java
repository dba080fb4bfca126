package io.nodegate.deploy;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One Prometheus alerting rule as nodegate emits it. Several rules may share an alert name (one per severity), as
 * kubernetes-mixin does; they share the runbook anchor too.
 *
 * @param alert       alert name, also the docs/alerts.md heading its runbook_url points at
 * @param expr        PromQL; the labels it returns are the alert's labels
 * @param forDuration how long the expression must hold before the alert fires ("5m")
 * @param severity    warning or critical (the label Alertmanager routes on)
 * @param summary     one line, Go template over $labels/$value
 * @param description the nodes named, what it means and what to do, Go template over $labels/$value and query
 */
public record AlertRule(String alert, String expr, String forDuration, String severity, String summary,
                        String description) {

    /** The GitHub-style anchor of the alert's heading in docs/alerts.md. */
    public String anchor() {
        return alert.toLowerCase(Locale.ROOT);
    }

    /** The rule as Prometheus' rule-file schema has it (and the PrometheusRule CRD copies). */
    Map<String, Object> toMap(String runbookBase) {
        Map<String, Object> rule = new LinkedHashMap<>();
        rule.put("alert", alert);
        rule.put("expr", expr);
        rule.put("for", forDuration);
        rule.put("labels", Map.of("severity", severity));
        Map<String, Object> annotations = new LinkedHashMap<>();
        annotations.put("summary", summary);
        annotations.put("description", description);
        annotations.put("runbook_url", runbookBase + "#" + anchor());
        rule.put("annotations", annotations);
        return rule;
    }
}
