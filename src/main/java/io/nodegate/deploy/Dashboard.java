package io.nodegate.deploy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Grafana dashboard `nodegate install --with-dashboard` ships, in a ConfigMap that Grafana's dashboard sidecar
 * loads (kube-prometheus-stack and Rancher Monitoring run kiwigrid's k8s-sidecar with
 * `sidecar.dashboards.label: grafana_dashboard`, `labelValue: "1"`: charts/kube-prometheus-stack/values.yaml of
 * prometheus-community/helm-charts, grafana chart's `sidecar.dashboards`). This class is the one source: the panels
 * below are the dashboard; docs/dashboard.md explains each, and DashboardTest runs every query through promtool and
 * checks each metric name against what the watch exports and kube-state-metrics documents.
 *
 * <p>Queries take the max over the watch's replicas: every replica evaluates and serves the same findings, so a sum
 * would count each finding once per replica.
 */
public final class Dashboard {

    public static final String CONFIGMAP = "nodegate-dashboard";
    public static final String FILE = "nodegate.json";
    public static final String UID = "nodegate";
    /** The label Grafana's sidecar selects dashboards by, and the value it expects. */
    public static final String SIDECAR_LABEL = "grafana_dashboard";
    public static final String SIDECAR_VALUE = "1";

    /** Grafana template variables the queries use; a test substitutes them to run the queries through promtool. */
    public static final String CLUSTER_VARIABLE = "$cluster";
    public static final String RATE_INTERVAL_VARIABLE = "$__rate_interval";

    private static final String CL = AlertSettings.DEFAULT_CLUSTER_LABEL;
    private static final String IN_CLUSTER = CL + "=~\"" + CLUSTER_VARIABLE + "\"";

    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    /**
     * One query of a panel.
     *
     * @param expr    PromQL, with {@link #CLUSTER_VARIABLE} and {@link #RATE_INTERVAL_VARIABLE} where needed
     * @param legend  Grafana's legendFormat
     * @param table   an instant query shown as table rows (one row per series) rather than a time series
     */
    public record Query(String expr, String legend, boolean table) {
    }

    /** One panel on Grafana's 24-column grid. */
    public record Panel(String title, String type, String description, int x, int y, int w, int h, String unit,
                        List<Query> queries) {
        public Panel {
            queries = List.copyOf(queries);
        }
    }

    private Dashboard() {
    }

    public static List<Panel> panels() {
        List<Panel> panels = new ArrayList<>();
        // -- findings ------------------------------------------------------------------------------------------
        panels.add(new Panel("Active findings by code and severity", "timeseries",
                "nodegate_findings: how many findings of each code are active, per severity. docs/findings.md "
                        + "explains each code.", 0, 0, 16, 8, "short",
                List.of(new Query("max by (" + CL + ", code, severity) (nodegate_findings{" + IN_CLUSTER + "})",
                        "{{code}} {{severity}}", false))));
        panels.add(new Panel("Nodes named by an active finding", "table",
                "nodegate_finding: one row per active finding and node it names, now. The Events on the Node "
                        + "carry the message (kubectl describe node).", 16, 0, 8, 8, "short",
                List.of(new Query("max by (" + CL + ", code, name, severity, node) (nodegate_finding{" + IN_CLUSTER
                        + "}) == 1", "", true))));
        // -- Leases --------------------------------------------------------------------------------------------
        panels.add(new Panel("Lease age (seconds since renewTime), all nodes", "heatmap",
                "Seconds since each Node's kube-node-lease Lease was renewed. kubelets renew every 10 s, so a "
                        + "healthy cluster is one band near 0 to 25 s (the watch's gauge is at most one interval "
                        + "old); silent nodes climb away from it, and a batch stop climbs as one line. From the "
                        + "watch where it runs, else from kube-state-metrics' kube_lease_renew_time.",
                0, 8, 24, 9, "s",
                List.of(new Query("(time() - max by (" + CL + ", node) (nodegate_node_lease_renew_timestamp_seconds{"
                        + IN_CLUSTER + "}))\nor\nlabel_replace(time() - max by (" + CL + ", lease) "
                        + "(kube_lease_renew_time{namespace=\"kube-node-lease\", " + IN_CLUSTER + "}), "
                        + "\"node\", \"$1\", \"lease\", \"(.+)\")", "{{node}}", false))));
        panels.add(new Panel("Batch silences (NG103) on a time axis", "state-timeline",
                "When each Node was part of a batch silence: Leases that stopped renewing within --batch-window "
                        + "of each other (a batch shutdown, a network cut, or hosts restarted against another "
                        + "cluster). One row per node; a bar while NG103 names it.", 0, 17, 16, 8, "short",
                List.of(new Query("max by (" + CL + ", node) (nodegate_finding{code=\"NG103\", " + IN_CLUSTER + "})",
                        "{{node}}", false))));
        panels.add(new Panel("When the silent Leases stopped", "table",
                "The last renewTime of each Node named by NG103: nodes of one batch share a stop time. Not a "
                        + "cleanup time for the removal gate.", 16, 17, 8, 8, "dateTimeAsIso",
                List.of(new Query("max by (" + CL + ", node) (nodegate_node_lease_renew_timestamp_seconds{"
                        + IN_CLUSTER + "}) * 1000\nand on (" + CL + ", node)\nmax by (" + CL + ", node) "
                        + "(nodegate_finding{code=\"NG103\", " + IN_CLUSTER + "})", "", true))));
        // -- across clusters -----------------------------------------------------------------------------------
        panels.add(new Panel("Hosts in two clusters", "table",
                "Hosts (firmware systemUUID) that are a Node in two or more clusters, from the watch's "
                        + "nodegate_host_info or kube-state-metrics' kube_node_info. Needs a Prometheus that sees "
                        + "several clusters with a '" + CL + "' label (Thanos, federation); the alert "
                        + "NodegateHostInTwoClusters fires on the same rows. `nodegate fleet` (NG301) shows both "
                        + "sides.", 0, 25, 24, 8, "short",
                List.of(new Query(AlertRules.hostsByCluster(CL) + "\nand on (system_uuid)\n"
                        + AlertRules.inSeveralClusters(CL), "", true))));
        // -- the watch itself ----------------------------------------------------------------------------------
        panels.add(new Panel("Informers synced", "state-timeline",
                "nodegate_informer_synced per kind, the lowest over the replicas: 0 while an informer is not "
                        + "synced or its re-list failed. Findings are frozen then (neither new nor resolved).",
                0, 33, 12, 7, "short",
                List.of(new Query("min by (" + CL + ", kind) (nodegate_informer_synced{" + IN_CLUSTER + "})",
                        "{{kind}}", false))));
        panels.add(new Panel("Passes per minute", "timeseries",
                "Evaluation passes and failed passes per minute, summed over the replicas. Failed passes "
                        + "mean an informer was not usable.", 12, 33, 12, 7, "short",
                List.of(new Query("sum by (" + CL + ", pod) (rate(nodegate_evaluations_total{" + IN_CLUSTER + "}["
                                + RATE_INTERVAL_VARIABLE + "])) * 60", "{{pod}} passes", false),
                        new Query("sum by (" + CL + ", pod) (rate(nodegate_evaluation_errors_total{" + IN_CLUSTER
                                + "}[" + RATE_INTERVAL_VARIABLE + "])) * 60", "{{pod}} failed", false))));
        panels.add(new Panel("Pass duration (p99)", "timeseries",
                "99th percentile of one pass (state from the informers' caches plus every detector); the "
                        + "benchmark target is 200 ms at 5,000 nodes (bench/RESULTS.md).", 0, 40, 12, 7, "s",
                List.of(new Query("histogram_quantile(0.99, sum by (" + CL + ", pod, le) "
                        + "(rate(nodegate_evaluation_duration_seconds_bucket{" + IN_CLUSTER + "}["
                        + RATE_INTERVAL_VARIABLE + "])))", "{{pod}}", false))));
        panels.add(new Panel("Replicas and leader", "timeseries",
                "Replicas reporting (nodegate_build_info) and how many hold the Lease (nodegate_leader): one "
                        + "leader posts the Events; 0 for longer than --lease-duration means no Events.",
                12, 40, 12, 7, "short",
                List.of(new Query("count by (" + CL + ", namespace, version) (nodegate_build_info{" + IN_CLUSTER
                                + "})", "replicas {{version}}", false),
                        new Query("sum by (" + CL + ", namespace) (nodegate_leader{" + IN_CLUSTER + "})",
                                "leaders", false))));
        return panels;
    }

    /** The dashboard JSON, as Grafana's "Import dashboard" and its sidecar take it. */
    public static String json() {
        Map<String, Object> dashboard = new LinkedHashMap<>();
        dashboard.put("uid", UID);
        dashboard.put("title", "nodegate");
        dashboard.put("description", "Findings, Lease ages, batch silences, hosts in two clusters and the health "
                + "of nodegate watch (docs/dashboard.md)");
        dashboard.put("tags", List.of("nodegate", "kubernetes", "nodes"));
        dashboard.put("editable", true);
        dashboard.put("graphTooltip", 1);
        dashboard.put("schemaVersion", 39);
        dashboard.put("time", ordered("from", "now-24h", "to", "now"));
        dashboard.put("refresh", "1m");
        dashboard.put("templating", ordered("list", List.of(datasourceVariable(), clusterVariable())));
        List<Object> panels = new ArrayList<>();
        int id = 1;
        for (Panel p : panels()) {
            panels.add(panel(id++, p));
        }
        dashboard.put("panels", panels);
        return JSON.writeValueAsString(dashboard) + "\n";
    }

    /** The ConfigMap the Grafana sidecar loads the dashboard from. */
    public static ConfigMap configMap(String namespace) {
        Map<String, String> labels = new TreeMap<>(InstallBundle.labels());
        labels.put("app.kubernetes.io/component", "dashboard");
        labels.put(SIDECAR_LABEL, SIDECAR_VALUE);
        return new ConfigMapBuilder()
                .withNewMetadata().withName(CONFIGMAP).withNamespace(namespace).withLabels(labels).endMetadata()
                .addToData(FILE, json())
                .build();
    }

    private static Map<String, Object> panel(int id, Panel p) {
        Map<String, Object> panel = new LinkedHashMap<>();
        panel.put("id", id);
        panel.put("type", p.type());
        panel.put("title", p.title());
        panel.put("description", p.description());
        panel.put("gridPos", ordered("x", p.x(), "y", p.y(), "w", p.w(), "h", p.h()));
        panel.put("datasource", datasource());
        List<Object> targets = new ArrayList<>();
        char ref = 'A';
        for (Query q : p.queries()) {
            Map<String, Object> target = new LinkedHashMap<>();
            target.put("refId", String.valueOf(ref++));
            target.put("datasource", datasource());
            target.put("expr", q.expr());
            target.put("legendFormat", q.legend());
            if (q.table()) {
                target.put("instant", true);
                target.put("range", false);
                target.put("format", "table");
            }
            targets.add(target);
        }
        panel.put("targets", targets);
        panel.put("fieldConfig", ordered("defaults", ordered("unit", p.unit()), "overrides", List.of()));
        if (p.type().equals("heatmap")) {
            // Grafana 9+ buckets the per-node series itself ("calculate"); the y axis is the age
            panel.put("options", ordered("calculate", true, "yAxis", ordered("unit", p.unit()),
                    "color", ordered("mode", "scheme", "scheme", "Oranges")));
        }
        return panel;
    }

    /** A map that keeps the given order (Map.of's order changes from one JVM to the next, and the JSON must not). */
    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    private static Map<String, Object> datasource() {
        return ordered("type", "prometheus", "uid", "${datasource}");
    }

    private static Map<String, Object> datasourceVariable() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("name", "datasource");
        v.put("label", "Prometheus");
        v.put("type", "datasource");
        v.put("query", "prometheus");
        return v;
    }

    /** All clusters by default; ".*" also matches a Prometheus whose series carry no cluster label at all. */
    private static Map<String, Object> clusterVariable() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("name", CLUSTER_VARIABLE.substring(1));
        v.put("label", CL);
        v.put("type", "query");
        v.put("datasource", datasource());
        v.put("query", "label_values(nodegate_build_info, " + CL + ")");
        v.put("includeAll", true);
        v.put("allValue", ".*");
        v.put("multi", true);
        v.put("current", ordered("text", "All", "value", "$__all"));
        v.put("refresh", 2);
        return v;
    }
}
