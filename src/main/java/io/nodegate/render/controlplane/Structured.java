package io.nodegate.render.controlplane;

import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/** JSON and YAML forms of a report: stable field order, ISO-8601 times, pipe-friendly. */
public final class Structured {
    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    private Structured() {
    }

    public static String json(Object report) {
        return JSON.writeValueAsString(report) + "\n";
    }

    public static String yaml(Object report) {
        return YAML.writeValueAsString(report);
    }
}
