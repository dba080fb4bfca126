package io.nodegate.render.output;

import io.nodegate.audit.Audit;
import io.nodegate.audit.AuditReport;
import io.nodegate.detect.AuditSettings;
import io.nodegate.render.AuditRenderer;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.source.dump.DumpSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code -o json} is written without Jackson's mapper (Structured's class comment says why); it must be the text
 * the mapper writes, byte for byte, since scripts and the README's checked examples read it.
 */
class StructuredTest {

    private static String mapperJson(JsonNode tree) {
        return Structured.Mappers.JSON.writeValueAsString(tree) + "\n";
    }

    @Test
    void everyExampleAuditIsWrittenAsTheMapperWritesIt() throws Exception {
        List<Path> examples;
        // every saved collection: a directory holding JSON files of its own (fleet-departure holds two, one each)
        try (Stream<Path> dirs = Files.walk(Path.of("examples"), 2)) {
            examples = dirs.filter(Files::isDirectory).filter(StructuredTest::holdsJson).sorted().toList();
        }
        assertThat(examples).hasSizeGreaterThan(5);
        int findings = 0;
        for (Path example : examples) {
            // kubectl dumps carry no clock of their own; a collection directory does
            String now = Files.exists(example.resolve("collected.json")) ? null : "2026-10-19T06:10:00Z";
            ClusterState state = DumpSource.load(List.of(example), now);
            AuditReport report = Audit.run(state, AuditSettings.DEFAULTS);
            findings += report.findings().size();
            JsonNode tree = AuditRenderer.tree(report);
            assertThat(Structured.json(tree)).as(example.toString()).isEqualTo(mapperJson(tree));
            // what -o json prints: the report written Node by Node, never built as a tree
            AuditRenderer.Plain printed = new AuditRenderer.Plain(report);
            assertThat(printed.streamable()).as(example.toString()).isTrue();
            assertThat(new JsonFormat().render(printed, Rendering.PLAIN)).as(example.toString())
                    .isEqualTo(mapperJson(tree));
            java.io.StringWriter yaml = new java.io.StringWriter();
            Structured.yaml(tree, yaml);
            assertThat(yaml.toString()).as(example.toString()).isEqualTo(Structured.Mappers.YAML.writeValueAsString(tree));
            for (Finding f : report.findings()) {
                assertThat(Structured.finding(f)).as("%s %s", example, f.code())
                        .isEqualTo(Structured.Mappers.JSON.valueToTree(f));
            }
        }
        assertThat(findings).as("the examples have findings to compare").isGreaterThan(20);
    }

    private static boolean holdsJson(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith(".json"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void evidenceOfEveryKindOfValueIsWhatTheMapperMakesOfIt() {
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("ip", "192.0.2.7");
        nested.put("missing", null);
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("text", "a \"quoted\" / slashed \u00e9 \u0001 line\nbreak");
        evidence.put("int", 3);
        evidence.put("long", 5_000_000_000L);
        evidence.put("double", 0.25);
        evidence.put("bool", true);
        evidence.put("null", null);
        evidence.put("instant", Instant.parse("2026-10-19T05:23:30Z"));
        evidence.put("duration", Duration.ofSeconds(90));
        evidence.put("severity", Severity.CRITICAL);
        evidence.put("list", Arrays.asList("a", null, 1, List.of(2L)));
        evidence.put("set", new LinkedHashSet<>(List.of("z", "a")));
        evidence.put("map", nested);
        evidence.put("intKeys", Map.of(1, "one"));
        evidence.put("empty", List.of());
        evidence.put("emptyMap", Map.of());
        Finding full = new Finding("NG999", "test-finding", Severity.WARNING, List.of("n-1", "n-2"), "message",
                evidence, "hint");
        Finding bare = new Finding("NG998", null, null, List.of(), null, null, null);
        for (Finding f : List.of(full, bare)) {
            assertThat(Structured.finding(f)).isEqualTo(Structured.Mappers.JSON.valueToTree(f));
            ObjectNode root = Structured.object();
            root.set("findings", Structured.findings(List.of(f)));
            root.put("ratio", 1.5); // a floating number: written through the mapper, still the same text
            assertThat(Structured.json(root)).isEqualTo(mapperJson(root));
            // an audit whose evidence holds one is not streamed: its tree goes through the mapper
            AuditRenderer.Plain printed = new AuditRenderer.Plain(new AuditReport(Instant.parse(
                    "2026-10-19T06:10:00Z"), "test", List.of(), List.of(f), List.of("a note")));
            assertThat(printed.streamable()).isEqualTo(f == bare);
            assertThat(new JsonFormat().render(printed, Rendering.PLAIN))
                    .isEqualTo(mapperJson(AuditRenderer.tree(printed.report())));
            root.remove("ratio");
            assertThat(Structured.json(root)).isEqualTo(mapperJson(root));
        }
    }

    @Test
    void emptyContainersAndTopLevelArraysAreWrittenAlike() {
        List<JsonNode> trees = new ArrayList<>();
        trees.add(Structured.object());
        trees.add(Structured.strings(List.of()));
        trees.add(Structured.strings(List.of("a", "b")));
        ObjectNode o = Structured.object();
        o.putArray("none");
        o.putObject("nothing");
        o.putNull("null");
        o.put("neg", -7L);
        trees.add(o);
        for (JsonNode tree : trees) {
            assertThat(Structured.json(tree)).isEqualTo(mapperJson(tree));
        }
    }
}
