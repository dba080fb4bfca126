package io.nodegate.render.output;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.PrettyPrinter;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.DefaultIndenter;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;
import io.nodegate.detect.Finding;

import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * JSON and YAML output through Jackson, the same writers for every command. Commands build a tree with the helpers
 * here (times as ISO-8601, durations as whole seconds), or hand over a report record via {@link #tree(Object)}
 * whose components (and {@code @JsonPropertyOrder}) write its shape down in one place.
 *
 * <p>{@code -o json} of a tree built here (an audit's, with its findings) needs no {@link ObjectMapper}: building
 * Jackson's mapper and introspecting the {@link Finding} record cost a fresh JVM 70-150 ms each, most of the
 * output step of a small live audit and more than its parsing (bench/RESULTS.md, "Second pass: the small audit within 3x of kubectl"). So trees are made from
 * the node factory, findings are copied into them field by field, and the tree is written by jackson-core's
 * generator with the mapper's pretty printer: the same text ({@code StructuredTest} holds the two to each other
 * on every example). The mappers are built on first use, by YAML output, {@link #tree(Object)} and values this
 * class does not know.
 */
public final class Structured {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final JsonFactory GENERATORS = new JsonFactory();

    /** The mappers, built only when something needs one (see the class comment). */
    public static final class Mappers {
        public static final ObjectMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
        public static final ObjectMapper YAML = YAMLMapper.builder()
                .disable(YAMLWriteFeature.WRITE_DOC_START_MARKER)
                // Quoted strings and unsplit lines: timestamps stay strings for YAML 1.1 readers, messages stay greppable.
                .disable(YAMLWriteFeature.SPLIT_LINES)
                .build();

        private Mappers() {
        }
    }

    private Structured() {
    }

    public static ObjectNode object() {
        return NODES.objectNode();
    }

    /** A report record (or map) as a tree: record components in declaration or {@code @JsonPropertyOrder} order. */
    public static JsonNode tree(Object report) {
        return Mappers.JSON.valueToTree(report);
    }

    public static String json(JsonNode tree) {
        StringWriter text = new StringWriter();
        try (JsonGenerator generator = GENERATORS.createGenerator(PRETTY, text)) {
            write(generator, tree);
        } catch (UnknownNode e) {
            return write(Mappers.JSON, tree) + "\n";
        }
        return text + "\n";
    }

    public static String yaml(JsonNode tree) {
        return write(Mappers.YAML, tree);
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
        ArrayNode array = NODES.arrayNode(findings.size());
        for (Finding f : findings) {
            array.add(finding(f));
        }
        return array;
    }

    /** What {@code valueToTree} makes of a {@link Finding}: its {@code @JsonPropertyOrder}, severity by label. */
    static ObjectNode finding(Finding f) {
        ObjectNode o = NODES.objectNode();
        o.put("code", f.code());
        o.put("name", f.name());
        o.put("severity", f.severity() == null ? null : f.severity().label());
        o.set("nodes", f.nodes() == null ? NODES.nullNode() : strings(f.nodes()));
        o.put("message", f.message());
        o.set("evidence", value(f.evidence()));
        o.put("hint", f.hint());
        return o;
    }

    /** Plain values (strings, whole numbers, booleans, maps with string keys, lists) copied; the rest by Jackson. */
    private static JsonNode value(Object v) {
        if (v == null) {
            return NODES.nullNode();
        } else if (v instanceof String text) {
            return NODES.stringNode(text);
        } else if (v instanceof Integer i) {
            return NODES.numberNode(i);
        } else if (v instanceof Long l) {
            return NODES.numberNode(l);
        } else if (v instanceof Boolean b) {
            return NODES.booleanNode(b);
        } else if (v instanceof Map<?, ?> map && stringKeys(map)) {
            ObjectNode o = NODES.objectNode();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                o.set((String) e.getKey(), value(e.getValue()));
            }
            return o;
        } else if (v instanceof Collection<?> values) {
            ArrayNode array = NODES.arrayNode(values.size());
            for (Object item : values) {
                array.add(value(item));
            }
            return array;
        }
        return Mappers.JSON.valueToTree(v);
    }

    private static boolean stringKeys(Map<?, ?> map) {
        for (Object key : map.keySet()) {
            if (!(key instanceof String)) {
                return false;
            }
        }
        return true;
    }

    public static ArrayNode strings(List<String> values) {
        ArrayNode array = NODES.arrayNode(values.size());
        for (String value : values) {
            array.add(value);
        }
        return array;
    }

    private static String write(ObjectMapper mapper, JsonNode tree) {
        return mapper.writeValueAsString(tree);
    }

    /**
     * What {@link SerializationFeature#INDENT_OUTPUT} gives a mapper (a default pretty printer per document), written
     * by {@link Indented}: the same text, held to the mapper's by {@code StructuredTest}.
     */
    private static final ObjectWriteContext PRETTY = new ObjectWriteContext.Base() {
        @Override
        public PrettyPrinter getPrettyPrinter() {
            return new Indented();
        }

        @Override
        public boolean hasPrettyPrinter() {
            return true;
        }
    };

    /**
     * Jackson's {@link DefaultPrettyPrinter} with its default separators ({@code "name" : value}, entries one per line
     * indented by two spaces, arrays on one line as {@code [ a, b ]}, empty ones as <code>{ }</code> and {@code [ ]}).
     * Not DefaultPrettyPrinter itself: its constructor joins its separators with an invokedynamic string
     * concatenation of a shape nothing before it in a command uses, and linking that call spins method handles worth
     * ~9 ms of every {@code -o json} (async-profiler, bench/RESULTS.md "Second pass").
     */
    static final class Indented implements PrettyPrinter {
        private static final DefaultIndenter NEW_LINE = DefaultIndenter.SYSTEM_LINEFEED_INSTANCE;
        private int nesting;

        @Override
        public void writeRootValueSeparator(JsonGenerator g) {
            g.writeRaw(' ');
        }

        @Override
        public void writeStartObject(JsonGenerator g) {
            g.writeRaw('{');
            nesting++;
        }

        @Override
        public void beforeObjectEntries(JsonGenerator g) {
            NEW_LINE.writeIndentation(g, nesting);
        }

        @Override
        public void writeObjectNameValueSeparator(JsonGenerator g) {
            g.writeRaw(" : ");
        }

        @Override
        public void writeObjectEntrySeparator(JsonGenerator g) {
            g.writeRaw(',');
            NEW_LINE.writeIndentation(g, nesting);
        }

        @Override
        public void writeEndObject(JsonGenerator g, int entries) {
            nesting--;
            if (entries > 0) {
                NEW_LINE.writeIndentation(g, nesting);
            } else {
                g.writeRaw(' ');
            }
            g.writeRaw('}');
        }

        @Override
        public void writeStartArray(JsonGenerator g) {
            g.writeRaw('[');
        }

        @Override
        public void beforeArrayValues(JsonGenerator g) {
            g.writeRaw(' ');
        }

        @Override
        public void writeArrayValueSeparator(JsonGenerator g) {
            g.writeRaw(", ");
        }

        @Override
        public void writeEndArray(JsonGenerator g, int values) {
            g.writeRaw(' ');
            g.writeRaw(']');
        }
    }

    /** A node this writer does not copy (a POJO or binary node): the whole tree then goes through the mapper. */
    private static final class UnknownNode extends RuntimeException {
        UnknownNode() {
            super(null, null, false, false);
        }
    }

    private static void write(JsonGenerator g, JsonNode node) {
        switch (node.getNodeType()) {
            case OBJECT -> {
                g.writeStartObject();
                for (Map.Entry<String, JsonNode> e : node.properties()) {
                    g.writeName(e.getKey());
                    write(g, e.getValue());
                }
                g.writeEndObject();
            }
            case ARRAY -> {
                g.writeStartArray();
                for (JsonNode item : node) {
                    write(g, item);
                }
                g.writeEndArray();
            }
            case STRING -> g.writeString(node.stringValue());
            case BOOLEAN -> g.writeBoolean(node.booleanValue());
            case NULL -> g.writeNull();
            case NUMBER -> {
                switch (node.numberType()) {
                    case INT -> g.writeNumber(node.intValue());
                    case LONG -> g.writeNumber(node.longValue());
                    default -> throw new UnknownNode(); // floating and big numbers: the mapper's own settings
                }
            }
            default -> throw new UnknownNode();
        }
    }
}
