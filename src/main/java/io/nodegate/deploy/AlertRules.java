package io.nodegate.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The alert rules `nodegate alerts` emits, in three groups. Every expression, threshold and approximation here is
 * explained, with the field case behind it, in docs/alerts.md (one section per alert, which runbook_url points at).
 * The promtool cases in src/test/resources/alerts/ test exactly what this class emits.
 */
public final class AlertRules {

    public static final String GROUP_KUBE_STATE_METRICS = "nodegate.kube-state-metrics";
    public static final String GROUP_WATCH = "nodegate.watch";
    public static final String GROUP_FEDERATION = "nodegate.federation";

    public static final String RULE_NAME = "nodegate";

    /** Placeholder for the cluster label in the federation expressions (`--cluster-label`). */
    private static final String CL = "%CL%";

    /**
     * Nodes that exist now. kube-state-metrics exports kube_node_info only for current Node objects, and the
     * series gets a staleness marker at the first scrape without it, so joining on it ends a deleted Node's alert
     * within a scrape or two (seed: the abandoned-node alert kept firing for deleted nodes until this join).
     */
    static final String EXISTS_NOW = "group by (node) (kube_node_info)";

    /** Some boards report an all-zero systemUUID, and an empty one means unknown: neither identifies a host. */
    static final String REAL_UUID = "system_uuid!~\"[0-]*\"";

    /**
     * Node Leases not renewed for 2 minutes, with their last renewTime as the value. kubelets renew every 10 s and
     * the node lifecycle controller calls a node silent after 50 s; the extra minute covers the age of the
     * kube-state-metrics sample itself (scrape intervals up to 1 m) so a renewing node is never counted.
     */
    static final String SILENT_LEASES =
            "(kube_lease_renew_time{namespace=\"kube-node-lease\"} < time() - 120)";

    private AlertRules() {
    }

    public static List<AlertGroup> groups(AlertSettings settings) {
        List<AlertGroup> groups = new ArrayList<>();
        groups.add(new AlertGroup(GROUP_KUBE_STATE_METRICS, List.of(
                abandonedNode(), bareNewcomer(), sameHostTwoNames(), duplicateInternalIp(), batchSilence())));
        if (settings.includeWatch()) {
            groups.add(new AlertGroup(GROUP_WATCH, List.of(
                    finding("critical", "NodegateCriticalFinding", "2m"),
                    finding("warning", "NodegateWarningFinding", "15m"),
                    watchNotReady(settings), watchAbsent(settings))));
        }
        groups.add(new AlertGroup(GROUP_FEDERATION, List.of(
                hostInTwoClusters(settings, true), hostInTwoClusters(settings, false))));
        return groups;
    }

    /** A plain Prometheus rule file (`groups:`), what promtool and a Prometheus without the operator read. */
    public static Map<String, Object> ruleFile(AlertSettings settings) {
        List<Object> groups = new ArrayList<>();
        for (AlertGroup group : groups(settings)) {
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("name", group.name());
            g.put("rules", group.rules().stream().map(r -> (Object) r.toMap(settings.runbookBase())).toList());
            groups.add(g);
        }
        Map<String, Object> file = new LinkedHashMap<>();
        file.put("groups", groups);
        return file;
    }

    /** The PrometheusRule (monitoring.coreos.com/v1) that the Prometheus operator (Rancher Monitoring) loads. */
    public static GenericKubernetesResource prometheusRule(AlertSettings settings) {
        Map<String, String> labels = new TreeMap<>(settings.objectLabels());
        labels.put("app.kubernetes.io/name", "nodegate");
        labels.put("app.kubernetes.io/component", "alerts");
        return new GenericKubernetesResourceBuilder()
                .withApiVersion("monitoring.coreos.com/v1")
                .withKind("PrometheusRule")
                .withNewMetadata().withName(RULE_NAME).withNamespace(settings.namespace()).withLabels(labels)
                .endMetadata()
                .addToAdditionalProperties("spec", ruleFile(settings))
                .build();
    }

    // ---- nodegate.kube-state-metrics: needs only kube-state-metrics ------------------------------------------

    static AlertRule abandonedNode() {
        return new AlertRule("NodegateAbandonedNode", """
                (
                    label_replace(
                      min by (node) (min_over_time(kube_node_spec_unschedulable[72h])) == 1,
                      "reason", "cordoned", "", "")
                  or
                    label_replace(
                      max by (node) (max_over_time(kube_node_status_condition{condition="Ready",status="true"}[72h])) == 0,
                      "reason", "not-ready", "", "")
                )
                and on (node) group by (node) (kube_node_info offset 72h)
                and on (node) %s
                """.formatted(EXISTS_NOW), "30m", "warning",
                "Node {{ $labels.node }} has been {{ if eq $labels.reason \"cordoned\" }}cordoned{{ else }}not Ready"
                        + "{{ end }} for 72 hours",
                "Node {{ $labels.node }} still exists and has been {{ if eq $labels.reason \"cordoned\" }}cordoned"
                        + "{{ else }}without Ready=True{{ end }} for the whole of the last 72 hours. Nobody seems to "
                        + "own it: find the owner, then keep it (uncordon or repair the host) or remove it through "
                        + "the removal gate (nodegate gate). Once the Node is deleted this alert resolves within a "
                        + "scrape or two.");
    }

    static AlertRule bareNewcomer() {
        return new AlertRule("NodegateBareNewcomer", """
                (time() - max by (node) (kube_node_created)) < 72 * 3600
                unless on (node) group by (node) (kube_node_role)
                unless on (node) (max by (node) (kube_node_spec_unschedulable) == 1)
                and on () group (kube_node_role)
                and on (node) %s
                """.formatted(EXISTS_NOW), "5m", "warning",
                "Node {{ $labels.node }} joined {{ $value | humanizeDuration }} ago with no role label and no cordon",
                "Node {{ $labels.node }} was created {{ $value | humanizeDuration }} ago, has no "
                        + "node-role.kubernetes.io/* label and is not cordoned, while other nodes of this cluster do "
                        + "have roles. Pods without a role selector are landing on it now. A host renamed and "
                        + "rebooted before its cleanup rejoins exactly like this (see NodegateSameHostTwoNames). "
                        + "Cordon it until someone claims the host; if it is expected, give it its role label.");
    }

    static AlertRule sameHostTwoNames() {
        return new AlertRule("NodegateSameHostTwoNames", """
                group by (node, system_uuid) (kube_node_info{%1$s})
                and on (system_uuid)
                  count by (system_uuid) (group by (system_uuid, node) (kube_node_info{%1$s})) > 1
                """.formatted(REAL_UUID), "2m", "warning",
                "Host {{ $labels.system_uuid }} is registered under several Node names, one of them "
                        + "{{ $labels.node }}",
                "Node {{ $labels.node }} has systemUUID {{ $labels.system_uuid }}, and so "
                        + otherNodes("kube_node_info{system_uuid=%q, node!=%q}",
                        "$labels.system_uuid $labels.node") + ". "
                        + "The firmware UUID survives renames and IP changes: this is one host under several names, "
                        + "typically a host renamed and rebooted before its cleanup that rejoined under the new name "
                        + "without its cordon, role label or taints (or a cloned VM). nodegate audit (NG110) names "
                        + "the older object and what the newer one lacks.");
    }

    static AlertRule duplicateInternalIp() {
        return new AlertRule("NodegateDuplicateInternalIP", """
                group by (node, internal_ip) (kube_node_info{internal_ip!=""})
                and on (internal_ip)
                  count by (internal_ip) (group by (internal_ip, node) (kube_node_info{internal_ip!=""})) > 1
                """, "5m", "warning",
                "InternalIP {{ $labels.internal_ip }} is reported by several Nodes, one of them {{ $labels.node }}",
                "Node {{ $labels.node }} reports InternalIP {{ $labels.internal_ip }}, and so "
                        + otherNodes("kube_node_info{internal_ip=%q, node!=%q}",
                        "$labels.internal_ip $labels.node") + ". "
                        + "Without --node-ip the kubelet registers the address of the NIC holding the default route; "
                        + "on multi-NIC hosts (or lab VMs whose first NIC is identical) nodes collide and traffic "
                        + "reaches the wrong host. Set node-ip in each host's RKE2/k3s config.yaml and restart the "
                        + "agent.");
    }

    static AlertRule batchSilence() {
        // Three or more silent Leases whose last renewTimes fall in one 60 s bucket of either of two grids offset
        // by 30 s: any three stops within 30 s of each other always share a bucket in one grid, stops more than
        // 60 s apart never do. count_values turns each Lease's bucket number into a label that can be counted.
        String windowA = "floor(" + SILENT_LEASES + " / 60)";
        String windowB = "floor((" + SILENT_LEASES + " + 30) / 60)";
        return new AlertRule("NodegateBatchSilence", """
                max by (node) (label_replace(%1$s, "node", "$1", "lease", "(.+)"))
                and on (node)
                label_replace(
                    %2$s
                  or
                    %3$s,
                  "node", "$1", "lease", "(.+)")
                and on (node) %4$s
                """.formatted(SILENT_LEASES, leasesInBatch(windowA), leasesInBatch(windowB), EXISTS_NOW),
                "1m", "warning",
                "Node {{ $labels.node }}'s Lease stopped renewing together with at least two other nodes' Leases",
                "The Lease of node {{ $labels.node }} last renewed at {{ $value | humanizeTimestamp }}. Node "
                        + "Leases that stopped within a minute of it: {{ range $i, $s := printf "
                        + "`abs(kube_lease_renew_time{namespace=\"kube-node-lease\"} - %f) <= 60` $value | query "
                        + "| sortByLabel \"lease\" }}{{ if $i }}, {{ end }}{{ $s.Labels.lease }}{{ end }}. "
                        + "Leases that stop together mean someone acted on those hosts at that moment: a batch "
                        + "shutdown, a network cut, or hosts restarted against another cluster, which all look the "
                        + "same from here. Confirm what happened before deleting anything; this stop time is not a "
                        + "cleanup time for the removal gate.");
    }

    private static String leasesInBatch(String window) {
        return """
                group by (lease) (
                        count_values by (lease) ("stop_window", %1$s)
                      and on (stop_window)
                        count by (stop_window) (count_values by (lease) ("stop_window", %1$s)) >= 3
                    )""".formatted(window);
    }

    // ---- nodegate.watch: on the watch's own metrics ----------------------------------------------------------

    static AlertRule finding(String severity, String alert, String forDuration) {
        // Every replica evaluates and serves the same findings, so the series come once per replica: max by the
        // finding's identity makes one alert of them. No existence join: some findings name a Node that is gone on
        // purpose (a node-password Secret left without its Node), and the watch drops a finding as soon as its
        // cause is gone. nodegate_finding has a series per node a finding names, so findings that name no node
        // (NG211 single apiserver, NG202 quorum) are seen only in the per-code count nodegate_findings: the second
        // branch alerts on those codes, once per code. The watch labels every series with its cluster
        // (--cluster-name): kept through the aggregation, so that the alert itself says which cluster it is about
        // where external labels are not shown (Thanos' alerts API drops them); absent, the label stays empty.
        return new AlertRule(alert, """
                max by (cluster, code, name, node) (nodegate_finding{severity="%1$s"}) == 1
                or
                (
                    max by (cluster, code) (nodegate_findings{severity="%1$s"}) > 0
                  unless on (cluster, code)
                    group by (cluster, code) (nodegate_finding{severity="%1$s"})
                )
                """.formatted(severity), forDuration, severity,
                "nodegate {{ $labels.code }}{{ with $labels.name }} {{ . }}{{ end }}"
                        + "{{ with $labels.node }} on node {{ . }}{{ end }}",
                "The nodegate watch reports " + severity + " finding {{ $labels.code }}"
                        + "{{ with $labels.name }} ({{ . }}){{ end }}"
                        + "{{ with $labels.node }} naming node {{ . }}. The Events on the node carry its message "
                        + "(kubectl describe node {{ . }}){{ else }}, which names no node{{ end }}. nodegate audit "
                        + "shows its evidence, and docs/findings.md explains the code and what to do.");
    }

    static AlertRule watchNotReady(AlertSettings settings) {
        // Two ways a running watch stops seeing: an informer that is not synced (kind label), or passes that all
        // fail or no longer run (a stuck loop still serves /metrics, so NodegateWatchAbsent cannot see it). The
        // watch counts a pass with an unsynced informer as failed, so the second branch leaves those pods to the
        // first, which names the kind.
        return new AlertRule("NodegateWatchNotReady", """
                min by (%1$s, namespace, pod, kind) (nodegate_informer_synced) == 0
                or
                (
                    max by (%1$s, namespace, pod) (
                      increase(nodegate_evaluations_total[10m]) - increase(nodegate_evaluation_errors_total[10m])
                    ) < 1
                  unless on (%1$s, namespace, pod)
                    (nodegate_informer_synced == 0)
                )
                """.formatted(CL).replace(CL, settings.clusterLabel()), "10m", "warning",
                "nodegate watch {{ $labels.pod }}: {{ with $labels.kind }}the {{ . }} informer has not been synced"
                        + "{{ else }}no evaluation pass has succeeded{{ end }} for 10 minutes",
                "{{ with $labels.kind }}The {{ . }} informer{{ else }}Every evaluation pass{{ end }} of nodegate "
                        + "watch {{ $labels.pod }} (namespace {{ $labels.namespace }}) has "
                        + "{{ with $labels.kind }}not been synced{{ else }}failed or not run{{ end }} for 10 minutes. "
                        + "Until that changes, the findings that depend on it are frozen: neither reported as new "
                        + "nor resolved. The pod's log says why (usually a 403: compare the ClusterRole with nodegate "
                        + "install, or LISTs that time out on a slow apiserver).");
    }

    static AlertRule watchAbsent(AlertSettings settings) {
        // absent() fires only when every series is gone and returns no labels: it stays silent when one cluster's
        // (or namespace's) watch disappears while another still reports. The first branch remembers, per cluster
        // and namespace, that a watch reported in the last 7 days; the second is absent() for "never deployed".
        return new AlertRule("NodegateWatchAbsent", """
                (
                    group by (%1$s, namespace) (max_over_time(nodegate_build_info[7d]))
                  unless on (%1$s, namespace)
                    group by (%1$s, namespace) (nodegate_build_info)
                )
                or
                absent(nodegate_build_info)
                """.formatted(CL).replace(CL, settings.clusterLabel()), "10m", "warning",
                "nodegate watch is not reporting{{ with $labels.namespace }} in namespace {{ . }}{{ end }}"
                        + "{{ with $labels." + settings.clusterLabel() + " }} of cluster {{ . }}{{ end }}",
                "Prometheus has had no metrics from nodegate watch{{ with $labels.namespace }} in namespace {{ . }}"
                        + "{{ end }}{{ with $labels." + settings.clusterLabel() + " }} of cluster {{ . }}{{ end }} "
                        + "for 10 minutes, so no nodegate finding can alert. Check the Deployment's pods, the "
                        + "Service's endpoints and the ServiceMonitor (kubectl -n nodegate-system get "
                        + "pods,endpoints,servicemonitor), and the target in Prometheus.");
    }

    // ---- nodegate.federation: a Prometheus that sees several clusters ---------------------------------------

    static AlertRule hostInTwoClusters(AlertSettings settings, boolean departure) {
        String hosts = hostsByCluster(CL);
        String ready = "group by (%1$s, node) (kube_node_status_condition{%1$s!=\"\", condition=\"Ready\", "
                + "status=\"true\"} == 1)";
        ready = ready.formatted(CL);
        String inTwo = inSeveralClusters(CL);
        String readySomewhere = "group by (system_uuid) (%s and on (%s, node) %s)".formatted(hosts, CL, ready);
        String notReadySomewhere = "group by (system_uuid) (%s unless on (%s, node) %s)".formatted(hosts, CL, ready);
        // NG301's rule: a move is critical only when nothing says these are two machines. Prometheus sees machineIDs
        // only where the watch runs (nodegate_host_info); two different ones under one UUID mean a reinstalled host
        // or cloned VMs, and the move is a warning, as in `nodegate fleet`.
        String machineIdsDiffer = ("count by (system_uuid) (group by (system_uuid, machine_id) "
                + "(nodegate_host_info{%1$s!=\"\", %2$s, machine_id!=\"\"})) >= 2").formatted(CL, REAL_UUID);
        String expr = departure
                ? """
                %1$s
                and on (system_uuid) %2$s
                and on (system_uuid) %3$s
                and on (system_uuid) %4$s
                unless on (system_uuid) %5$s
                """.formatted(hosts, inTwo, readySomewhere, notReadySomewhere, machineIdsDiffer)
                : """
                %1$s
                and on (system_uuid) %2$s
                and on (system_uuid) %3$s
                and on (system_uuid) (
                    %5$s
                  or
                    (group by (system_uuid) (%1$s) unless on (system_uuid) %4$s)
                )
                """.formatted(hosts, inTwo, readySomewhere, notReadySomewhere, machineIdsDiffer);
        String others = otherNodes(("group by (" + CL + ", node) (kube_node_info{system_uuid=%q, " + CL + "!=%q} "
                + "or nodegate_host_info{system_uuid=%q, " + CL + "!=%q})"),
                "$labels.system_uuid $labels." + CL + " $labels.system_uuid $labels." + CL,
                "{{ $s.Labels.node }} in {{ $s.Labels." + CL + " }}");
        String description = "Host {{ $labels.system_uuid }} is node {{ $labels.node }} in cluster {{ $labels."
                + CL + " }} and also " + others + ". "
                + (departure
                ? "It is Ready on one side and not Ready on the other: the host left one cluster for another. The "
                + "not-Ready Node is a stale record, not a powered-off host: do not clean up or delete on the "
                + "strength of it before the host's owner confirms. nodegate fleet (NG301) shows both sides."
                : "Either it is Ready everywhere it appears (cloned VMs with a copied firmware UUID, or one host "
                + "registered in two clusters at once), or it looks like a move but the watch reports different "
                + "machineIDs (a reinstalled host, or cloned VMs). nodegate fleet (NG301) compares machineIDs and "
                + "shows both sides.");
        return new AlertRule("NodegateHostInTwoClusters",
                expr.replace(CL, settings.clusterLabel()), departure ? "5m" : "15m",
                departure ? "critical" : "warning",
                (departure
                        ? "Host {{ $labels.system_uuid }} moved between clusters: node {{ $labels.node }} in {{ "
                        + "$labels." + CL + " }} is one side"
                        : "Host {{ $labels.system_uuid }} is a Node in several clusters, one of them "
                        + "{{ $labels.node }} in {{ $labels." + CL + " }}").replace(CL, settings.clusterLabel()),
                description.replace(CL, settings.clusterLabel()));
    }

    /** One series per (cluster, node, systemUUID) that the watch or kube-state-metrics reports, real UUIDs only. */
    static String hostsByCluster(String clusterLabel) {
        return ("group by (%1$s, node, system_uuid) (nodegate_host_info{%1$s!=\"\", %2$s} "
                + "or kube_node_info{%1$s!=\"\", %2$s})").formatted(clusterLabel, REAL_UUID);
    }

    /** The systemUUIDs that are a Node in two or more clusters (the federation alerts and the dashboard). */
    static String inSeveralClusters(String clusterLabel) {
        return "count by (system_uuid) (group by (system_uuid, %s) (%s)) >= 2"
                .formatted(clusterLabel, hostsByCluster(clusterLabel));
    }

    /**
     * A Go template that lists, comma-separated and sorted, the nodes a PromQL query (printf format with the
     * given arguments) returns; Alertmanager shows the description with them filled in.
     */
    private static String otherNodes(String queryFormat, String args) {
        return otherNodes(queryFormat, args, "{{ $s.Labels.node }}");
    }

    private static String otherNodes(String queryFormat, String args, String item) {
        String query = "group by (node) (" + queryFormat + ")";
        if (queryFormat.startsWith("group by")) {
            query = queryFormat;
        }
        return "{{ range $i, $s := printf `" + query + "` " + args + " | query | sortByLabel \"node\" }}"
                + "{{ if $i }}, {{ end }}" + item + "{{ end }}";
    }

    /** A named group of rules, in evaluation order. */
    public record AlertGroup(String name, List<AlertRule> rules) {
        public AlertGroup {
            rules = List.copyOf(rules);
        }
    }
}
