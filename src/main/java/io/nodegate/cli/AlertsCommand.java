package io.nodegate.cli;

import io.nodegate.NodegateException;
import io.nodegate.ExitCode;
import io.nodegate.deploy.AlertRules;
import io.nodegate.deploy.AlertSettings;
import io.nodegate.deploy.AlertRulesOutput;
import io.nodegate.deploy.ManifestOutput;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** Emits nodegate's Prometheus alert rules: a PrometheusRule for the Prometheus operator, or a plain rule file. */
@Command(name = "alerts",
        header = "Emit the Prometheus alert rules (PrometheusRule) for node/host disagreements.",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
                "Print a PrometheusRule (monitoring.coreos.com/v1) with three groups:",
                "  nodegate.kube-state-metrics  needs only kube-state-metrics (Rancher Monitoring ships it):",
                "      NodegateAbandonedNode, NodegateBareNewcomer, NodegateSameHostTwoNames,",
                "      NodegateDuplicateInternalIP, NodegateBatchSilence",
                "  nodegate.watch               on the metrics of `nodegate watch`:",
                "      NodegateCriticalFinding, NodegateWarningFinding, NodegateWatchNotReady,",
                "      NodegateWatchAbsent (leave out with --without-watch)",
                "  nodegate.federation          for a Prometheus that sees several clusters by a",
                "      cluster label (Thanos, federation): NodegateHostInTwoClusters",
                "Every alert has a summary, a description naming the nodes and a runbook_url into",
                "docs/alerts.md. Nothing is applied; pipe the output to kubectl.",
                "The PrometheusRule goes into --namespace, which must exist: the default,",
                "nodegate-system, is created by `nodegate install`; without the watch, name a",
                "namespace you have (e.g. cattle-monitoring-system). No Namespace is printed, so",
                "`kubectl delete -f -` of the same output never removes a namespace."},
        footer = {"",
                "Examples:",
                "  nodegate alerts | kubectl apply -f -",
                "  nodegate alerts --namespace cattle-monitoring-system --without-watch | kubectl apply -f -",
                "  nodegate alerts --rule-label release=kube-prometheus-stack | kubectl apply -f -",
                "  nodegate alerts -o rule-file > nodegate.rules.yml && promtool check rules nodegate.rules.yml",
                "  nodegate alerts --runbook-base https://git.example.com/ops/nodegate/-/blob/main/docs/alerts.md"})
public final class AlertsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** yaml or json: the PrometheusRule; rule-file: Prometheus' own rule file (`groups:`), for promtool. */
    @picocli.CommandLine.Mixin
    OutputOptions output = OutputOptions.of(AlertRulesOutput.class, "yaml");

    @Option(names = {"-n", "--namespace"}, paramLabel = "NS", defaultValue = AlertSettings.DEFAULT_NAMESPACE,
            description = "Namespace of the PrometheusRule (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(names = "--without-watch",
            description = "Leave out the nodegate.watch group, for clusters that do not run `nodegate watch` "
                    + "(its NodegateWatchAbsent would fire for ever).")
    boolean withoutWatch;

    @Option(names = "--cluster-label", paramLabel = "LABEL", defaultValue = AlertSettings.DEFAULT_CLUSTER_LABEL,
            description = "The label that tells clusters apart in a multi-cluster Prometheus "
                    + "(default: ${DEFAULT-VALUE}).")
    String clusterLabel;

    @Option(names = "--runbook-base", paramLabel = "URL", defaultValue = AlertSettings.DEFAULT_RUNBOOK_BASE,
            description = "Where your team reads docs/alerts.md; runbook_url is this plus #alertname "
                    + "(default: ${DEFAULT-VALUE}).")
    String runbookBase;

    @Option(names = "--rule-label", paramLabel = "KEY=VALUE",
            description = "A label on the PrometheusRule object, for a Prometheus whose ruleSelector needs one "
                    + "(kube-prometheus-stack: release=RELEASE). Repeatable.")
    Map<String, String> ruleLabels = new LinkedHashMap<>();

    @Override
    public Integer call() {
        AlertSettings settings = settings(namespace, clusterLabel, runbookBase, !withoutWatch, ruleLabels);
        output.print(spec.commandLine().getOut(), new AlertRulesOutput(
                ManifestOutput.of(List.of(AlertRules.prometheusRule(settings))), AlertRules.ruleFile(settings)));
        return ExitCode.OK;
    }

    static AlertSettings settings(String namespace, String clusterLabel, String runbookBase, boolean includeWatch,
                                  Map<String, String> ruleLabels) {
        try {
            return new AlertSettings(namespace, clusterLabel, runbookBase, includeWatch, ruleLabels);
        } catch (IllegalArgumentException e) {
            throw new NodegateException(ExitCode.USAGE, e.getMessage());
        }
    }
}
