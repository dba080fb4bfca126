package io.nodegate.render;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;
import io.nodegate.detect.Finding;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * JSON and YAML output through Jackson, the same writers for every command. Commands build a tree with the helpers
 * here (times as ISO-8601, durations as whole seconds), or hand over a report record via {@link #tree(Object)}
 * whose components (and {@code @JsonPropertyOrder}) write its shape down in one place.
 */
public final class Structured {

    public static final ObjectMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
    public static final ObjectMapper YAML = YAMLMapper.builder()
            .disable(YAMLWriteFeature.WRITE_DOC_START_MARKER)
            // Quoted strings and unsplit lines: timestamps stay strings for YAML 1.1 readers, messages stay greppable.
            .disable(YAMLWriteFeature.SPLIT_LINES)
            .build();

    private Structured() {
    }

    public static ObjectNode object() {
        return JSON.createObjectNode();
    }

    /** A report record (or map) as a tree: record components in declaration or {@code @JsonPropertyOrder} order. */
    public static JsonNode tree(Object report) {
        return JSON.valueToTree(report);
    }

    public static String json(JsonNode tree) {
        return write(JSON, tree) + "\n";
    }

    public static String yaml(JsonNode tree) {
        return write(YAML, tree);
    }

    public static void putTime(ObjectNode node, String field, Instant instant) {
        if (instant == null) {
            node.putNull(field);
        } else {
            node.put(field, instant.toString());
        }
    }

    public static void putSeconds(ObjectNode node, String field, Duration duration) {
        if (duration == null) {
            node.putNull(field);
        } else {
            node.put(field, duration.toSeconds());
        }
    }

    /** {"code","name","severity","nodes","message","evidence","hint"} per finding. */
    public static ArrayNode findings(List<Finding> findings) {
        ArrayNode array = JSON.createArrayNode();
        findings.forEach(f -> array.add(JSON.valueToTree(f)));
        return array;
    }

    public static ArrayNode strings(List<String> values) {
        ArrayNode array = JSON.createArrayNode();
        values.forEach(array::add);
        return array;
    }

    private static String write(ObjectMapper mapper, JsonNode tree) {
        return mapper.writeValueAsString(tree);
    }
}
