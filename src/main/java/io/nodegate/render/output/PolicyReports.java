package io.nodegate.render.output;

import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Findings as wg-policy ClusterPolicyReports (`wgpolicyk8s.io/v1alpha2`, the CRD of kubernetes-sigs/wg-policy-prototypes
 * policy-report/crd/v1alpha2/wgpolicyk8s.io_clusterpolicyreports.yaml, which Kyverno installs and Policy Reporter
 * shows), for `audit -o policyreport` and `watch --policy-reports` alike.
 *
 * <p>One result per finding: policy = the finding code, rule = its name, the Nodes it names as resources (kind Node,
 * v1), the message, the evidence as string properties. Result and severity (the CRD's enums: result pass, fail,
 * warn, error, skip; severity high, medium, low): critical = fail/high (scored), warning = warn/medium, info =
 * warn/low (not scored; the audit exits 0 on it). One pass result (no resource) per check that ran and found
 * nothing, so a policy UI also shows what was checked.
 *
 * <p>Size: an object is stored in etcd whole, and the API server refuses one over 1.5 MiB (etcd's default
 * --max-request-bytes). 5,000 Unknown Nodes are 5,000 results of about 1.3 KB: 6.4 MB, far over it in one object. So
 * results are cut into parts of at most {@value #MAX_RESULTS} results and {@value #MAX_BYTES} bytes of results,
 * named NAME, NAME-2, NAME-3, ..., each labelled with its part number; results are ordered by code, then nodes, so
 * a part changes only when a finding in it (or before it) changes. A single result is kept under
 * {@value #MAX_RESULT_BYTES} bytes by shortening its properties and message, never its resources.
 */
public final class PolicyReports {

    public static final String API_VERSION = "wgpolicyk8s.io/v1alpha2";
    public static final String KIND = "ClusterPolicyReport";
    public static final String SOURCE = "nodegate";
    public static final String PART_LABEL = "nodegate.io/report-part";
    static final int MAX_RESULTS = 1000;
    static final int MAX_BYTES = 1_000_000;
    static final int MAX_RESULT_BYTES = 64 * 1024;
    private static final int MAX_PROPERTY_CHARS = 2048;
    private static final int MAX_MESSAGE_CHARS = 4096;

    /** One line per value: properties are strings, and the size limit counts what the API server stores. */
    private static final JsonMapper COMPACT = JsonMapper.builder().build();

    private PolicyReports() {
    }

    /**
     * The reports for one set of findings.
     *
     * @param name    the first part's name; later parts get -2, -3, ...
     * @param labels  labels on every part (the part label is added)
     * @param checks  the checks that ran, code to name: each one without a finding gets a pass result
     * @param foundAt when each finding was found (the result's timestamp); the audit's time for an audit, the first
     *                pass that saw it for the watch (so a finding that persists does not change its report)
     * @param cleanSince the timestamp of a clean check's pass result, by code (the audit's time; for the watch the
     *                first pass that found the code clean)
     */
    public static List<ObjectNode> reports(String name, Map<String, String> labels, List<Finding> findings,
                                           Map<String, String> checks, Function<Finding, Instant> foundAt,
                                           Function<String, Instant> cleanSince) {
        List<ObjectNode> results = new ArrayList<>();
        Map<String, List<Finding>> byCode = new LinkedHashMap<>();
        checks.keySet().stream().sorted().forEach(code -> byCode.put(code, new ArrayList<>()));
        findings.stream().sorted(java.util.Comparator.comparing(Finding::code).thenComparing(Finding::key))
                .forEach(f -> byCode.computeIfAbsent(f.code(), c -> new ArrayList<>()).add(f));
        for (var e : byCode.entrySet()) {
            if (e.getValue().isEmpty()) {
                results.add(passResult(e.getKey(), checks.get(e.getKey()), cleanSince.apply(e.getKey())));
            } else {
                e.getValue().forEach(f -> results.add(result(f, foundAt.apply(f))));
            }
        }
        List<ObjectNode> reports = new ArrayList<>();
        ArrayNode part = Structured.Mappers.JSON.createArrayNode();
        long bytes = 0;
        for (ObjectNode r : results) {
            long size = size(r);
            if (!part.isEmpty() && (part.size() >= MAX_RESULTS || bytes + size > MAX_BYTES)) {
                reports.add(report(name, labels, reports.size() + 1, part));
                part = Structured.Mappers.JSON.createArrayNode();
                bytes = 0;
            }
            part.add(r);
            bytes += size;
        }
        reports.add(report(name, labels, reports.size() + 1, part));
        return reports;
    }

    /** The name of part {@code n} (1-based) of report {@code name}. */
    public static String partName(String name, int n) {
        return n == 1 ? name : name + "-" + n;
    }

    private static ObjectNode report(String name, Map<String, String> labels, int n, ArrayNode results) {
        ObjectNode report = Structured.object();
        report.put("apiVersion", API_VERSION);
        report.put("kind", KIND);
        ObjectNode meta = report.putObject("metadata");
        meta.put("name", partName(name, n));
        ObjectNode l = meta.putObject("labels");
        labels.forEach(l::put);
        l.put(PART_LABEL, Integer.toString(n));
        ObjectNode summary = report.putObject("summary");
        for (String outcome : List.of("pass", "fail", "warn", "error", "skip")) {
            int count = 0;
            for (var r : results) {
                if (outcome.equals(r.get("result").asString())) {
                    count++;
                }
            }
            summary.put(outcome, count);
        }
        report.set("results", results);
        return report;
    }

    static ObjectNode result(Finding f, Instant foundAt) {
        ObjectNode r = Structured.object();
        r.put("policy", f.code());
        r.put("rule", f.name());
        r.put("category", "nodegate");
        r.put("source", SOURCE);
        r.put("result", f.severity() == Severity.CRITICAL ? "fail" : "warn");
        r.put("severity", switch (f.severity()) {
            case CRITICAL -> "high";
            case WARNING -> "medium";
            case INFO -> "low";
        });
        r.put("scored", f.severity() == Severity.CRITICAL);
        timestamp(r, foundAt);
        r.put("message", shorten(f.message(), MAX_MESSAGE_CHARS));
        ArrayNode resources = r.putArray("resources");
        for (String node : f.nodes()) {
            ObjectNode ref = resources.addObject();
            ref.put("apiVersion", "v1");
            ref.put("kind", "Node");
            ref.put("name", node);
        }
        ObjectNode properties = r.putObject("properties");
        f.evidence().forEach((k, v) -> properties.put(k, shorten(v instanceof String s ? s
                : COMPACT.writeValueAsString(v), MAX_PROPERTY_CHARS)));
        if (f.hint() != null && !f.hint().isBlank()) {
            properties.put("hint", shorten(f.hint(), MAX_PROPERTY_CHARS));
        }
        if (f.discriminator() != null) {
            properties.put("about", f.discriminator());
        }
        properties.put("severity", f.severity().label());
        if (size(r) > MAX_RESULT_BYTES) {
            // the resources say which Nodes; the rest is what a reader can get again from `nodegate audit`
            r.set("properties", Structured.object().put("severity", f.severity().label())
                    .put("truncated", "evidence left out: the result was over " + MAX_RESULT_BYTES + " bytes; "
                            + "nodegate audit -o json has it"));
            r.put("message", shorten(f.message(), 512));
        }
        return r;
    }

    private static ObjectNode passResult(String code, String name, Instant at) {
        ObjectNode r = Structured.object();
        r.put("policy", code);
        r.put("rule", name);
        r.put("category", "nodegate");
        r.put("source", SOURCE);
        r.put("result", "pass");
        r.put("scored", true);
        timestamp(r, at);
        r.put("message", "checked: no " + code + " finding");
        return r;
    }

    private static void timestamp(ObjectNode r, Instant at) {
        ObjectNode ts = r.putObject("timestamp");
        ts.put("seconds", at == null ? 0 : at.getEpochSecond());
        ts.put("nanos", 0);
    }

    private static String shorten(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }

    private static long size(ObjectNode node) {
        return COMPACT.writeValueAsString(node).getBytes(StandardCharsets.UTF_8).length;
    }
}
