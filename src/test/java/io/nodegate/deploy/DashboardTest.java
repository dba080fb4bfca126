package io.nodegate.deploy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.nodegate.audit.Audit;
import io.nodegate.audit.AuditReport;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.model.ClusterState;
import io.nodegate.source.dump.DumpSource;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.Promtool;
import io.nodegate.watch.WatchMetricsText;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.nodegate.testing.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * `install --with-dashboard`: the ConfigMap Grafana's sidecar loads, the panels the issue asks for, every query
 * accepted by the real promtool, every metric name one that the watch really exports (its /metrics text after a
 * real pass) or that kube-state-metrics documents, and the findings panel answering with the watch's own numbers.
 */
class DashboardTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final YAMLMapper YAML = new YAMLMapper();

    /**
     * kube-state-metrics' documented metrics the dashboard may read (kubernetes/kube-state-metrics
     * docs/metrics/cluster/lease-metrics.md: kube_lease_renew_time; docs/metrics/cluster/node-metrics.md:
     * kube_node_info, kube_node_status_condition).
     */
    private static final Set<String> KUBE_STATE_METRICS = Set.of("kube_lease_renew_time", "kube_node_info",
            "kube_node_status_condition");

    /** PromQL words that look like metric names: functions, aggregations, operators, modifiers. */
    private static final Set<String> PROMQL_WORDS = Set.of("sum", "max", "min", "count", "avg", "group", "by",
            "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset",
            "time", "rate", "increase", "histogram_quantile", "label_replace", "count_values", "max_over_time",
            "min_over_time", "absent", "floor", "abs");

    private static JsonNode dashboard;
    private static ConfigMap configMap;

    @BeforeAll
    static void install() {
        CliRun install = run("install", "--image", "registry.example.com/ops/nodegate:0.1.0", "--with-dashboard");
        assertThat(install.exitCode()).as(install.err()).isZero();
        List<HasMetadata> objects = AlertRulesPromtoolTest.parse(install.out());
        configMap = objects.stream().filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast)
                .filter(c -> c.getMetadata().getName().equals(Dashboard.CONFIGMAP)).findFirst().orElseThrow();
        dashboard = JSON.readTree(configMap.getData().get(Dashboard.FILE));
    }

    @Test
    void theConfigMapIsLabelledForGrafanasSidecarAndOnlyWithTheFlag() {
        assertThat(configMap.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        assertThat(configMap.getMetadata().getNamespace()).isEqualTo("nodegate-system");
        assertThat(configMap.getData()).containsOnlyKeys("nodegate.json");
        CliRun plain = run("install", "--image", "registry.example.com/ops/nodegate:0.1.0");
        assertThat(AlertRulesPromtoolTest.parse(plain.out())).noneMatch(o -> o instanceof ConfigMap);
        // Rancher Monitoring's Grafana reads cattle-dashboards only
        CliRun rancher = run("install", "--image", "registry.example.com/ops/nodegate:0.1.0", "--with-dashboard",
                "--dashboard-namespace", "cattle-dashboards");
        assertThat(AlertRulesPromtoolTest.parse(rancher.out())).filteredOn(o -> o instanceof ConfigMap)
                .singleElement().satisfies(c -> assertThat(c.getMetadata().getNamespace()).isEqualTo("cattle-dashboards"));
        CliRun bad = run("install", "--image", "registry.example.com/ops/nodegate:0.1.0", "--with-dashboard",
                "--dashboard-namespace", "Cattle_Dashboards");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--dashboard-namespace");
        // generated from one source, the same bytes every run (a sidecar reloads on any change)
        assertThat(configMap.getData().get(Dashboard.FILE)).isEqualTo(Dashboard.json());
    }

    @Test
    void thePanelsTheIssueAsksFor() {
        List<String> titles = new ArrayList<>();
        dashboard.get("panels").forEach(p -> titles.add(p.get("title").asString()));
        assertThat(titles).contains("Active findings by code and severity", "Hosts in two clusters",
                "Batch silences (NG103) on a time axis", "Informers synced");
        assertThat(panel("Lease age (seconds since renewTime), all nodes").get("type").asString()).isEqualTo("heatmap");
        assertThat(dashboard.get("uid").asString()).isEqualTo("nodegate");
        // every panel queries the Prometheus chosen in the datasource variable
        dashboard.get("panels").forEach(p -> {
            assertThat(p.get("datasource").get("uid").asString()).isEqualTo("${datasource}");
            assertThat(p.get("targets")).isNotEmpty();
        });
        // panels do not overlap on Grafana's 24-column grid
        List<int[]> boxes = new ArrayList<>();
        dashboard.get("panels").forEach(p -> {
            JsonNode g = p.get("gridPos");
            int[] box = {g.get("x").asInt(), g.get("y").asInt(), g.get("w").asInt(), g.get("h").asInt()};
            assertThat(box[0] + box[2]).isLessThanOrEqualTo(24);
            for (int[] other : boxes) {
                boolean overlap = box[0] < other[0] + other[2] && other[0] < box[0] + box[2]
                        && box[1] < other[1] + other[3] && other[1] < box[1] + box[3];
                assertThat(overlap).as(p.get("title").asString()).isFalse();
            }
            boxes.add(box);
        });
    }

    @Test
    void everyQueryPassesPromtool(@TempDir Path dir) throws Exception {
        Promtool.require();
        Map<String, String> queries = queries();
        assertThat(queries).hasSizeGreaterThanOrEqualTo(10);
        Files.writeString(dir.resolve("dashboard.rules.yml"), YAML.writeValueAsString(recordingRules(queries)));
        Promtool.Result check = Promtool.run(dir, "check", "rules", "dashboard.rules.yml");
        assertThat(check.exitCode()).as(check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS: " + queries.size() + " rules found");

        // the check is real: a broken query fails it
        Map<String, String> broken = new LinkedHashMap<>(queries);
        broken.put("nodegate:broken", "max by (code (nodegate_findings)");
        Files.writeString(dir.resolve("broken.rules.yml"), YAML.writeValueAsString(recordingRules(broken)));
        assertThat(Promtool.run(dir, "check", "rules", "broken.rules.yml").exitCode()).isNotZero();
    }

    @Test
    void everyMetricNameIsOneTheWatchExportsOrKubeStateMetricsDocuments() {
        Set<String> exported = exportedByTheWatch(metricsText());
        assertThat(exported).contains("nodegate_findings", "nodegate_node_lease_renew_timestamp_seconds",
                "nodegate_evaluation_duration_seconds_bucket");
        Set<String> used = new TreeSet<>();
        queries().values().forEach(q -> used.addAll(metricNames(q)));
        assertThat(used).contains("nodegate_findings", "nodegate_finding", "nodegate_informer_synced",
                "nodegate_node_lease_renew_timestamp_seconds", "kube_lease_renew_time");
        for (String name : used) {
            assertThat(exported.contains(name) || KUBE_STATE_METRICS.contains(name))
                    .as("metric %s (exported by the watch: %s)", name, exported).isTrue();
        }
        // the name extraction finds a misspelt metric
        assertThat(metricNames("max by (code) (nodegate_findingz{cluster=~\".*\"}) or time()"))
                .containsExactly("nodegate_findingz");
    }

    /**
     * The findings panel's query over the watch's real /metrics text of the renamed-rejoin example, scraped from
     * two replicas: it answers one series per code and severity with the count the watch reports, not twice it.
     */
    @Test
    void theFindingsPanelCountsEachFindingOnceOverTwoReplicas(@TempDir Path dir) throws Exception {
        Promtool.require();
        String text = metricsText();
        ArrayNode series = YAML.createArrayNode();
        for (String pod : List.of("nodegate-watch-a", "nodegate-watch-b")) {
            for (String line : text.lines().filter(l -> l.startsWith("nodegate_findings{")).toList()) {
                int space = line.lastIndexOf(' ');
                ObjectNode s = series.addObject();
                s.put("series", line.substring(0, space).replace("}", ",pod=\"" + pod + "\"}"));
                s.put("values", line.substring(space + 1) + "x10");
            }
        }
        assertThat(series).isNotEmpty();
        Map<String, Integer> counts = new TreeMap<>();
        for (Finding f : report().findings()) {
            counts.merge(f.code() + "|" + f.severity().label(), 1, Integer::sum);
        }
        ArrayNode expected = YAML.createArrayNode();
        counts.forEach((k, n) -> {
            ObjectNode sample = expected.addObject();
            String[] parts = k.split("\\|");
            sample.put("labels", "{code=\"" + parts[0] + "\", severity=\"" + parts[1] + "\"}");
            sample.put("value", n);
        });
        ObjectNode test = YAML.createObjectNode();
        test.put("interval", "1m");
        test.set("input_series", series);
        ObjectNode exprTest = YAML.createObjectNode();
        exprTest.put("expr", substitute(panel("Active findings by code and severity").get("targets").get(0)
                .get("expr").asString()));
        exprTest.put("eval_time", "5m");
        exprTest.set("exp_samples", expected);
        test.set("promql_expr_test", YAML.createArrayNode().add(exprTest));
        ObjectNode file = YAML.createObjectNode();
        file.set("rule_files", YAML.createArrayNode());
        file.set("tests", YAML.createArrayNode().add(test));
        Files.writeString(dir.resolve("panel.test.yml"), YAML.writeValueAsString(file));
        Promtool.Result result = Promtool.run(dir, "test", "rules", "panel.test.yml");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    private static JsonNode panel(String title) {
        for (JsonNode p : dashboard.get("panels")) {
            if (p.get("title").asString().equals(title)) {
                return p;
            }
        }
        throw new AssertionError("no panel " + title);
    }

    /** Every panel's every query, with Grafana's variables replaced the way Grafana would ("All" clusters). */
    private static Map<String, String> queries() {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode p : dashboard.get("panels")) {
            for (JsonNode t : p.get("targets")) {
                out.put("nodegate_dashboard:panel" + p.get("id").asInt() + "_" + t.get("refId").asString(),
                        substitute(t.get("expr").asString()));
            }
        }
        return out;
    }

    private static String substitute(String expr) {
        String out = expr.replace(Dashboard.CLUSTER_VARIABLE, ".*").replace(Dashboard.RATE_INTERVAL_VARIABLE, "5m");
        assertThat(out).as("a Grafana variable the test does not substitute").doesNotContain("$cluster")
                .doesNotContain("$__");
        return out;
    }

    private static Map<String, Object> recordingRules(Map<String, String> queries) {
        List<Object> rules = new ArrayList<>();
        queries.forEach((record, expr) -> rules.add(Map.of("record", record, "expr", expr)));
        return Map.of("groups", List.of(Map.of("name", "nodegate-dashboard", "rules", rules)));
    }

    /** Identifiers in a query that are neither PromQL words, label names nor inside strings or selectors. */
    static Set<String> metricNames(String expr) {
        String s = expr.replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"")          // string literals
                .replaceAll("\\{[^}]*}", "")                                   // label matchers
                .replaceAll("\\[[^]]*]", "")                                   // range durations
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", "$1");
        Set<String> names = new TreeSet<>();
        Matcher m = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*").matcher(s);
        while (m.find()) {
            String word = m.group();
            int next = m.end();
            while (next < s.length() && Character.isWhitespace(s.charAt(next))) {
                next++;
            }
            boolean call = next < s.length() && s.charAt(next) == '(';
            if (!call && !PROMQL_WORDS.contains(word) && !word.matches("\\d.*")) {
                names.add(word);
            }
        }
        return names;
    }

    /** Metric names of an exposition: each # TYPE, with a histogram's _bucket, _sum and _count. */
    private static Set<String> exportedByTheWatch(String text) {
        Set<String> names = new TreeSet<>();
        for (String line : text.lines().filter(l -> l.startsWith("# TYPE ")).toList()) {
            String[] parts = line.split(" ");
            names.add(parts[2]);
            if (parts[3].equals("histogram")) {
                names.addAll(List.of(parts[2] + "_bucket", parts[2] + "_sum", parts[2] + "_count"));
            }
        }
        return names;
    }

    private static AuditReport report() {
        ClusterState state = DumpSource.load(List.of(Path.of("examples/cluster-a-renamed-rejoin")), null);
        return Audit.run(state, AuditSettings.DEFAULTS);
    }

    /** The watch's /metrics after one good pass over the renamed-rejoin example. */
    private static String metricsText() {
        ClusterState state = DumpSource.load(List.of(Path.of("examples/cluster-a-renamed-rejoin")), null);
        AuditReport report = Audit.run(state, AuditSettings.DEFAULTS);
        assertThat(report.findings()).isNotEmpty();
        return WatchMetricsText.afterPass(report, state);
    }
}
