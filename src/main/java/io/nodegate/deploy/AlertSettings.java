package io.nodegate.deploy;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * What `nodegate alerts` (and `nodegate install --with-alerts`) may vary in the PrometheusRule.
 *
 * @param namespace     namespace of the PrometheusRule object
 * @param clusterLabel  the label that tells clusters apart in a Prometheus that sees several (Thanos, federation,
 *                      Rancher multi-cluster monitoring); the federation group and NodegateWatchAbsent group by it
 * @param runbookBase   where docs/alerts.md is readable; each alert's runbook_url is this plus "#alertname"
 * @param includeWatch  emit the nodegate.watch group (leave it out where the watch is not deployed, or
 *                      NodegateWatchAbsent fires for ever)
 * @param objectLabels  extra labels on the PrometheusRule object, for a Prometheus whose ruleSelector wants one
 *                      (kube-prometheus-stack: release=NAME); Rancher Monitoring selects every rule
 */
public record AlertSettings(String namespace, String clusterLabel, String runbookBase, boolean includeWatch,
                            Map<String, String> objectLabels) {

    public static final String DEFAULT_NAMESPACE = "nodegate-system";
    public static final String DEFAULT_CLUSTER_LABEL = "cluster";
    /** Relative on purpose: the repository has no public home; `--runbook-base` points at the team's copy. */
    public static final String DEFAULT_RUNBOOK_BASE = "docs/alerts.md";

    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    public AlertSettings {
        Objects.requireNonNull(namespace, "namespace");
        if (clusterLabel == null || !LABEL_NAME.matcher(clusterLabel).matches()) {
            throw new IllegalArgumentException("--cluster-label: '" + clusterLabel
                    + "' is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)");
        }
        if (runbookBase == null || runbookBase.isBlank() || runbookBase.contains("#")) {
            throw new IllegalArgumentException("--runbook-base: '" + runbookBase
                    + "' must be the address of docs/alerts.md without an #anchor");
        }
        objectLabels = Map.copyOf(new TreeMap<>(objectLabels == null ? Map.of() : objectLabels));
    }

    public static AlertSettings defaults() {
        return new AlertSettings(DEFAULT_NAMESPACE, DEFAULT_CLUSTER_LABEL, DEFAULT_RUNBOOK_BASE, true, Map.of());
    }

    public AlertSettings inNamespace(String ns) {
        return new AlertSettings(ns, clusterLabel, runbookBase, includeWatch, objectLabels);
    }
}
