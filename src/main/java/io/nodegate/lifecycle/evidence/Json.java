package io.nodegate.lifecycle.evidence;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The JSON shape of every evidence file: indented, map keys sorted, times as ISO-8601, so files diff well. */
public final class Json {

    public static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .build();

    private Json() {
    }

    public static String write(Object value) {
        return MAPPER.writeValueAsString(value) + "\n";
    }

    public static <T> T read(String text, Class<T> type) throws JacksonException {
        return MAPPER.readValue(text, type);
    }
}
