package io.nodegate.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesListBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;

import java.util.List;

/** YAML and JSON rendering of manifests, in the shapes `kubectl apply -f` takes as they are. */
public final class Manifests {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    /**
     * For untyped objects (the PrometheusRule, a rule file): long strings stay on one line and PromQL keeps its
     * line breaks (a literal block), so an admin can read the expressions in the emitted file as they are in
     * docs/alerts.md. Typed objects go through fabric8's own serializer.
     */
    private static final YAMLMapper PLAIN_YAML = YAMLMapper.builder()
            .disable(YAMLWriteFeature.SPLIT_LINES)
            .disable(YAMLWriteFeature.WRITE_DOC_START_MARKER)
            .enable(YAMLWriteFeature.MINIMIZE_QUOTES)
            .enable(YAMLWriteFeature.LITERAL_BLOCK_STYLE)
            .build();

    private Manifests() {
    }

    /** Multi-document YAML, one document per object, in the given (apply) order. */
    public static String yaml(List<? extends HasMetadata> objects) {
        StringBuilder out = new StringBuilder();
        for (HasMetadata object : objects) {
            appendDocument(out, object instanceof GenericKubernetesResource ? plainYaml(object)
                    : SERIALIZATION.asYaml(object));
        }
        return out.toString();
    }

    /** A v1 List, the JSON shape kubectl uses for several objects. */
    public static String json(List<? extends HasMetadata> objects) {
        return SERIALIZATION.asJson(new KubernetesListBuilder().withItems(List.copyOf(objects)).build()) + "\n";
    }

    /** Any plain value (a Prometheus rule file) as one YAML document. */
    public static String yamlOf(Object value) {
        StringBuilder out = new StringBuilder();
        appendDocument(out, plainYaml(value));
        return out.toString();
    }

    private static String plainYaml(Object value) {
        return PLAIN_YAML.writeValueAsString(value);
    }

    private static void appendDocument(StringBuilder out, String doc) {
        if (!doc.startsWith("---")) {
            out.append("---\n");
        }
        out.append(doc);
        if (!doc.endsWith("\n")) {
            out.append('\n');
        }
    }
}
