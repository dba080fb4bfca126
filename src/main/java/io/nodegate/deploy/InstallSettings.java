package io.nodegate.deploy;

import io.nodegate.InputException;
import io.nodegate.model.NewcomerHold;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * What `nodegate install` is parameterised on.
 *
 * @param namespace          where the watch runs (its Lease, ServiceAccount, Service; default nodegate-system)
 * @param image              the image someone built and pushed (required: the manifests never name an image
 *                           nobody built)
 * @param replicas           watch replicas; every replica evaluates and serves metrics, the leader posts Events
 * @param withPolicy         add `nodegate policy`'s admission policy and operator RBAC
 * @param withAlerts         add `nodegate alerts`' PrometheusRule
 * @param withServiceMonitor add a ServiceMonitor so the Prometheus operator scrapes the watch
 * @param rancher            the cluster has Rancher's cattle-system namespace (Roles cannot be created in a
 *                           missing namespace)
 * @param monitoringLabels   extra labels on the ServiceMonitor and PrometheusRule for a Prometheus whose
 *                           selectors want them (kube-prometheus-stack: release=NAME)
 * @param withDashboard      add the Grafana dashboard ConfigMap (docs/dashboard.md)
 * @param withPolicyReports  the watch keeps ClusterPolicyReports current (`watch --policy-reports`), and its
 *                           ClusterRole may write them
 * @param version            nodegate's version, the `app.kubernetes.io/version` label on every object
 * @param dashboardNamespace where the dashboard ConfigMap goes (null: {@code namespace}); Rancher Monitoring's
 *                           Grafana reads dashboards from cattle-dashboards only
 * @param bmc                what the watch mounts to read the hosts' BMCs (`--bmc-*`), or null: no BMC reads
 * @param holdEffect         the effect of the taint the watch holds newcomers with (`watch --hold-effect`):
 *                           NoSchedule, the watch's default, or NoExecute
 */
public record InstallSettings(String namespace, String image, int replicas, boolean withPolicy, boolean withAlerts,
                              boolean withServiceMonitor, boolean rancher, Map<String, String> monitoringLabels,
                              boolean withDashboard, boolean withPolicyReports, String version,
                              String dashboardNamespace, BmcMounts bmc, String holdEffect) {

    public InstallSettings(String namespace, String image, int replicas, boolean withPolicy, boolean withAlerts,
                           boolean withServiceMonitor, boolean rancher, Map<String, String> monitoringLabels,
                           boolean withDashboard, boolean withPolicyReports, String version,
                           String dashboardNamespace, BmcMounts bmc) {
        this(namespace, image, replicas, withPolicy, withAlerts, withServiceMonitor, rancher, monitoringLabels,
                withDashboard, withPolicyReports, version, dashboardNamespace, bmc, NewcomerHold.NO_SCHEDULE);
    }

    public static final String DEFAULT_NAMESPACE = "nodegate-system";
    public static final int DEFAULT_REPLICAS = 2;

    /** A Kubernetes label value (apimachinery validation.IsValidLabelValue), non-empty. */
    private static final Pattern LABEL_VALUE = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    /**
     * An image reference by the grammar container runtimes parse it with (distribution/reference, regexp.go):
     * [domain[:port]/]path[:tag][@digest], path components lower-case alphanumerics joined by '.', '_', '__' or
     * dashes. So "x" and "ab" are both names (docker.io/library/x), "ABC" and "a..b" are not.
     */
    static final Pattern IMAGE;

    static {
        String alphaNumeric = "[a-z0-9]+";
        String separator = "(?:[._]|__|-+)";
        String pathComponent = alphaNumeric + "(?:" + separator + alphaNumeric + ")*";
        String domainComponent = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
        String host = "(?:" + domainComponent + "(?:\\." + domainComponent + ")*|\\[[a-fA-F0-9:]+\\])";
        String domain = host + "(?::[0-9]+)?";
        String name = "(?:" + domain + "/)?" + pathComponent + "(?:/" + pathComponent + ")*";
        String tag = "[\\w][\\w.-]{0,127}";
        String digest = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
        IMAGE = Pattern.compile(name + "(?::" + tag + ")?(?:@" + digest + ")?");
    }

    /** distribution/reference's NameTotalLengthMax: the name (without tag and digest) is at most 255 characters. */
    private static final int IMAGE_NAME_MAX = 255;

    public InstallSettings {
        if (namespace == null || namespace.length() > 63 || !DNS_LABEL.matcher(namespace).matches()) {
            throw new InputException("--namespace '" + namespace + "' is not a namespace name (lower-case letters, "
                    + "digits and '-', at most 63 characters)");
        }
        if (image == null || image.isBlank()) {
            throw new InputException("--image is required: name the image you built and pushed (see README, "
                    + "\"Run it in the cluster\"); nodegate does not guess one");
        }
        if (!IMAGE.matcher(image).matches() || imageName(image).length() > IMAGE_NAME_MAX) {
            throw new InputException("--image '" + image + "' is not an image reference (e.g. "
                    + "registry.example.com/ops/nodegate:0.1.0)");
        }
        if (replicas < 1 || replicas > 10) {
            throw new InputException("--replicas " + replicas + " is out of range (1-10; 2 gives a leader and a "
                    + "stand-by)");
        }
        if (NewcomerHold.effect(holdEffect) == null) {
            throw new InputException("--hold-effect must be NoSchedule or NoExecute, got '" + holdEffect + "'");
        }
        monitoringLabels = Map.copyOf(new TreeMap<>(monitoringLabels == null ? Map.of() : monitoringLabels));
        if (dashboardNamespace != null && (dashboardNamespace.length() > 63
                || !DNS_LABEL.matcher(dashboardNamespace).matches())) {
            throw new InputException("--dashboard-namespace '" + dashboardNamespace + "' is not a namespace name");
        }
        if (version == null || version.length() > 63 || !LABEL_VALUE.matcher(version).matches()) {
            // the build writes it (pom.xml); a version that is no label value is a build error, not user input
            throw new IllegalArgumentException("nodegate version '" + version + "' is not a label value");
        }
    }

    /** The name part of a reference: before its digest, and before a tag (a ':' after the last '/'). */
    private static String imageName(String reference) {
        String name = reference.contains("@") ? reference.substring(0, reference.indexOf('@')) : reference;
        int colon = name.lastIndexOf(':');
        return colon > name.lastIndexOf('/') ? name.substring(0, colon) : name;
    }
}
