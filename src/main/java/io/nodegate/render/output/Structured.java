package io.nodegate.render.output;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
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

import java.io.FilterWriter;
import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
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
 *
 * <p>The output is written to the command's stream as it is made, never built into one String: an audit of
 * 20,000 Nodes is 16 MB of JSON, and its text, the buffer it was built in and the tree came on top of the heap at
 * its fullest, the end of the run. An audit's report is not even built as a tree ({@link StreamedJson}).
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
        try {
            json(tree, text);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e); // a StringWriter does not throw
        }
        return text.toString();
    }

    /**
     * {@link #json(JsonNode)}'s text written to {@code out} as it is made, never held whole: the output of a large
     * audit (16 MB of JSON for 20,000 Nodes) would otherwise be held as a tree, a StringWriter's buffer and a String
     * at once, at the end of the run when the heap is fullest.
     */
    public static void json(JsonNode tree, Writer out) throws IOException {
        if (writable(tree)) {
            try (JsonGenerator generator = generator(out)) {
                write(generator, tree);
            }
        } else {
            Mappers.JSON.writeValue(new Unclosed(out), tree);
        }
        out.write('\n');
    }

    /**
     * {@code -o json} of a report: written as it is made when the report can ({@link StreamedJson}: a 20,000-Node
     * audit's tree is several times the size of its text), else its {@link TreeReport#tree()}. The same text either
     * way ({@code StructuredTest}).
     */
    public static void json(TreeReport report, Writer out) throws IOException {
        if (report instanceof StreamedJson streamed && streamed.streamable()) {
            try (JsonGenerator generator = generator(out)) {
                streamed.writeJson(generator);
            }
            out.write('\n');
        } else {
            json(report.tree(), out);
        }
    }

    public static String yaml(JsonNode tree) {
        return write(Mappers.YAML, tree);
    }

    /** {@link #yaml(JsonNode)}'s text written to {@code out} as the mapper makes it, without a String of it all. */
    public static void yaml(JsonNode tree, Writer out) {
        Mappers.YAML.writeValue(new Unclosed(out), tree);
    }

    /** A generator writing {@code out} as the mapper's pretty printer would; closing it leaves {@code out} open. */
    private static JsonGenerator generator(Writer out) {
        return GENERATORS.createGenerator(PRETTY, new Unclosed(out));
    }

    /**
     * Whether {@link #writeNode} writes this tree as the mapper would: objects, arrays, strings, booleans, nulls and
     * whole numbers that fit a long. Anything else (floating or big numbers, POJO or binary nodes) is left to the
     * mapper's own settings.
     */
    public static boolean writable(JsonNode node) {
        switch (node.getNodeType()) {
            case OBJECT, ARRAY -> {
                for (JsonNode child : node) {
                    if (!writable(child)) {
                        return false;
                    }
                }
                return true;
            }
            case STRING, BOOLEAN, NULL -> {
                return true;
            }
            case NUMBER -> {
                return node.numberType() == JsonParser.NumberType.INT || node.numberType() == JsonParser.NumberType.LONG;
            }
            default -> {
                return false;
            }
        }
    }

    /** Writes one node of a larger document through {@code g}; only a node {@link #writable} accepts. */
    public static void writeNode(JsonGenerator g, JsonNode node) {
        write(g, node);
    }

    /** The writer a generator or mapper is handed: their close() ends the document, not the command's output. */
    private static final class Unclosed extends FilterWriter {
        Unclosed(Writer out) {
            super(out);
        }

        @Override
        public void close() {
            // the caller flushes (and owns) the command's output
        }
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
    public static ObjectNode finding(Finding f) {
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

    /** A node this writer does not copy: {@link #writable} keeps such trees from it, so this is a bug. */
    private static final class UnknownNode extends IllegalStateException {
        UnknownNode(JsonNode node) {
            super("not writable without the mapper: a " + node.getNodeType() + " node");
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
                    default -> throw new UnknownNode(node); // floating and big numbers: the mapper's own settings
                }
            }
            default -> throw new UnknownNode(node);
        }
    }
}
