package io.nodegate.render.output;

import java.io.IOException;
import java.io.Writer;

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

    @Override
    public void write(Object report, Rendering how, Writer out) throws IOException {
        if (report instanceof DocumentsReport documents) {
            out.write(documents.yamlDocuments());
        } else {
            Structured.yaml(((TreeReport) report).tree(), out);
        }
    }
}
