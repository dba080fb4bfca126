package io.nodegate.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.Promtool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.nodegate.testing.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules `nodegate alerts` emits, run through the real promtool: `check rules`, then the unit cases in
 * src/test/resources/alerts/nodegate-alerts.test.yml against exactly the emitted rule file. The cases must cover
 * every alert and severity the command emits (firing, not firing, resolving), so a rule added or changed without
 * cases fails here.
 */
class AlertRulesPromtoolTest {

    private static final YAMLMapper YAML = new YAMLMapper();
    private static final String CASES = "nodegate-alerts.test.yml";

    private static String ruleFile;
    private static JsonNode cases;

    @BeforeAll
    static void emit() throws IOException {
        CliRun alerts = run("alerts", "-o", "rule-file");
        assertThat(alerts.exitCode()).as(alerts.err()).isZero();
        ruleFile = alerts.out();
        try (InputStream in = AlertRulesPromtoolTest.class.getResourceAsStream("/alerts/" + CASES)) {
            assertThat(in).as("test resource alerts/" + CASES).isNotNull();
            cases = YAML.readTree(in.readAllBytes());
        }
    }

    @Test
    void promtoolAcceptsTheRulesAndEveryCasePasses(@TempDir Path dir) throws Exception {
        Promtool.require();
        Files.writeString(dir.resolve("nodegate.rules.yml"), ruleFile);
        try (InputStream in = getClass().getResourceAsStream("/alerts/" + CASES)) {
            Files.write(dir.resolve(CASES), in.readAllBytes());
        }

        Promtool.Result check = Promtool.run(dir, "check", "rules", "nodegate.rules.yml");
        assertThat(check.exitCode()).as(check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS: " + emittedRules().size() + " rules found");

        Promtool.Result test = Promtool.run(dir, "test", "rules", CASES);
        assertThat(test.exitCode()).as(test.output()).isZero();
        assertThat(test.output()).contains("SUCCESS");
    }

    @Test
    void everyEmittedAlertAndSeverityFiresDoesNotFireAndResolvesInTheCases() {
        Map<String, Set<String>> emitted = new LinkedHashMap<>();
        for (JsonNode rule : emittedRules()) {
            emitted.computeIfAbsent(rule.get("alert").asString(), k -> new TreeSet<>())
                    .add(rule.get("labels").get("severity").asString());
        }
        assertThat(emitted.keySet()).containsExactly(
                "NodegateAbandonedNode", "NodegateBareNewcomer", "NodegateSameHostTwoNames",
                "NodegateDuplicateInternalIP", "NodegateBatchSilence",
                "NodegateCriticalFinding", "NodegateWarningFinding", "NodegateWatchNotReady", "NodegateWatchAbsent",
                "NodegateHostInTwoClusters");

        Map<String, Set<String>> firingSeverities = new LinkedHashMap<>();
        Set<String> notFiring = new LinkedHashSet<>();
        Set<String> resolving = new LinkedHashSet<>();
        Set<String> tested = new LinkedHashSet<>();
        for (JsonNode group : cases.get("tests")) {
            // alert -> eval time -> the expected alerts' label sets
            Map<String, java.util.TreeMap<Long, Set<String>>> timeline = new LinkedHashMap<>();
            for (JsonNode eval : group.get("alert_rule_test")) {
                String alert = eval.get("alertname").asString();
                tested.add(alert);
                JsonNode expected = eval.get("exp_alerts");
                Set<String> labelSets = new TreeSet<>();
                if (expected != null) {
                    for (JsonNode e : expected) {
                        firingSeverities.computeIfAbsent(alert, k -> new TreeSet<>())
                                .add(e.get("exp_labels").get("severity").asString());
                        labelSets.add(e.get("exp_labels").toString());
                    }
                }
                if (labelSets.isEmpty()) {
                    notFiring.add(alert);
                }
                timeline.computeIfAbsent(alert, k -> new java.util.TreeMap<>())
                        .put(seconds(eval.get("eval_time").asString()), labelSets);
            }
            // resolving: an alert expected at one time is no longer expected at a later time of the same series
            timeline.forEach((alert, byTime) -> {
                List<Set<String>> inOrder = new ArrayList<>(byTime.values());
                for (int i = 0; i < inOrder.size(); i++) {
                    for (int j = i + 1; j < inOrder.size(); j++) {
                        if (!inOrder.get(j).containsAll(inOrder.get(i))) {
                            resolving.add(alert);
                        }
                    }
                }
            });
        }

        assertThat(tested).as("every alert in the cases is one the command emits")
                .isSubsetOf(emitted.keySet());
        assertThat(firingSeverities).as("a firing case for every alert and each of its severities")
                .isEqualTo(emitted);
        assertThat(notFiring).as("a not-firing case for every alert").containsAll(emitted.keySet());
        assertThat(resolving).as("a resolving case for every alert").containsAll(emitted.keySet());
    }

    @Test
    void prometheusRuleCarriesTheSameGroupsAsTheRuleFile() {
        CliRun yaml = run("alerts");
        assertThat(yaml.exitCode()).isZero();
        List<HasMetadata> objects = parse(yaml.out());
        assertThat(objects).singleElement().isInstanceOf(GenericKubernetesResource.class);
        GenericKubernetesResource rule = (GenericKubernetesResource) objects.get(0);
        assertThat(rule.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(rule.getKind()).isEqualTo("PrometheusRule");
        assertThat(rule.getMetadata().getNamespace()).isEqualTo("nodegate-system");
        JsonNode spec = YAML.valueToTree(rule.getAdditionalProperties().get("spec"));
        assertThat(spec).isEqualTo(YAML.readTree(ruleFile));
        assertThat(spec.get("groups")).extracting(g -> g.get("name").asString()).containsExactly(
                AlertRules.GROUP_KUBE_STATE_METRICS, AlertRules.GROUP_WATCH, AlertRules.GROUP_FEDERATION);
    }

    @Test
    void everyAlertHasSummaryDescriptionAndARunbookAnchorThatExistsInDocs() throws IOException {
        String docs = Files.readString(Path.of("docs/alerts.md"));
        Set<String> anchors = new TreeSet<>();
        Matcher heading = Pattern.compile("(?m)^#{2,4} (Nodegate\\w+)\\s*$").matcher(docs);
        while (heading.find()) {
            anchors.add(heading.group(1).toLowerCase());
        }
        for (JsonNode rule : emittedRules()) {
            JsonNode annotations = rule.get("annotations");
            String alert = rule.get("alert").asString();
            assertThat(annotations.get("summary").asString()).as(alert).isNotBlank();
            assertThat(annotations.get("description").asString()).as(alert + " names its node(s)")
                    .containsAnyOf("$labels.node", "$labels.namespace");
            assertThat(annotations.get("runbook_url").asString()).as(alert)
                    .isEqualTo("docs/alerts.md#" + alert.toLowerCase());
            assertThat(anchors).as("docs/alerts.md has a section for " + alert).contains(alert.toLowerCase());
        }
    }

    @Test
    void optionsChangeNamespaceClusterLabelRunbookBaseAndLeaveOutTheWatchGroup() {
        CliRun out = run("alerts", "-o", "rule-file", "--without-watch", "--cluster-label", "tenant",
                "--runbook-base", "https://git.example.com/ops/nodegate/docs/alerts.md");
        assertThat(out.exitCode()).as(out.err()).isZero();
        JsonNode file = YAML.readTree(out.out());
        assertThat(file.get("groups")).extracting(g -> g.get("name").asString())
                .containsExactly(AlertRules.GROUP_KUBE_STATE_METRICS, AlertRules.GROUP_FEDERATION);
        String text = out.out();
        assertThat(text).contains("group by (tenant, node, system_uuid)").doesNotContain("(cluster,")
                .contains("runbook_url: https://git.example.com/ops/nodegate/docs/alerts.md#nodegatebatchsilence");

        CliRun labelled = run("alerts", "-n", "cattle-monitoring-system", "--rule-label", "release=kps");
        List<HasMetadata> objects = parse(labelled.out());
        assertThat(objects.get(0).getMetadata().getNamespace()).isEqualTo("cattle-monitoring-system");
        assertThat(objects.get(0).getMetadata().getLabels()).containsEntry("release", "kps");

        CliRun json = run("alerts", "-o", "json");
        assertThat(json.exitCode()).isZero();
        // kubectl's -o json: one v1 List, indented
        JsonNode list = new tools.jackson.databind.ObjectMapper().readTree(json.out());
        assertThat(list.get("kind").asString()).isEqualTo("List");
        assertThat(list.get("items").get(0).get("kind").asString()).isEqualTo("PrometheusRule");
    }

    @Test
    void badInputIsAUsageErrorNamingTheOption() {
        CliRun badLabel = run("alerts", "--cluster-label", "my-cluster");
        assertThat(badLabel.exitCode()).isEqualTo(2);
        assertThat(badLabel.err()).contains("--cluster-label").contains("my-cluster");
        assertThat(badLabel.out()).isEmpty();

        CliRun badFormat = run("alerts", "-o", "xml");
        assertThat(badFormat.exitCode()).isEqualTo(2);
        assertThat(badFormat.err()).contains("xml");

        CliRun anchor = run("alerts", "--runbook-base", "https://x/alerts.md#top");
        assertThat(anchor.exitCode()).isEqualTo(2);
        assertThat(anchor.err()).contains("--runbook-base");

        CliRun help = run("alerts", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("Examples:").contains("kubectl apply -f -");
    }

    @SuppressWarnings("unchecked")
    static List<HasMetadata> parse(String yaml) {
        Object parsed = new KubernetesSerialization().unmarshal(yaml);
        return parsed instanceof List<?> list ? (List<HasMetadata>) list : List.of((HasMetadata) parsed);
    }

    private static List<JsonNode> emittedRules() {
        List<JsonNode> rules = new ArrayList<>();
        for (JsonNode group : YAML.readTree(ruleFile).get("groups")) {
            group.get("rules").forEach(rules::add);
        }
        return rules;
    }

    private static long seconds(String promDuration) {
        Matcher m = Pattern.compile("(\\d+)([dhms])").matcher(promDuration);
        long total = 0;
        while (m.find()) {
            long n = Long.parseLong(m.group(1));
            total += switch (m.group(2)) {
                case "d" -> n * 86400;
                case "h" -> n * 3600;
                case "m" -> n * 60;
                default -> n;
            };
        }
        return total;
    }
}
