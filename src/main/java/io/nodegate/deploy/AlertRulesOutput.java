package io.nodegate.deploy;

import io.nodegate.render.output.Style;
import io.nodegate.render.output.DocumentsReport;
import io.nodegate.render.output.ListReport;
import io.nodegate.render.output.RuleFileReport;
import tools.jackson.databind.JsonNode;

import java.util.List;

/**
 * `alerts`: the PrometheusRule as any other manifest ({@link ManifestOutput}), and also as Prometheus' own rule file
 * (-o rule-file), which only this command prints.
 */
public record AlertRulesOutput(ManifestOutput rule, Object rules) implements ListReport, DocumentsReport,
        RuleFileReport {

    @Override
    public String text(Style style, boolean wide) {
        return rule.text(style, wide);
    }

    @Override
    public String rows(Style style, boolean wide) {
        return rule.rows(style, wide);
    }

    @Override
    public List<String> names() {
        return rule.names();
    }

    @Override
    public String yamlDocuments() {
        return rule.yamlDocuments();
    }

    @Override
    public JsonNode tree() {
        return rule.tree();
    }

    @Override
    public String ruleFile() {
        return Manifests.yamlOf(rules);
    }
}
