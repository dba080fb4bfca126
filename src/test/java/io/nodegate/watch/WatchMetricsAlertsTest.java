package io.nodegate.watch;

import io.nodegate.watch.publishing.FindingEvents;
import io.nodegate.audit.Audit;
import io.nodegate.audit.AuditReport;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.source.kube.Kinds;
import io.nodegate.source.dump.DumpSource;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.Promtool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The interface between `nodegate watch` and `nodegate alerts` is the metric names and labels. This renders the
 * watch's real /metrics text for a real audit (the renamed-rejoin example, plus a critical finding with a node and
 * one without), scrapes it into promtool for 30 minutes, and checks that the watch group's alerts fire exactly for
 * those findings and that unsynced informer: a renamed metric or label breaks it.
 */
class WatchMetricsAlertsTest {

    private static final YAMLMapper YAML = new YAMLMapper();
    private static final String POD = "nodegate-watch-0";
    private static final String NS = "nodegate-system";

    @Test
    void theWatchsMetricsFireTheWatchAlertsForItsFindings(@TempDir Path dir) throws Exception {
        Promtool.require();
        ClusterState state = DumpSource.load(List.of(Path.of("examples/cluster-a-renamed-rejoin")), null);
        AuditReport audited = Audit.run(state, AuditSettings.DEFAULTS);
        List<Finding> findings = new ArrayList<>(audited.findings());
        findings.add(new Finding("NG201", "etcd-split-brain", Severity.CRITICAL, List.of("gpu-a01"),
                "two etcd clusters", Map.of(), "hint"));
        findings.add(new Finding("NG211", "single-apiserver", Severity.CRITICAL, List.of(), "one apiserver",
                Map.of(), "hint"));
        AuditReport report = new AuditReport(audited.now(), audited.source(), audited.nodes(), findings,
                audited.notes());
        assertThat(findings).anyMatch(f -> f.severity() == Severity.WARNING && !f.nodes().isEmpty());

        Map<String, Boolean> informers = new LinkedHashMap<>();
        Kinds.audited().forEach(k -> informers.put(k.id(), true));
        informers.put(Kinds.CATTLE_JOBS.id(), false);
        WatchMetrics metrics = new WatchMetrics("0.1.0", () -> informers, () -> true);
        metrics.passSucceeded(new WatchEngine.Pass(audited.now(), true, null, report, state, Duration.ofMillis(20)));
        String text = metrics.render();

        // the scrape: every sample as Prometheus stores it from one pod, counters moving, for 30 minutes
        ArrayNode series = YAML.createArrayNode();
        for (String line : text.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList()) {
            int space = line.lastIndexOf(' ');
            String name = line.substring(0, space);
            String value = line.substring(space + 1);
            String extra = "namespace=\"" + NS + "\",pod=\"" + POD + "\"";
            String selector = name.contains("{") ? name.replace("}", "," + extra + "}") : name + "{" + extra + "}";
            ObjectNode s = series.addObject();
            s.put("series", selector);
            s.put("values", name.startsWith("nodegate_evaluations_total") ? value + "+4x30" : value + "x30");
        }

        // what must fire, worked out from the findings themselves
        Set<Map<String, String>> critical = expected(findings, Severity.CRITICAL);
        Set<Map<String, String>> warning = expected(findings, Severity.WARNING);
        assertThat(critical).contains(Map.of("severity", "critical", "code", "NG211"));

        ObjectNode test = YAML.createObjectNode();
        test.putArray("rule_files").add("rules.yml");
        test.put("evaluation_interval", "1m");
        ObjectNode group = test.putArray("tests").addObject();
        group.put("interval", "1m");
        group.set("input_series", series);
        ArrayNode checks = group.putArray("alert_rule_test");
        addCheck(checks, "NodegateCriticalFinding", critical);
        addCheck(checks, "NodegateWarningFinding", warning);
        addCheck(checks, "NodegateWatchNotReady", Set.of(Map.of("severity", "warning",
                "kind", Kinds.CATTLE_JOBS.id(), "namespace", NS, "pod", POD)));
        addCheck(checks, "NodegateWatchAbsent", Set.of());

        // the emitted rules with their annotations left out: this test is about expressions and labels
        JsonNode rules = YAML.readTree(CliRun.run("alerts", "-o", "rule-file").out());
        for (JsonNode g : rules.get("groups")) {
            for (JsonNode r : g.get("rules")) {
                ((ObjectNode) r).remove("annotations");
            }
        }
        Files.writeString(dir.resolve("rules.yml"), YAML.writeValueAsString(rules));
        Files.writeString(dir.resolve("test.yml"), YAML.writeValueAsString(test));

        Promtool.Result result = Promtool.run(dir, "test", "rules", "test.yml");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    private static Set<Map<String, String>> expected(List<Finding> findings, Severity severity) {
        Set<Map<String, String>> alerts = new LinkedHashSet<>();
        Set<String> codesWithNodes = new LinkedHashSet<>();
        for (Finding f : findings) {
            if (f.severity() == severity && !f.nodes().isEmpty()) {
                codesWithNodes.add(f.code());
                for (String node : f.nodes()) {
                    alerts.add(Map.of("severity", severity.label(), "code", f.code(),
                            "name", FindingEvents.reason(f), "node", node));
                }
            }
        }
        for (Finding f : findings) {
            if (f.severity() == severity && f.nodes().isEmpty() && !codesWithNodes.contains(f.code())) {
                alerts.add(Map.of("severity", severity.label(), "code", f.code()));
            }
        }
        return alerts;
    }

    private static void addCheck(ArrayNode checks, String alert, Set<Map<String, String>> labels) {
        ObjectNode check = checks.addObject();
        check.put("eval_time", "20m");
        check.put("alertname", alert);
        ArrayNode expected = check.putArray("exp_alerts");
        for (Map<String, String> l : labels) {
            ObjectNode e = expected.addObject();
            ObjectNode el = e.putObject("exp_labels");
            l.forEach(el::put);
        }
    }
}
