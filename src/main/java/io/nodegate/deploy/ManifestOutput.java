package io.nodegate.deploy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.nodegate.render.output.Style;
import io.nodegate.render.output.Structured;
import io.nodegate.render.TextTable;
import io.nodegate.render.output.DocumentsReport;
import io.nodegate.render.output.ListReport;
import tools.jackson.databind.JsonNode;

import java.util.List;
import java.util.Locale;

/**
 * Kubernetes objects that `install`, `policy` and `alerts` print for kubectl: -o yaml as separate documents and
 * -o json as a v1 List (both as `kubectl apply -f` takes them), -o name as kubectl names them
 * (kind.group/name: {@code deployment.apps/nodegate-watch}, {@code namespace/nodegate-system}; kubernetes
 * cli-runtime {@code pkg/printers/name.go}), and -o table as one row per object (KIND, NAME, NAMESPACE; wide adds the
 * API version). {@code actions} replaces the table when the objects were applied rather than printed ("applied
 * ...").
 */
public record ManifestOutput(List<? extends HasMetadata> objects, List<String> actions)
        implements ListReport, DocumentsReport {

    /** Objects to print. */
    public static ManifestOutput of(List<? extends HasMetadata> objects) {
        return new ManifestOutput(objects, null);
    }

    @Override
    public String text(Style style, boolean wide) {
        if (actions != null) {
            StringBuilder out = new StringBuilder();
            actions.forEach(a -> out.append(a).append('\n'));
            return out.toString();
        }
        return table(wide).render(style);
    }

    @Override
    public String rows(Style style, boolean wide) {
        return actions != null ? text(style, wide) : table(wide).rows(style);
    }

    private TextTable table(boolean wide) {
        TextTable table = wide ? new TextTable("KIND", "NAME", "NAMESPACE", "API VERSION")
                : new TextTable("KIND", "NAME", "NAMESPACE");
        for (HasMetadata o : objects) {
            String namespace = o.getMetadata().getNamespace() == null ? "-" : o.getMetadata().getNamespace();
            if (wide) {
                table.row(o.getKind(), o.getMetadata().getName(), namespace, o.getApiVersion());
            } else {
                table.row(o.getKind(), o.getMetadata().getName(), namespace);
            }
        }
        return table;
    }

    @Override
    public List<String> names() {
        return objects.stream().map(ManifestOutput::name).toList();
    }

    /** kubectl's -o name: the kind in lower case, then .group unless the core group, then /name. */
    static String name(HasMetadata o) {
        String apiVersion = o.getApiVersion() == null ? "" : o.getApiVersion();
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        return o.getKind().toLowerCase(Locale.ROOT) + (group.isEmpty() ? "" : "." + group) + "/"
                + o.getMetadata().getName();
    }

    @Override
    public String yamlDocuments() {
        return Manifests.yaml(objects);
    }

    @Override
    public JsonNode tree() {
        return Structured.Mappers.JSON.readTree(Manifests.json(objects));
    }
}

