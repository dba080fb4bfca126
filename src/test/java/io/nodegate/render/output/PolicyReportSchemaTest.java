package io.nodegate.render.output;

import io.nodegate.audit.Audit;
import io.nodegate.audit.AuditReport;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.model.ClusterState;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.nodegate.testing.CliRun.run;
import static io.nodegate.testing.NodeFixtures.NOW;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * `audit -o policyreport` against the published ClusterPolicyReport CRD (src/test/resources/schemas/, copied from
 * kubernetes-sigs/wg-policy-prototypes with its source and license in the header): every document is checked
 * against the v1alpha2 version's openAPIV3Schema the way the API server's structural schema treats it (types,
 * enums, required fields; an unknown field is an error here because the server would prune it silently), and the
 * split keeps each part under the API server's 1.5 MiB at 5,000 Unknown nodes.
 */
class PolicyReportSchemaTest {

    private static final YAMLMapper YAML = new YAMLMapper();
    private static final JsonMapper COMPACT = JsonMapper.builder().build();
    /** etcd's default --max-request-bytes, the most one object can be. */
    private static final int ETCD_MAX_REQUEST_BYTES = 1536 * 1024;
    private static final JsonNode SCHEMA = schema();

    @Test
    void theAuditOfTheRenamedRejoinFollowsTheCrdWithOneResultPerFinding() {
        CliRun audit = run("audit", "-f", "examples/cluster-a-renamed-rejoin", "-o", "policyreport");
        assertThat(audit.exitCode()).as(audit.err()).isEqualTo(1);
        List<JsonNode> docs = documents(audit.out());
        assertThat(docs).hasSize(1);
        JsonNode report = docs.get(0);
        assertThat(errors(report)).isEmpty();
        assertThat(report.get("apiVersion").asString()).isEqualTo("wgpolicyk8s.io/v1alpha2");
        assertThat(report.get("kind").asString()).isEqualTo("ClusterPolicyReport");
        assertThat(report.get("metadata").get("name").asString()).isEqualTo("nodegate-audit");

        CliRun json = run("audit", "-f", "examples/cluster-a-renamed-rejoin", "-o", "json");
        JsonNode findings = JsonMapper.builder().build().readTree(json.out()).get("findings");
        List<JsonNode> failing = new ArrayList<>();
        report.get("results").forEach(r -> {
            if (!r.get("result").asString().equals("pass")) {
                failing.add(r);
            }
        });
        assertThat(failing).hasSize(findings.size());
        for (int i = 0; i < findings.size(); i++) {
            JsonNode f = findings.get(i);
            // each finding is a result for its code whose resources are exactly its Nodes
            List<String> nodes = new ArrayList<>();
            f.get("nodes").forEach(n -> nodes.add(n.asString()));
            assertThat(failing).anySatisfy(r -> {
                assertThat(r.get("policy").asString()).isEqualTo(f.get("code").asString());
                assertThat(r.get("rule").asString()).isEqualTo(f.get("name").asString());
                assertThat(r.get("message").asString()).isEqualTo(f.get("message").asString());
                List<String> resources = new ArrayList<>();
                r.get("resources").forEach(res -> {
                    assertThat(res.get("kind").asString()).isEqualTo("Node");
                    assertThat(res.get("apiVersion").asString()).isEqualTo("v1");
                    resources.add(res.get("name").asString());
                });
                assertThat(resources).isEqualTo(nodes);
            });
        }
        // warning findings are warn/medium, info ones (NG171 here: a dump holds no NodeHandovers) warn/low; the
        // summary counts the results
        assertThat(failing).allSatisfy(r -> {
            assertThat(r.get("result").asString()).isIn("warn", "fail");
            assertThat(r.get("severity").asString()).isIn(r.get("policy").asString().equals("NG171") ? List.of("low")
                    : List.of("medium", "high"));
        });
        JsonNode summary = report.get("summary");
        int pass = 0;
        int warn = 0;
        int fail = 0;
        for (JsonNode r : report.get("results")) {
            switch (r.get("result").asString()) {
                case "pass" -> pass++;
                case "warn" -> warn++;
                case "fail" -> fail++;
                default -> throw new AssertionError(r);
            }
        }
        assertThat(summary.get("pass").asInt()).isEqualTo(pass).isPositive();
        assertThat(summary.get("warn").asInt()).isEqualTo(warn);
        assertThat(summary.get("fail").asInt()).isEqualTo(fail);
    }

    @Test
    void aCleanAuditIsOneReportOfPassResultsOnePerCheck() {
        CliRun audit = run("audit", "-f", "examples/healthy", "-o", "policyreport");
        assertThat(audit.exitCode()).as(audit.err()).isZero();
        JsonNode report = documents(audit.out()).get(0);
        assertThat(errors(report)).isEmpty();
        Set<String> policies = new HashSet<>();
        report.get("results").forEach(r -> {
            assertThat(r.get("result").asString()).isEqualTo("pass");
            policies.add(r.get("policy").asString());
        });
        // NG304/NG305 judge BMC readings: without --bmc they do not run, so they are no passing check either
        assertThat(policies).hasSize(Detectors.withoutBmc(Detectors.all()).size())
                .doesNotContain("NG304", "NG305");
    }

    /**
     * 5,000 Unknown Nodes (the watch's scale) found by the real detectors: one object would be several MB, so the
     * report comes in parts, each a valid report under the API server's limit, every finding in exactly one part.
     */
    @Test
    void fiveThousandUnknownNodesAreSplitIntoPartsUnderTheObjectLimit() {
        var cluster = cluster();
        for (int i = 0; i < 5000; i++) {
            cluster.node(node(String.format("worker-%04d", i)).internalIp("10.1." + (i / 250) + "." + (i % 250 + 1))
                    .systemUuid(String.format("4c4c4544-0000-1000-8000-%012d", i))
                    .unknownSince(NOW.minusSeconds(3600), NOW.minusSeconds(3550)));
        }
        ClusterState state = cluster.build();
        AuditReport audit = Audit.run(state, AuditSettings.DEFAULTS);
        long unknown = audit.findings().stream().filter(f -> f.code().equals("NG101")).count();
        assertThat(unknown).isEqualTo(5000);
        Map<String, String> checks = new LinkedHashMap<>();
        Detectors.all().forEach(d -> checks.put(d.code().code(), d.name()));

        List<ObjectNode> parts = PolicyReports.reports("nodegate-watch", Map.of("app.kubernetes.io/name", "nodegate"),
                audit.findings(), checks, f -> NOW, code -> NOW);
        assertThat(parts).hasSizeGreaterThan(1);
        int results = 0;
        Set<String> names = new HashSet<>();
        for (int i = 0; i < parts.size(); i++) {
            ObjectNode part = parts.get(i);
            assertThat(errors(part)).isEmpty();
            int bytes = COMPACT.writeValueAsString(part).getBytes(StandardCharsets.UTF_8).length;
            assertThat(bytes).as("part %d", i + 1).isLessThan(ETCD_MAX_REQUEST_BYTES);
            assertThat(part.get("metadata").get("name").asString())
                    .isEqualTo(i == 0 ? "nodegate-watch" : "nodegate-watch-" + (i + 1));
            assertThat(part.get("metadata").get("labels").get(PolicyReports.PART_LABEL).asString())
                    .isEqualTo(Integer.toString(i + 1));
            for (JsonNode r : part.get("results")) {
                results++;
                if (r.get("policy").asString().equals("NG101")) {
                    assertThat(names.add(r.get("resources").get(0).get("name").asString())).isTrue();
                }
            }
        }
        assertThat(names).hasSize(5000);
        long cleanChecks = checks.keySet().stream()
                .filter(code -> audit.findings().stream().noneMatch(f -> f.code().equals(code))).count();
        assertThat(results).isEqualTo(audit.findings().size() + (int) cleanChecks);
    }

    @Test
    void aHugeFindingKeepsItsNodesAndLosesItsEvidence() {
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            nodes.add("batch-node-" + i);
        }
        Finding batch = new Finding("NG103", "batch-silence", io.nodegate.detect.Severity.WARNING, nodes,
                "3000 Leases stopped together", Map.of("nodes", String.join(",", nodes).repeat(2)), "hint");
        ObjectNode r = PolicyReports.result(batch, NOW);
        assertThat(r.get("resources")).hasSize(3000);
        assertThat(r.get("properties").get("truncated").asString()).contains("nodegate audit -o json");
    }

    /** The checker is real: near misses of the CRD are caught. */
    @Test
    void theSchemaCheckCatchesNearMisses() {
        ObjectNode good = PolicyReports.reports("r", Map.of(), List.of(), Map.of("NG101", "node-unknown"),
                f -> NOW, code -> NOW).get(0);
        assertThat(errors(good)).isEmpty();

        ObjectNode badResult = good.deepCopy();
        ((ObjectNode) badResult.get("results").get(0)).put("result", "failed");
        assertThat(errors(badResult)).singleElement().asString().contains("results[0].result").contains("enum");

        ObjectNode unknownField = good.deepCopy();
        ((ObjectNode) unknownField.get("results").get(0)).put("findingCode", "NG101");
        assertThat(errors(unknownField)).singleElement().asString().contains("findingCode");

        ObjectNode noPolicy = good.deepCopy();
        ((ObjectNode) noPolicy.get("results").get(0)).remove("policy");
        assertThat(errors(noPolicy)).singleElement().asString().contains("policy").contains("required");

        ObjectNode numberProperty = good.deepCopy();
        ((ObjectNode) numberProperty.get("results").get(0)).putObject("properties").put("count", 3);
        assertThat(errors(numberProperty)).singleElement().asString().contains("properties.count");

        ObjectNode badSeverity = good.deepCopy();
        ((ObjectNode) badSeverity.get("results").get(0)).put("severity", "warning");
        assertThat(errors(badSeverity)).isNotEmpty();
    }

    // ---- a structural-schema checker for the subset of OpenAPI v3 this CRD uses ---------------------------------

    static List<String> errors(JsonNode object) {
        List<String> errors = new ArrayList<>();
        check(SCHEMA, object, "", errors);
        return errors;
    }

    private static void check(JsonNode schema, JsonNode value, String path, List<String> errors) {
        String type = schema.has("type") ? schema.get("type").asString() : null;
        if (type != null) {
            boolean ok = switch (type) {
                case "object" -> value.isObject();
                case "array" -> value.isArray();
                case "string" -> value.isString();
                case "integer" -> value.isIntegralNumber();
                case "boolean" -> value.isBoolean();
                case "number" -> value.isNumber();
                default -> throw new IllegalStateException("schema type " + type + " at " + path);
            };
            if (!ok) {
                errors.add(path + ": expected " + type + ", got " + value);
                return;
            }
        }
        if (schema.has("enum")) {
            List<String> allowed = new ArrayList<>();
            schema.get("enum").forEach(e -> allowed.add(e.asString()));
            if (!allowed.contains(value.asString())) {
                errors.add(path + ": " + value + " not in enum " + allowed);
            }
        }
        if ("integer".equals(type) && schema.has("format") && schema.get("format").asString().equals("int32")
                && (value.asLong() > Integer.MAX_VALUE || value.asLong() < Integer.MIN_VALUE)) {
            errors.add(path + ": out of int32");
        }
        if (value.isObject()) {
            if (schema.has("required")) {
                schema.get("required").forEach(r -> {
                    if (!value.has(r.asString())) {
                        errors.add(path + ": required field " + r.asString() + " missing");
                    }
                });
            }
            JsonNode properties = schema.get("properties");
            JsonNode additional = schema.get("additionalProperties");
            boolean preserve = schema.has("x-kubernetes-preserve-unknown-fields")
                    || (path.equals(".metadata"));
            for (var e : value.properties()) {
                String child = path + "." + e.getKey();
                if (properties != null && properties.has(e.getKey())) {
                    check(properties.get(e.getKey()), e.getValue(), child, errors);
                } else if (additional != null && additional.isObject()) {
                    check(additional, e.getValue(), child, errors);
                } else if (!preserve) {
                    errors.add(child + ": unknown field (the API server would prune it)");
                }
            }
        }
        if (value.isArray() && schema.has("items")) {
            for (int i = 0; i < value.size(); i++) {
                check(schema.get("items"), value.get(i), path + "[" + i + "]", errors);
            }
        }
    }

    private static JsonNode schema() {
        try (InputStream in = PolicyReportSchemaTest.class.getResourceAsStream(
                "/schemas/wgpolicyk8s.io_clusterpolicyreports.yaml")) {
            JsonNode crd = YAML.readTree(in.readAllBytes());
            for (JsonNode version : crd.get("spec").get("versions")) {
                if (version.get("name").asString().equals("v1alpha2")) {
                    assertThat(version.get("served").asBoolean()).isTrue();
                    return version.get("schema").get("openAPIV3Schema");
                }
            }
            throw new IllegalStateException("the CRD has no v1alpha2");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<JsonNode> documents(String yaml) {
        List<JsonNode> docs = new ArrayList<>();
        for (String doc : yaml.split("(?m)^---\\s*$")) {
            if (!doc.isBlank()) {
                docs.add(YAML.readTree(doc));
            }
        }
        return docs;
    }
}
