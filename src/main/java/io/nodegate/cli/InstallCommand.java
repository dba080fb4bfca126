package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.deploy.BmcMounts;
import io.nodegate.deploy.InstallBundle;
import io.nodegate.deploy.InstallSettings;
import io.nodegate.deploy.ManifestOutput;
import io.nodegate.deploy.WatchAccess;
import io.nodegate.InputException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** Emits the manifests that run `nodegate watch` in the cluster. Prints only; kubectl applies. */
@Command(name = "install",
        header = "Emit the manifests that run `nodegate watch` inside the cluster.",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
                "Print (never apply) everything `nodegate watch` needs in the cluster:",
                "  Namespace, ServiceAccount, a ClusterRole and Roles with exactly the requests the",
                "  watch makes (list/watch on what audit reads, create/patch on Events in default,",
                "  get/create/patch on its own Lease, get/list NodeHandovers and update their status),",
                "  their bindings, a Service for /metrics and a",
                "  Deployment (non-root, read-only root filesystem, probes on /healthz and /readyz).",
                "Optionally a ServiceMonitor, the PrometheusRule of `nodegate alerts`, the",
                "admission policy of `nodegate policy` (with its defaults), a Grafana dashboard and",
                "the RBAC for the watch's ClusterPolicyReports.",
                "deploy/kustomize holds the same objects as a kustomize base (README, \"Run it in the cluster\").",
                "--image is required: build and push the image first (README, \"Run it in the cluster\").",
                "The NodeHandover CRD (`nodegate handover`) comes first; --crds-only prints it alone,",
                "--without-crds leaves it out (deleting the CRD deletes every hand-over record)."},
        footer = {"",
                "Examples:",
                "  nodegate install --image registry.example.com/ops/nodegate:0.1.0 | kubectl apply -f -",
                "  nodegate install --image registry.example.com/ops/nodegate:0.1.0 \\",
                "      --with-servicemonitor --with-alerts | kubectl apply -f -",
                "  nodegate install --image REG/nodegate:0.1.0 --no-rancher --replicas 1 -o json",
                "  nodegate install --image REG/nodegate:0.1.0 --with-servicemonitor \\",
                "      --monitoring-label release=kube-prometheus-stack",
                "  nodegate install --image REG/nodegate:0.1.0 --with-dashboard --with-policy-reports",
                "  nodegate install --image REG/nodegate:0.1.0 --bmc-inventory-configmap nodegate-bmcs \\",
                "      --bmc-credentials-secret nodegate-bmc-reader",
                "  nodegate install --crds-only | kubectl apply -f -",
                "  # uninstall: the same flags, piped to delete; --without-crds keeps the hand-over records",
                "  nodegate install --image REG/nodegate:0.1.0 --without-crds | kubectl delete -f -"})
public final class InstallCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--image", paramLabel = "IMAGE",
            description = "The nodegate image you built and pushed (e.g. registry.example.com/ops/nodegate:0.1.0).")
    String image;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NS", defaultValue = InstallSettings.DEFAULT_NAMESPACE,
            description = "Namespace of the watch, its Lease and Service (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(names = "--replicas", paramLabel = "N", defaultValue = "2",
            description = "Replicas; all evaluate and serve metrics, the leader posts Events (default: ${DEFAULT-VALUE}).")
    int replicas;

    @Option(names = "--with-servicemonitor",
            description = "Add a ServiceMonitor (monitoring.coreos.com/v1) so the Prometheus operator scrapes the watch.")
    boolean withServiceMonitor;

    @Option(names = "--with-alerts", description = "Add the PrometheusRule of `nodegate alerts`.")
    boolean withAlerts;

    @Option(names = "--with-policy",
            description = "Add the admission policy and operator RBAC of `nodegate policy` (its defaults; run "
                    + "`nodegate policy` yourself for other groups).")
    boolean withPolicy;

    @Option(names = "--with-dashboard",
            description = "Add a ConfigMap labelled grafana_dashboard=1 holding the nodegate Grafana dashboard, for "
                    + "Grafana's dashboard sidecar (docs/dashboard.md).")
    boolean withDashboard;

    @Option(names = "--dashboard-namespace", paramLabel = "NS",
            description = "Namespace of the dashboard ConfigMap (default: --namespace). Rancher Monitoring's Grafana "
                    + "reads dashboards from cattle-dashboards only.")
    String dashboardNamespace;

    @Option(names = "--with-policy-reports",
            description = "Run the watch with --policy-reports (it keeps wgpolicyk8s.io/v1alpha2 ClusterPolicyReports "
                    + "of its findings current) and let its ClusterRole write them. Needs the PolicyReport CRD "
                    + "(Kyverno, Policy Reporter).")
    boolean withPolicyReports;

    @Option(names = "--no-rancher",
            description = "Leave out what needs Rancher's cattle-system namespace (the Role for its Jobs).")
    boolean noRancher;

    @Option(names = "--monitoring-label", paramLabel = "KEY=VALUE",
            description = "A label on the ServiceMonitor and PrometheusRule, for a Prometheus whose selectors want "
                    + "one (kube-prometheus-stack: release=RELEASE). Repeatable.")
    Map<String, String> monitoringLabels = new LinkedHashMap<>();

    @Option(names = "--bmc-inventory-configmap", paramLabel = "NAME",
            description = "The watch reads the hosts' BMCs over Redfish (docs/bmc.md): a ConfigMap in --namespace whose "
                    + "key inventory.yaml is the --bmc-inventory file, mounted read-only. Needs "
                    + "--bmc-credentials-secret.")
    String bmcInventoryConfigMap;

    @Option(names = "--bmc-credentials-secret", paramLabel = "NAME",
            description = "A kubernetes.io/basic-auth Secret in --namespace with the BMC user, mounted as files (never "
                    + "an argument or environment variable).")
    String bmcCredentialsSecret;

    @Option(names = "--bmc-ca-configmap", paramLabel = "NAME",
            description = "A ConfigMap in --namespace whose key ca.crt is the BMCs' CA bundle (default: the JDK's "
                    + "trust store).")
    String bmcCaConfigMap;

    @Option(names = "--hold-effect", paramLabel = "EFFECT", defaultValue = "NoSchedule",
            description = "The effect of the taint the watch holds newcomers with (`watch --hold-effect`): NoSchedule "
                    + "(default) or NoExecute, for hosts that must not run anything (docs/inventory.md).")
    String holdEffect;

    /** yaml by default, for `kubectl apply -f -`. */
    @picocli.CommandLine.Mixin
    OutputOptions output = OutputOptions.of(ManifestOutput.class, "yaml");

    @Option(names = "--crds-only",
            description = "Print only the CustomResourceDefinitions (NodeHandover), for `nodegate handover` without the"
                    + " watch; takes no other option but -o.")
    boolean crdsOnly;

    @Option(names = "--without-crds",
            description = "Leave the CustomResourceDefinitions out: an uninstall piped to `kubectl delete` then keeps "
                    + "the NodeHandover records (deleting a CRD deletes all its objects).")
    boolean withoutCrds;

    @Override
    public Integer call() {
        if (crdsOnly) {
            if (image != null || withoutCrds || withPolicy || withAlerts || withServiceMonitor || noRancher
                    || withDashboard || withPolicyReports || dashboardNamespace != null || !monitoringLabels.isEmpty()
                    || bmcInventoryConfigMap != null || bmcCredentialsSecret != null || bmcCaConfigMap != null
                    || spec.commandLine().getParseResult().hasMatchedOption("--hold-effect")
                    || replicas != InstallSettings.DEFAULT_REPLICAS
                    || !InstallSettings.DEFAULT_NAMESPACE.equals(namespace)) {
                throw new InputException("--crds-only prints the CRDs alone: drop the watch's options "
                        + "(--image, --namespace, --replicas, --with-*, --without-crds, --no-rancher, "
                        + "--monitoring-label, --dashboard-namespace, --bmc-*, --hold-effect)");
            }
            output.print(spec.commandLine().getOut(), ManifestOutput.of(InstallBundle.crds()));
            return ExitCode.OK;
        }
        InstallSettings settings = new InstallSettings(namespace, image, replicas, withPolicy, withAlerts,
                withServiceMonitor, !noRancher, monitoringLabels, withDashboard, withPolicyReports,
                VersionProvider.version(), dashboardNamespace,
                BmcMounts.of(bmcInventoryConfigMap, bmcCredentialsSecret, bmcCaConfigMap), holdEffect);
        var objects = InstallBundle.objects(settings, !withoutCrds);
        output.print(spec.commandLine().getOut(), ManifestOutput.of(objects));
        List<String> rancherOnly = objects.stream()
                .filter(o -> WatchAccess.CATTLE_SYSTEM.equals(o.getMetadata().getNamespace()))
                .map(o -> o.getKind() + " " + o.getMetadata().getName()).toList();
        if (!rancherOnly.isEmpty()) {
            // install prints without asking the cluster (its output must not depend on the kubeconfig at hand), so
            // it cannot know whether Rancher is there: it says what needs Rancher and what to do without it.
            spec.commandLine().getErr().println("nodegate: note: " + String.join(" and ", rancherOnly)
                    + " go into Rancher's namespace cattle-system; on a cluster without Rancher add --no-rancher "
                    + "(kubectl apply would refuse them with namespaces \"cattle-system\" not found; the watch "
                    + "needs them only where Rancher runs). docs/watch-access.md");
        }
        return ExitCode.OK;
    }
}
