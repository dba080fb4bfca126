package io.nodegate.deploy;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HTTPGetActionBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.nodegate.policy.PolicyBundle;
import io.nodegate.policy.PolicySettings;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything `nodegate install` emits, in apply order: the NodeHandover CRD ({@link #crds()}), the watch's Namespace,
 * ServiceAccount and RBAC (built from
 * {@link WatchAccess}), its Service, Deployment and PodDisruptionBudget, and on request a ServiceMonitor, the
 * PrometheusRule, the admission policy and the Grafana dashboard. Choices are explained in
 * docs/in-cluster.md.
 */
public final class InstallBundle {

    public static final String NAME = "nodegate-watch";
    public static final int PORT = 9470;
    public static final String PORT_NAME = "http-metrics";
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY_VALUE = "nodegate";
    /** A fixed non-root uid/gid (the distroless "nonroot" number), so runAsNonRoot can be verified by the kubelet. */
    public static final long UID = 65532;

    /**
     * Requests and limits. The memory limit is what the JVM sizes its heap from ({@link #WATCH_JVM_FLAGS}), so it is
     * the one number to change for a bigger or smaller cluster (docs/in-cluster.md, "Memory"). 512 MiB holds the
     * watch at 20,000 field-sized GPU nodes whose Leases renew every 10 s (bench/watch.sh with these flags,
     * bench/RESULTS.md: steady RSS 277-285 MiB, which the request covers). CPU is limited loosely so
     * start-up (JIT, the first LISTs, the first full mapping) is not throttled into failing its probes.
     */
    public static final String CPU_REQUEST = "150m";
    public static final String CPU_LIMIT = "1";
    public static final String MEMORY_REQUEST = "400Mi";
    public static final String MEMORY_LIMIT = "512Mi";

    /** Where the image keeps the jar (Dockerfile; DockerfileTest keeps the two equal). */
    public static final String IMAGE_JAR = "/opt/nodegate/nodegate.jar";

    /**
     * The watch's JVM flags, written into the Deployment's command (and the image's ENTRYPOINT, for a plain
     * {@code docker run}), chosen for the memory limit above and measured with bench/watch.sh, which runs the same
     * flags under the same limit:
     * <ul>
     *   <li>the serial collector: one GC thread and no concurrent marking, the least CPU and native memory on a pod
     *       limited to one core (the JVM would pick it there by itself; naming it keeps it on a bigger node too);</li>
     *   <li>a heap of 50 % of the container's memory limit: the rest is what the JVM needs beside the heap
     *       (metaspace, code cache, threads, GC structures: ~95 MiB measured) plus headroom, so the pod's RSS stays
     *       well under its limit; and the heap grows with the limit, nothing else to edit;</li>
     *   <li>a young generation of a sixth of the heap ({@code NewRatio=5}, the default is a third): the ~2,000 Lease
     *       renewals a second of 20,000 kubelets are short-lived garbage that a small young generation collects as
     *       cheaply as a big one, and every page of it stays resident once touched;</li>
     *   <li>exit on OutOfMemoryError, so the kubelet restarts the pod instead of a half-alive JVM; no hsperfdata
     *       files on the read-only root filesystem.</li>
     * </ul>
     */
    public static final List<String> WATCH_JVM_FLAGS = List.of("-XX:+UseSerialGC", "-XX:MaxRAMPercentage=50",
            "-XX:NewRatio=5", "-XX:+ExitOnOutOfMemoryError", "-XX:-UsePerfData");

    private InstallBundle() {
    }

    /**
     * What the Deployment, Service and PodDisruptionBudget select on, and the labels every object of the watch
     * carries. Never the version: a selector is immutable on a Deployment, so a version in it would make every
     * upgrade an apply error.
     */
    public static Map<String, String> labels() {
        Map<String, String> labels = new TreeMap<>();
        labels.put("app.kubernetes.io/name", "nodegate");
        labels.put("app.kubernetes.io/component", "watch");
        return labels;
    }

    /** The CustomResourceDefinitions nodegate uses (the NodeHandover of `nodegate handover`), first in apply order. */
    public static List<HasMetadata> crds() {
        return List.of(HandoverCrd.crd());
    }

    public static List<HasMetadata> objects(InstallSettings settings) {
        return objects(settings, true);
    }

    /** @param withCrds false leaves the CRDs out (an uninstall that must keep the hand-over records) */
    public static List<HasMetadata> objects(InstallSettings settings, boolean withCrds) {
        String ns = settings.namespace();
        List<HasMetadata> out = new ArrayList<>(withCrds ? crds() : List.of());
        out.add(new NamespaceBuilder().withNewMetadata().withName(ns).withLabels(namespaceLabels()).endMetadata()
                .build());
        out.add(new ServiceAccountBuilder().withNewMetadata().withName(NAME).withNamespace(ns).withLabels(labels())
                .endMetadata().withAutomountServiceAccountToken(true).build());
        out.addAll(rbac(settings));
        out.add(service(ns));
        out.add(deployment(settings));
        out.add(podDisruptionBudget(ns));
        if (settings.withServiceMonitor()) {
            out.add(serviceMonitor(settings));
        }
        if (settings.withAlerts()) {
            out.add(AlertRules.prometheusRule(new AlertSettings(ns, AlertSettings.DEFAULT_CLUSTER_LABEL,
                    AlertSettings.DEFAULT_RUNBOOK_BASE, true, settings.monitoringLabels())));
        }
        if (settings.withPolicy()) {
            // the tombstones live where the watch reads them (its own namespace, WatchAccess), and that Namespace
            // is emitted once: a second copy without the Pod Security label would drop it on `kubectl apply`
            PolicySettings policy = new PolicySettings(PolicySettings.DEFAULT_OPERATORS_GROUP,
                    PolicySettings.DEFAULT_BREAK_GLASS_GROUP, settings.rancher(), List.of(), false, ns);
            for (HasMetadata object : PolicyBundle.of(policy).objects()) {
                if (!(object instanceof Namespace n && ns.equals(n.getMetadata().getName()))) {
                    out.add(object);
                }
            }
        }
        if (settings.withDashboard()) {
            out.add(Dashboard.configMap(settings.dashboardNamespace() == null ? ns : settings.dashboardNamespace()));
        }
        out.forEach(object -> object.getMetadata().setLabels(withCommonLabels(object.getMetadata().getLabels(),
                settings.version())));
        return out;
    }

    /**
     * Kubernetes' recommended labels that say which release made an object and that nodegate manages it, on every
     * object: `kubectl get ... -l app.kubernetes.io/managed-by=nodegate` finds them all for an upgrade or an
     * uninstall. A new map, so a selector that happened to share the metadata's map is never changed.
     */
    private static Map<String, String> withCommonLabels(Map<String, String> labels, String version) {
        Map<String, String> out = new TreeMap<>(labels == null ? Map.of() : labels);
        out.put("app.kubernetes.io/version", version);
        out.put(MANAGED_BY, MANAGED_BY_VALUE);
        return out;
    }

    /**
     * At most one replica down by choice (a drain, a node upgrade): with two replicas a drain never takes both
     * Lease candidates at once. maxUnavailable rather than minAvailable 1, which would block every drain of the
     * node running a single replica (--replicas 1) for good. AlwaysAllow: a replica that is not ready (an
     * informer stuck on a 403, an unreachable API makes both unready at once) can always be evicted, so a broken
     * watch never stops operators draining nodes, the very work nodegate is for.
     */
    static HasMetadata podDisruptionBudget(String ns) {
        return new PodDisruptionBudgetBuilder()
                .withNewMetadata().withName(NAME).withNamespace(ns).withLabels(labels()).endMetadata()
                .withNewSpec()
                .withMaxUnavailable(new IntOrString(1))
                .withNewSelector().withMatchLabels(labels()).endSelector()
                .withUnhealthyPodEvictionPolicy("AlwaysAllow")
                .endSpec()
                .build();
    }

    private static Map<String, String> namespaceLabels() {
        Map<String, String> labels = labels();
        labels.remove("app.kubernetes.io/component");
        // the watch meets the "restricted" Pod Security Standard; enforcing it keeps it that way
        labels.put("pod-security.kubernetes.io/enforce", "restricted");
        return labels;
    }

    /** ClusterRole + binding for the cluster-wide rows, then a Role + binding per namespace, from WatchAccess. */
    static List<HasMetadata> rbac(InstallSettings settings) {
        List<PolicyRule> clusterRules = new ArrayList<>();
        Map<String, List<PolicyRule>> byNamespace = new LinkedHashMap<>();
        for (WatchAccess.Request r : WatchAccess.requests(settings.namespace(), settings.rancher(),
                settings.withPolicyReports())) {
            PolicyRule rule = r.nonResource()
                    ? new PolicyRuleBuilder().withNonResourceURLs(r.resource()).withVerbs(r.verbs()).build()
                    : new PolicyRuleBuilder().withApiGroups(r.apiGroup()).withResources(r.resource())
                    .withVerbs(r.verbs()).withResourceNames(r.resourceNames().isEmpty() ? null : r.resourceNames())
                    .build();
            if (r.namespace() == null) {
                clusterRules.add(rule);
            } else {
                byNamespace.computeIfAbsent(r.namespace(), k -> new ArrayList<>()).add(rule);
            }
        }
        Subject subject = new SubjectBuilder().withKind("ServiceAccount").withName(NAME)
                .withNamespace(settings.namespace()).build();
        List<HasMetadata> out = new ArrayList<>();
        out.add(new ClusterRoleBuilder().withNewMetadata().withName(NAME).withLabels(labels()).endMetadata()
                .withRules(clusterRules).build());
        out.add(new ClusterRoleBindingBuilder().withNewMetadata().withName(NAME).withLabels(labels()).endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", NAME).withSubjects(subject).build());
        byNamespace.forEach((namespace, rules) -> {
            out.add(new RoleBuilder().withNewMetadata().withName(NAME).withNamespace(namespace).withLabels(labels())
                    .endMetadata().withRules(rules).build());
            out.add(new RoleBindingBuilder().withNewMetadata().withName(NAME).withNamespace(namespace)
                    .withLabels(labels()).endMetadata()
                    .withNewRoleRef("rbac.authorization.k8s.io", "Role", NAME).withSubjects(subject).build());
        });
        return out;
    }

    /**
     * The metrics Service. publishNotReadyAddresses: a replica whose informer is unsynced fails /readyz, and
     * Prometheus must still scrape it, or nodegate_informer_synced=0 never reaches NodegateWatchNotReady (nothing
     * else uses this Service).
     */
    static HasMetadata service(String ns) {
        return new ServiceBuilder().withNewMetadata().withName(NAME).withNamespace(ns).withLabels(labels())
                .endMetadata()
                .withNewSpec().withType("ClusterIP").withSelector(labels()).withPublishNotReadyAddresses(true)
                .addNewPort().withName(PORT_NAME).withPort(PORT).withTargetPort(new IntOrString(PORT_NAME))
                .withProtocol("TCP").endPort()
                .endSpec().build();
    }

    /** java, the watch's JVM flags, -jar and the image's jar: the Deployment's command, before the args. */
    public static List<String> watchCommand() {
        List<String> command = new ArrayList<>();
        command.add("java");
        command.addAll(WATCH_JVM_FLAGS);
        command.add("-jar");
        command.add(IMAGE_JAR);
        return List.copyOf(command);
    }

    static HasMetadata deployment(InstallSettings settings) {
        // the watch listens on 127.0.0.1 unless told: in the Pod it must answer the kubelet's probes and the Service
        // on the Pod's address; the Service is the only way in
        List<String> args = new ArrayList<>(List.of("watch", "--namespace", settings.namespace(),
                "--listen", ":" + PORT));
        if (settings.withPolicyReports()) {
            args.add("--policy-reports");
        }
        if (!io.nodegate.model.NewcomerHold.NO_SCHEDULE.equals(settings.holdEffect())) {
            // the watch's default is NoSchedule: only another effect is written, so the default manifests stay as
            // they were
            args.addAll(List.of("--hold-effect", settings.holdEffect()));
        }
        BmcMounts bmc = settings.bmc();
        if (bmc != null) {
            args.addAll(bmc.watchArgs());
        }
        ContainerBuilder container = new ContainerBuilder()
                .withName("watch")
                .withImage(settings.image())
                .withImagePullPolicy("IfNotPresent")
                .withCommand(watchCommand())
                .withArgs(args)
                .addNewEnv().withName("POD_NAME").withNewValueFrom().withNewFieldRef().withFieldPath("metadata.name")
                .endFieldRef().endValueFrom().endEnv()
                .addNewEnv().withName("POD_NAMESPACE").withNewValueFrom().withNewFieldRef()
                .withFieldPath("metadata.namespace").endFieldRef().endValueFrom().endEnv()
                .addNewPort().withName(PORT_NAME).withContainerPort(PORT).withProtocol("TCP").endPort()
                // start-up: JVM plus connecting; up to 2 minutes before liveness takes over
                .withStartupProbe(probe("/healthz", 2, 60))
                .withLivenessProbe(probe("/healthz", 20, 3))
                // /readyz fails while a required informer is unsynced or the last pass is old
                .withReadinessProbe(probe("/readyz", 10, 3))
                .withNewResources()
                .addToRequests("cpu", new Quantity(CPU_REQUEST)).addToRequests("memory", new Quantity(MEMORY_REQUEST))
                .addToLimits("cpu", new Quantity(CPU_LIMIT)).addToLimits("memory", new Quantity(MEMORY_LIMIT))
                .endResources()
                .withNewSecurityContext()
                .withRunAsNonRoot(true).withRunAsUser(UID).withRunAsGroup(UID)
                .withAllowPrivilegeEscalation(false).withReadOnlyRootFilesystem(true)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .endSecurityContext()
                .addNewVolumeMount().withName("tmp").withMountPath("/tmp").endVolumeMount();
        List<Volume> volumes = new ArrayList<>(List.of(new VolumeBuilder().withName("tmp").withNewEmptyDir()
                .withSizeLimit(new Quantity("64Mi")).endEmptyDir().build()));
        if (bmc != null) {
            // read-only files; the Secret's mode 0400 for the watch's user alone (fsGroup makes it readable to it)
            container.addNewVolumeMount().withName("bmc-inventory").withMountPath(BmcMounts.INVENTORY_DIR)
                    .withReadOnly(true).endVolumeMount()
                    .addNewVolumeMount().withName("bmc-credentials").withMountPath(BmcMounts.CREDENTIALS_DIR)
                    .withReadOnly(true).endVolumeMount();
            volumes.add(new VolumeBuilder().withName("bmc-inventory").withNewConfigMap()
                    .withName(bmc.inventoryConfigMap()).endConfigMap().build());
            volumes.add(new VolumeBuilder().withName("bmc-credentials").withNewSecret()
                    .withSecretName(bmc.credentialsSecret()).withDefaultMode(0440).endSecret().build());
            if (bmc.caConfigMap() != null) {
                container.addNewVolumeMount().withName("bmc-ca").withMountPath(BmcMounts.CA_DIR).withReadOnly(true)
                        .endVolumeMount();
                volumes.add(new VolumeBuilder().withName("bmc-ca").withNewConfigMap()
                        .withName(bmc.caConfigMap()).endConfigMap().build());
            }
        }
        return new DeploymentBuilder()
                .withNewMetadata().withName(NAME).withNamespace(settings.namespace()).withLabels(labels())
                .endMetadata()
                .withNewSpec()
                .withReplicas(settings.replicas())
                .withNewSelector().withMatchLabels(labels()).endSelector()
                .withNewTemplate()
                .withNewMetadata().withLabels(labels()).endMetadata()
                .withNewSpec()
                .withServiceAccountName(NAME)
                .withAutomountServiceAccountToken(true)
                .withNewSecurityContext()
                .withRunAsNonRoot(true).withRunAsUser(UID).withRunAsGroup(UID).withFsGroup(UID)
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .endSecurityContext()
                // replicas on different hosts: a stand-by on the same host dies with the leader
                .withNewAffinity().withNewPodAntiAffinity().addNewPreferredDuringSchedulingIgnoredDuringExecution()
                .withWeight(100).withNewPodAffinityTerm().withTopologyKey("kubernetes.io/hostname")
                .withNewLabelSelector().withMatchLabels(labels()).endLabelSelector().endPodAffinityTerm()
                .endPreferredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().endAffinity()
                .withContainers(container.build())
                .withVolumes(volumes)
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    private static Probe probe(String path, int periodSeconds, int failureThreshold) {
        return new ProbeBuilder()
                .withHttpGet(new HTTPGetActionBuilder().withPath(path).withPort(new IntOrString(PORT_NAME)).build())
                .withPeriodSeconds(periodSeconds).withTimeoutSeconds(2).withFailureThreshold(failureThreshold)
                .build();
    }

    static GenericKubernetesResource serviceMonitor(InstallSettings settings) {
        Map<String, String> objectLabels = new TreeMap<>(settings.monitoringLabels());
        objectLabels.putAll(labels());
        Map<String, Object> endpoint = new LinkedHashMap<>();
        endpoint.put("port", PORT_NAME);
        endpoint.put("path", "/metrics");
        endpoint.put("interval", "30s");
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("selector", Map.of("matchLabels", labels()));
        spec.put("endpoints", List.of(endpoint));
        return new GenericKubernetesResourceBuilder()
                .withApiVersion("monitoring.coreos.com/v1").withKind("ServiceMonitor")
                .withNewMetadata().withName(NAME).withNamespace(settings.namespace()).withLabels(objectLabels)
                .endMetadata()
                .addToAdditionalProperties("spec", spec)
                .build();
    }
}
