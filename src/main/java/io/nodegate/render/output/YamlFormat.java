package io.nodegate.render.output;

import io.nodegate.render.output.Structured;

/**
 * -o yaml: the JSON shape as YAML (the same tree, so {@code yq} and {@code jq} paths agree); Kubernetes objects as
 * separate YAML documents, as {@code kubectl apply -f} takes them.
 */
public final class YamlFormat implements OutputFormat {

    @Override
    public String name() {
        return "yaml";
    }

    @Override
    public String summary() {
        return "the JSON shape as YAML";
    }

    @Override
    public boolean accepts(Class<?> reportType) {
        return TreeReport.class.isAssignableFrom(reportType);
    }

    @Override
    public String render(Object report, Rendering how) {
        if (report instanceof DocumentsReport documents) {
            return documents.yamlDocuments();
        }
        return Structured.yaml(((TreeReport) report).tree());
    }
}
