package io.nodegate.deploy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.source.kube.Kinds;
import io.nodegate.source.kube.ReadKind;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.fabric8.kubernetes.api.model.Volume;
import org.junit.jupiter.api.io.TempDir;
import java.nio.file.Files;
import java.nio.file.Path;
import static io.nodegate.testing.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

/** `nodegate install`: the manifests parse, the RBAC grants exactly the watch's requests, the pod is locked down. */
class InstallCommandTest {

    private static final String IMAGE = "registry.example.com/ops/nodegate:0.1.0";
    private static final String NS = "nodegate-system";

    private static List<HasMetadata> install(String... extra) {
        String[] args = new String[extra.length + 3];
        args[0] = "install";
        args[1] = "--image";
        args[2] = IMAGE;
        System.arraycopy(extra, 0, args, 3, extra.length);
        CliRun run = run(args);
        assertThat(run.exitCode()).as(run.err()).isZero();
        return AlertRulesPromtoolTest.parse(run.out());
    }

    /** install prints without asking a cluster, so it names what needs Rancher's namespace and the way around it. */
    @Test
    void saysOnStderrWhichObjectsNeedRancherAndNothingWithNoRancher() {
        CliRun rancher = run("install", "--image", IMAGE);
        assertThat(rancher.exitCode()).as(rancher.err()).isZero();
        assertThat(rancher.err()).contains("Role nodegate-watch and RoleBinding nodegate-watch go into Rancher's "
                + "namespace cattle-system").contains("add --no-rancher");
        CliRun withPolicy = run("install", "--image", IMAGE, "--with-policy");
        assertThat(withPolicy.err()).contains("Role nodegate-operator").contains("add --no-rancher");
        CliRun noRancher = run("install", "--image", IMAGE, "--no-rancher", "--with-policy");
        assertThat(noRancher.exitCode()).as(noRancher.err()).isZero();
        assertThat(noRancher.err()).isEmpty();
        assertThat(noRancher.out()).doesNotContain("namespace: \"cattle-system\"");
        assertThat(run("install", "--crds-only").err()).isEmpty();
    }

    @Test
    void emitsTypedObjectsInApplyOrder() {
        List<HasMetadata> objects = install();
        assertThat(objects).extracting(o -> o.getKind() + "/" + o.getMetadata().getName()
                        + (o.getMetadata().getNamespace() == null ? "" : "@" + o.getMetadata().getNamespace()))
                .containsExactly(
                        "CustomResourceDefinition/nodehandovers.nodegate.io",
                        "Namespace/nodegate-system",
                        "ServiceAccount/nodegate-watch@nodegate-system",
                        "ClusterRole/nodegate-watch", "ClusterRoleBinding/nodegate-watch",
                        "Role/nodegate-watch@kube-node-lease", "RoleBinding/nodegate-watch@kube-node-lease",
                        "Role/nodegate-watch@kube-system", "RoleBinding/nodegate-watch@kube-system",
                        "Role/nodegate-watch@default", "RoleBinding/nodegate-watch@default",
                        "Role/nodegate-watch@cattle-system", "RoleBinding/nodegate-watch@cattle-system",
                        "Role/nodegate-watch@nodegate-system", "RoleBinding/nodegate-watch@nodegate-system",
                        "Service/nodegate-watch@nodegate-system",
                        "Deployment/nodegate-watch@nodegate-system",
                        "PodDisruptionBudget/nodegate-watch@nodegate-system");
        assertThat(objects.get(1)).isInstanceOf(Namespace.class);
        assertThat(objects.get(1).getMetadata().getLabels())
                .containsEntry("pod-security.kubernetes.io/enforce", "restricted");
        assertThat(((ServiceAccount) objects.get(2)).getAutomountServiceAccountToken()).isTrue();

        CliRun json = run("install", "--image", IMAGE, "-o", "json");
        KubernetesList list = new KubernetesSerialization().unmarshal(json.out(), KubernetesList.class);
        assertThat(list.getItems()).extracting(HasMetadata::getKind)
                .containsExactlyElementsOf(objects.stream().map(HasMetadata::getKind).toList());
    }

    @Test
    void rbacAllowsEveryRequestOfTheWatch() {
        Rbac rbac = new Rbac(install(), NS, InstallBundle.NAME);
        for (WatchAccess.Request r : WatchAccess.requests(NS, true)) {
            for (String verb : r.verbs()) {
                if (r.nonResource()) {
                    assertThat(rbac.allowsUrl(verb, r.resource())).as(verb + " " + r.resource()).isTrue();
                    continue;
                }
                List<String> names = r.resourceNames().isEmpty() ? java.util.Collections.singletonList(null)
                        : r.resourceNames();
                for (String name : names) {
                    assertThat(rbac.allows(verb, r.apiGroup(), r.resource(), r.namespace(), name))
                            .as("%s %s/%s in %s named %s (%s)", verb, r.apiGroup(), r.resource(), r.namespace(),
                                    name, r.why())
                            .isTrue();
                }
            }
        }
        // the watch's namespaced reads also work through the namespaces it was granted, nothing more
        assertThat(rbac.allows("list", "", "nodes", null, null)).isTrue();
        assertThat(rbac.allows("watch", "apps", "daemonsets", "some-team", null)).isTrue();
    }

    /**
     * The watch's informers read exactly what `audit` reads, the rows of source.Kinds: a kind added there without
     * its RBAC here fails this test (in the cluster it would be a 403 and an informer that never syncs).
     */
    @Test
    void rbacCoversEveryKindAuditReads() {
        Rbac rbac = new Rbac(install(), NS, InstallBundle.NAME);
        for (ReadKind<?, ?> kind : Kinds.audited()) {
            String group = HasMetadata.getGroup(kind.type());
            String resource = HasMetadata.getPlural(kind.type());
            String namespace = kind.allNamespaces() ? null : kind.namespace();
            for (String verb : List.of("list", "watch")) {
                assertThat(rbac.allows(verb, group == null ? "" : group, resource, namespace, null))
                        .as("%s %s/%s in %s (kind %s)", verb, group, resource, namespace, kind.id())
                        .isTrue();
            }
            if (kind.presence() == ReadKind.Presence.OPTIONAL_NAMESPACE) {
                // the watch GETs the namespace first: NotFound means "absent", not "0 found"
                assertThat(rbac.allows("get", "", "namespaces", null, kind.namespace()))
                        .as("get namespace %s (kind %s)", kind.namespace(), kind.id()).isTrue();
            }
        }
    }

    @Test
    void rbacGrantsNothingBeyondTheWatchsRequests() {
        Rbac rbac = new Rbac(install(), NS, InstallBundle.NAME);
        // writes the watch never makes
        assertThat(rbac.allows("delete", "", "nodes", null, "gpu-a07")).isFalse();
        // patch, to hold a newcomer (one JSON patch adding the nodegate.io/unaccepted taint); never update or delete
        assertThat(rbac.allows("patch", "", "nodes", null, "gpu-a07")).isTrue();
        assertThat(rbac.allows("update", "", "nodes", null, "gpu-a07")).isFalse();
        assertThat(rbac.allows("delete", "", "secrets", "kube-system", "w7.node-password.rke2")).isFalse();
        assertThat(rbac.allows("delete", "batch", "jobs", "cattle-system", "apply-x")).isFalse();
        assertThat(rbac.allows("create", "", "events", "kube-system", null)).isFalse();
        // its Lease lock only: not kubelet Leases, not another Lease in its own namespace
        assertThat(rbac.allows("patch", "coordination.k8s.io", "leases", NS, "nodegate-watch")).isTrue();
        assertThat(rbac.allows("patch", "coordination.k8s.io", "leases", NS, "someone-else")).isFalse();
        assertThat(rbac.allows("patch", "coordination.k8s.io", "leases", "kube-node-lease", "gpu-a07")).isFalse();
        assertThat(rbac.allows("create", "coordination.k8s.io", "leases", "kube-system", null)).isFalse();
        // reads outside what audit reads
        assertThat(rbac.allows("get", "", "secrets", "kube-system", "rke2-serving")).isFalse();
        assertThat(rbac.allows("list", "", "secrets", "default", null)).isFalse();
        assertThat(rbac.allows("list", "", "secrets", null, null)).isFalse();
        assertThat(rbac.allows("list", "", "configmaps", "kube-system", null)).isFalse();
        assertThat(rbac.allows("list", "", "pods", null, null)).isFalse();
        assertThat(rbac.allows("list", "batch", "jobs", "default", null)).isFalse();
        assertThat(rbac.allows("get", "", "namespaces", null, "kube-system")).isFalse();
        assertThat(rbac.allows("list", "", "namespaces", null, null)).isFalse();
        assertThat(rbac.allowsUrl("get", "/metrics")).isFalse();
        // and no wildcards anywhere
        assertThat(rbac.rules()).allSatisfy(rule -> {
            assertThat(rule.getVerbs()).doesNotContain("*");
            assertThat(Objects.requireNonNullElse(rule.getResources(), List.<String>of())).doesNotContain("*");
            assertThat(Objects.requireNonNullElse(rule.getApiGroups(), List.<String>of())).doesNotContain("*");
        });
        // every rule is there for a row of WatchAccess: as many verbs granted as the rows name
        long grantedVerbs = rbac.rules().stream().mapToLong(r -> r.getVerbs().size()).sum();
        long requestedVerbs = WatchAccess.requests(NS, true).stream().mapToLong(r -> r.verbs().size()).sum();
        assertThat(grantedVerbs).isEqualTo(requestedVerbs);
    }

    @Test
    void withoutRancherThereIsNoCattleSystemRole() {
        List<HasMetadata> objects = install("--no-rancher");
        assertThat(objects).noneMatch(o -> "cattle-system".equals(o.getMetadata().getNamespace()));
        Rbac rbac = new Rbac(objects, NS, InstallBundle.NAME);
        assertThat(rbac.allows("list", "batch", "jobs", "cattle-system", null)).isFalse();
        assertThat(rbac.allows("list", "", "nodes", null, null)).isTrue();
    }

    @Test
    void deploymentIsNonRootReadOnlyWithProbesResourcesAndTheServiceAccount() {
        List<HasMetadata> objects = install("--replicas", "3", "--namespace", "ops-nodegate");
        Deployment deployment = only(objects, Deployment.class);
        Service service = only(objects, Service.class);
        assertThat(deployment.getMetadata().getNamespace()).isEqualTo("ops-nodegate");
        assertThat(deployment.getSpec().getReplicas()).isEqualTo(3);
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();
        assertThat(deployment.getSpec().getSelector().getMatchLabels())
                .isEqualTo(deployment.getSpec().getTemplate().getMetadata().getLabels())
                .isEqualTo(service.getSpec().getSelector());
        assertThat(pod.getServiceAccountName()).isEqualTo(only(objects, ServiceAccount.class).getMetadata().getName());
        assertThat(pod.getAutomountServiceAccountToken()).isTrue();
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");

        Container c = pod.getContainers().get(0);
        assertThat(pod.getContainers()).hasSize(1);
        assertThat(c.getImage()).isEqualTo(IMAGE);
        assertThat(c.getArgs()).as("the address set explicitly: the watch's default is loopback only")
                .containsExactly("watch", "--namespace", "ops-nodegate", "--listen", ":9470");
        // Pod Security "restricted": what the namespace label enforces
        assertThat(c.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(c.getSecurityContext().getRunAsUser()).isPositive();
        assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(c.getSecurityContext().getCapabilities().getAdd()).isNullOrEmpty();
        assertThat(c.getSecurityContext().getPrivileged()).isNotEqualTo(Boolean.TRUE);
        // the only writable place is an emptyDir on /tmp
        assertThat(c.getVolumeMounts()).singleElement().satisfies(m -> assertThat(m.getMountPath()).isEqualTo("/tmp"));
        assertThat(pod.getVolumes()).singleElement().satisfies(v -> assertThat(v.getEmptyDir()).isNotNull());

        // probes hit the container's metrics port, which the Service targets
        String portName = c.getPorts().get(0).getName();
        assertThat(c.getPorts().get(0).getContainerPort()).isEqualTo(9470);
        assertThat(path(c.getLivenessProbe())).isEqualTo("/healthz");
        assertThat(path(c.getStartupProbe())).isEqualTo("/healthz");
        assertThat(path(c.getReadinessProbe())).isEqualTo("/readyz");
        for (Probe p : List.of(c.getLivenessProbe(), c.getReadinessProbe(), c.getStartupProbe())) {
            assertThat(p.getHttpGet().getPort().getStrVal()).isEqualTo(portName);
        }
        assertThat(service.getSpec().getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getTargetPort().getStrVal()).isEqualTo(portName);
            assertThat(p.getPort()).isEqualTo(9470);
        });
        // an unready replica must still be scraped, or NodegateWatchNotReady could never see synced=0
        assertThat(service.getSpec().getPublishNotReadyAddresses()).isTrue();

        assertThat(c.getResources().getRequests()).containsKeys("cpu", "memory");
        assertThat(c.getResources().getLimits()).containsKeys("cpu", "memory");
        assertThat(c.getResources().getLimits().get("memory").getNumericalAmount())
                .isGreaterThan(c.getResources().getRequests().get("memory").getNumericalAmount());
    }

    @Test
    void optionalServiceMonitorAlertsAndPolicy() {
        List<HasMetadata> objects = install("--with-servicemonitor", "--with-alerts", "--with-policy",
                "--monitoring-label", "release=kps");
        Service service = only(objects, Service.class);
        GenericKubernetesResource monitor = objects.stream()
                .filter(o -> o.getKind().equals("ServiceMonitor")).map(GenericKubernetesResource.class::cast)
                .findFirst().orElseThrow();
        assertThat(monitor.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "kps");
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) monitor.getAdditionalProperties().get("spec");
        @SuppressWarnings("unchecked")
        Map<String, Object> selector = (Map<String, Object>) spec.get("selector");
        // the ServiceMonitor selects the Service by its labels: every label it matches is on the Service
        @SuppressWarnings("unchecked")
        Map<String, String> matchLabels = (Map<String, String>) selector.get("matchLabels");
        assertThat(service.getMetadata().getLabels()).containsAllEntriesOf(matchLabels);
        assertThat(matchLabels).isEqualTo(service.getSpec().getSelector());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> endpoints = (List<Map<String, Object>>) spec.get("endpoints");
        assertThat(endpoints).singleElement().satisfies(e -> {
            assertThat(e.get("port")).isEqualTo(service.getSpec().getPorts().get(0).getName());
            assertThat(e.get("path")).isEqualTo("/metrics");
        });

        HasMetadata rule = objects.stream().filter(o -> o.getKind().equals("PrometheusRule")).findFirst()
                .orElseThrow();
        assertThat(rule.getMetadata().getNamespace()).isEqualTo(NS);
        assertThat(rule.getMetadata().getLabels()).containsEntry("release", "kps");

        assertThat(objects).extracting(HasMetadata::getKind)
                .contains("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding");
        assertThat(objects).anyMatch(o -> o instanceof ClusterRole && o.getMetadata().getName().equals("nodegate-operator"));
    }

    /**
     * The field case: `install --with-policy` printed the Namespace twice, the policy bundle's copy (for the
     * tombstones) without the Pod Security label, and `kubectl apply` applies documents in order, so the second
     * copy removed `pod-security.kubernetes.io/enforce: restricted` from the live Namespace.
     */
    @Test
    void withPolicyTheNamespaceIsEmittedOnceAndKeepsItsPodSecurityLabel() {
        for (String ns : List.of(NS, "ops-nodegate")) {
            List<HasMetadata> objects = install("--with-policy", "--namespace", ns);
            List<Namespace> namespaces = objects.stream().filter(Namespace.class::isInstance)
                    .map(Namespace.class::cast).toList();
            assertThat(namespaces).as("namespaces in install --with-policy --namespace " + ns).singleElement()
                    .satisfies(n -> {
                        assertThat(n.getMetadata().getName()).isEqualTo(ns);
                        assertThat(n.getMetadata().getLabels())
                                .containsEntry("pod-security.kubernetes.io/enforce", "restricted");
                    });
            // the operators' tombstones Role is in the namespace where the watch reads the tombstones
            assertThat(objects).anyMatch(o -> o instanceof Role && o.getMetadata().getName().equals("nodegate-operator")
                    && ns.equals(o.getMetadata().getNamespace()));
            assertThat(objects).noneMatch(o -> o instanceof Role && !ns.equals(NS)
                    && NS.equals(o.getMetadata().getNamespace()));
        }
        // and no object twice, whatever the flags
        List<HasMetadata> all = install("--with-policy", "--with-alerts", "--with-servicemonitor", "--with-dashboard",
                "--with-policy-reports");
        assertThat(all).extracting(o -> o.getApiVersion() + "/" + o.getKind() + "/" + o.getMetadata().getNamespace()
                + "/" + o.getMetadata().getName()).doesNotHaveDuplicates();
    }

    @Test
    void everyObjectCarriesTheVersionAndManagedByLabelsButNoSelectorDoes() {
        List<HasMetadata> objects = install("--with-policy", "--with-alerts", "--with-servicemonitor",
                "--with-dashboard", "--with-policy-reports");
        String version = run("--version").out().strip().replace("nodegate ", "");
        assertThat(version).isNotBlank();
        assertThat(objects).allSatisfy(o -> assertThat(o.getMetadata().getLabels())
                .as(o.getKind() + "/" + o.getMetadata().getName())
                .containsEntry("app.kubernetes.io/version", version)
                .containsEntry("app.kubernetes.io/managed-by", "nodegate"));
        // a version in a selector would make the next upgrade's apply fail (Deployment selectors are immutable)
        Deployment deployment = only(objects, Deployment.class);
        assertThat(deployment.getSpec().getSelector().getMatchLabels()).doesNotContainKey("app.kubernetes.io/version");
        assertThat(only(objects, Service.class).getSpec().getSelector()).doesNotContainKey("app.kubernetes.io/version");
        assertThat(only(objects, PodDisruptionBudget.class).getSpec().getSelector().getMatchLabels())
                .doesNotContainKey("app.kubernetes.io/version");
    }

    @Test
    void aDisruptionBudgetKeepsOneWatchReplicaButNeverBlocksADrain() {
        List<HasMetadata> objects = install();
        PodDisruptionBudget pdb = only(objects, PodDisruptionBudget.class);
        Deployment deployment = only(objects, Deployment.class);
        assertThat(pdb.getApiVersion()).isEqualTo("policy/v1");
        assertThat(pdb.getMetadata().getNamespace()).isEqualTo(deployment.getMetadata().getNamespace());
        assertThat(pdb.getSpec().getSelector().getMatchLabels())
                .isEqualTo(deployment.getSpec().getTemplate().getMetadata().getLabels().entrySet().stream()
                        .filter(e -> deployment.getSpec().getSelector().getMatchLabels().containsKey(e.getKey()))
                        .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
        // maxUnavailable 1, not minAvailable 1: with --replicas 1 a minAvailable of 1 blocks every drain of its node
        assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
        assertThat(pdb.getSpec().getMinAvailable()).isNull();
        assertThat(pdb.getSpec().getUnhealthyPodEvictionPolicy()).isEqualTo("AlwaysAllow");
    }

    @Test
    void policyReportsAddTheWatchFlagAndOnlyThenTheRbac() {
        Rbac without = new Rbac(install(), NS, InstallBundle.NAME);
        assertThat(without.allows("create", "wgpolicyk8s.io", "clusterpolicyreports", null, null)).isFalse();
        assertThat(only(install(), Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
                .doesNotContain("--policy-reports");

        List<HasMetadata> objects = install("--with-policy-reports");
        Rbac with = new Rbac(objects, NS, InstallBundle.NAME);
        for (String verb : List.of("get", "list", "create", "update", "delete")) {
            assertThat(with.allows(verb, "wgpolicyk8s.io", "clusterpolicyreports", null, "nodegate-ng101"))
                    .as(verb).isTrue();
        }
        assertThat(with.allows("create", "wgpolicyk8s.io", "policyreports", "default", null)).isFalse();
        assertThat(only(objects, Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
                .contains("--policy-reports");
        // every request of such a watch is granted, nothing more (the same replay as without)
        long grantedVerbs = with.rules().stream().mapToLong(r -> r.getVerbs().size()).sum();
        long requestedVerbs = WatchAccess.requests(NS, true, true).stream().mapToLong(r -> r.verbs().size()).sum();
        assertThat(grantedVerbs).isEqualTo(requestedVerbs);
    }

    /** The watch holds newcomers with NoSchedule by default; --hold-effect NoExecute is passed on to it, as given. */
    @Test
    void holdEffectNoExecuteIsPassedToTheWatchAndTheDefaultAddsNothing() {
        assertThat(only(install(), Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
                .doesNotContain("--hold-effect");
        assertThat(only(install("--hold-effect", "NoSchedule"), Deployment.class).getSpec().getTemplate().getSpec()
                .getContainers().get(0).getArgs()).doesNotContain("--hold-effect");
        List<String> args = only(install("--hold-effect", "NoExecute"), Deployment.class).getSpec().getTemplate()
                .getSpec().getContainers().get(0).getArgs();
        assertThat(args).containsSubsequence("--hold-effect", "NoExecute");
        // the watch parses these arguments and takes the effect
        io.nodegate.cli.WatchCommand command = new io.nodegate.cli.WatchCommand();
        var parsed = new picocli.CommandLine(command).parseArgs(args.subList(1, args.size()).toArray(String[]::new));
        assertThat(parsed.matchedOptionValue("--hold-effect", "")).isEqualTo("NoExecute");

        CliRun bad = run("install", "--image", IMAGE, "--hold-effect", "Evict");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--hold-effect must be NoSchedule or NoExecute, got 'Evict'");
        assertThat(bad.out()).isEmpty();
        assertThat(run("install", "--crds-only", "--hold-effect", "NoExecute").exitCode()).isEqualTo(2);
    }

    @Test
    void bmcFlagsMountTheInventoryCredentialsAndCaAndTheWatchTakesTheArgumentsItIsGiven(@TempDir Path tmp)
            throws Exception {
        PodSpec without = only(install(), Deployment.class).getSpec().getTemplate().getSpec();
        assertThat(without.getContainers().get(0).getArgs()).noneMatch(a -> a.startsWith("--bmc"));
        assertThat(without.getVolumes()).extracting(Volume::getName).containsExactly("tmp");

        CliRun run = run("install", "--image", IMAGE, "--bmc-inventory-configmap", "nodegate-bmcs",
                "--bmc-credentials-secret", "nodegate-bmc-reader", "--bmc-ca-configmap", "bmc-ca");
        assertThat(run.exitCode()).as(run.err()).isZero();
        PodSpec pod = only(AlertRulesPromtoolTest.parse(run.out()), Deployment.class).getSpec().getTemplate()
                .getSpec();
        var container = pod.getContainers().get(0);
        assertThat(container.getArgs()).containsSubsequence("--bmc-inventory", "/etc/nodegate/bmc/inventory.yaml",
                "--bmc-credentials", "/etc/nodegate/bmc-credentials", "--bmc-ca", "/etc/nodegate/bmc-ca/ca.crt");
        assertThat(container.getEnv()).noneMatch(e -> e.getValueFrom() != null
                && e.getValueFrom().getSecretKeyRef() != null);
        assertThat(container.getVolumeMounts()).filteredOn(m -> m.getName().startsWith("bmc"))
                .hasSize(3).allMatch(m -> Boolean.TRUE.equals(m.getReadOnly()));
        Volume secret = pod.getVolumes().stream().filter(v -> v.getName().equals("bmc-credentials")).findFirst()
                .orElseThrow();
        assertThat(secret.getSecret().getSecretName()).isEqualTo("nodegate-bmc-reader");
        assertThat(secret.getSecret().getDefaultMode()).isEqualTo(0440);
        assertThat(pod.getVolumes()).filteredOn(v -> v.getConfigMap() != null)
                .extracting(v -> v.getConfigMap().getName()).containsExactlyInAnyOrder("nodegate-bmcs", "bmc-ca");
        // the RBAC does not change: a mounted Secret needs no read access through the API
        assertThat(new Rbac(AlertRulesPromtoolTest.parse(run.out()), NS, InstallBundle.NAME).rules())
                .isEqualTo(new Rbac(install(), NS, InstallBundle.NAME).rules());

        // the watch parses exactly these arguments, and reads a Secret laid out as the kubelet mounts it: each key a
        // symlink into ..data, itself a symlink to a timestamped directory (pkg/volume/util/atomic_writer.go)
        Path mounted = tmp.resolve("bmc-credentials");
        Path stamped = Files.createDirectories(mounted.resolve("..2026_12_01_10_00_00.123456789"));
        Files.writeString(stamped.resolve("username"), "reader");
        Files.writeString(stamped.resolve("password"), "MARKER-pw-3d1f");
        Files.createSymbolicLink(mounted.resolve("..data"), stamped.getFileName());
        Files.createSymbolicLink(mounted.resolve("username"), Path.of("..data/username"));
        Files.createSymbolicLink(mounted.resolve("password"), Path.of("..data/password"));
        var credentials = io.nodegate.source.bmc.BmcCredentialsFile.read(mounted, "--bmc-credentials");
        assertThat(credentials.toString()).doesNotContain("MARKER-pw-3d1f");
        var watch = new picocli.CommandLine(new io.nodegate.cli.WatchCommand());
        assertThat(watch.parseArgs(container.getArgs().subList(1, container.getArgs().size()).toArray(String[]::new))
                .matchedOptions()).extracting(o -> o.longestName())
                .contains("--bmc-inventory", "--bmc-credentials", "--bmc-ca");
    }

    @Test
    void bmcFlagsAreAUsageErrorAloneOrWithABadName() {
        CliRun inventoryAlone = run("install", "--image", IMAGE, "--bmc-inventory-configmap", "nodegate-bmcs");
        assertThat(inventoryAlone.exitCode()).isEqualTo(2);
        assertThat(inventoryAlone.err()).contains("--bmc-credentials-secret");
        assertThat(inventoryAlone.out()).isEmpty();

        CliRun caAlone = run("install", "--image", IMAGE, "--bmc-ca-configmap", "bmc-ca");
        assertThat(caAlone.exitCode()).isEqualTo(2);
        assertThat(caAlone.err()).contains("--bmc-ca-configmap");

        CliRun badName = run("install", "--image", IMAGE, "--bmc-inventory-configmap", "BMCs",
                "--bmc-credentials-secret", "reader");
        assertThat(badName.exitCode()).isEqualTo(2);
        assertThat(badName.err()).contains("--bmc-inventory-configmap 'BMCs'");

        CliRun crdsOnly = run("install", "--crds-only", "--bmc-credentials-secret", "reader");
        assertThat(crdsOnly.exitCode()).isEqualTo(2);
    }

    @Test
    void imageIsRequiredAndBadInputIsAUsageError() {
        CliRun noImage = run("install");
        assertThat(noImage.exitCode()).isEqualTo(2);
        assertThat(noImage.err()).contains("--image");
        assertThat(noImage.out()).isEmpty();

        CliRun blank = run("install", "--image", " ");
        assertThat(blank.exitCode()).isEqualTo(2);
        assertThat(blank.err()).contains("--image");

        CliRun url = run("install", "--image", "https://registry.example.com/nodegate");
        assertThat(url.exitCode()).isEqualTo(2);
        assertThat(url.err()).contains("--image").contains("not an image reference");

        CliRun ns = run("install", "--image", IMAGE, "--namespace", "Nodegate_System");
        assertThat(ns.exitCode()).isEqualTo(2);
        assertThat(ns.err()).contains("--namespace").contains("Nodegate_System");
        assertThat(ns.out()).isEmpty();

        CliRun replicas = run("install", "--image", IMAGE, "--replicas", "0");
        assertThat(replicas.exitCode()).isEqualTo(2);
        assertThat(replicas.err()).contains("--replicas");

        CliRun help = run("install", "-h");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("Examples:").contains("--image");
    }

    /**
     * --image follows the grammar container runtimes parse references with (distribution/reference, regexp.go):
     * a one-letter name is as valid as a two-letter one (both were once treated differently), and what a runtime
     * refuses is refused here.
     */
    @Test
    void imageReferencesAreJudgedByTheRuntimesGrammar() {
        for (String ok : List.of("x", "ab", "nodegate", "registry.example.com/ops/nodegate:0.1.0",
                "registry:5000/ops/node-gate_x:v1", "localhost/x@sha256:" + "ab".repeat(32),
                "[::1]:5000/ops/x:1", "a__b/c--d:T_1.0")) {
            assertThat(InstallSettings.IMAGE.matcher(ok).matches()).as(ok).isTrue();
        }
        for (String bad : List.of("ABC", "a..b", "-x", "x:", "x:-tag", "https://registry.example.com/nodegate",
                "x@sha256:abc", "a b", "x/", "/x")) {
            assertThat(InstallSettings.IMAGE.matcher(bad).matches()).as(bad).isFalse();
        }
        CliRun one = run("install", "--image", "x");
        assertThat(one.exitCode()).as(one.err()).isZero();
        assertThat(one.out()).contains("image: \"x\"");
        CliRun two = run("install", "--image", "ab");
        assertThat(two.exitCode()).as(two.err()).isZero();
        CliRun upper = run("install", "--image", "ABC");
        assertThat(upper.exitCode()).isEqualTo(2);
        assertThat(upper.err()).contains("--image 'ABC' is not an image reference");
        CliRun tooLong = run("install", "--image", "a".repeat(256) + ":1");
        assertThat(tooLong.exitCode()).isEqualTo(2);
    }

    private static String path(Probe probe) {
        return probe.getHttpGet().getPath();
    }

    private static <T> T only(List<HasMetadata> objects, Class<T> type) {
        List<T> found = objects.stream().filter(type::isInstance).map(type::cast).toList();
        assertThat(found).hasSize(1);
        return found.get(0);
    }

    /**
     * Kubernetes RBAC authorization as the apiserver does it, for one service account: a ClusterRole bound by a
     * ClusterRoleBinding applies everywhere, a Role bound by a RoleBinding only in its namespace; resourceNames
     * restrict a rule to requests that name the object.
     */
    record Rbac(List<HasMetadata> objects, String saNamespace, String saName) {

        boolean allows(String verb, String group, String resource, String namespace, String name) {
            for (HasMetadata o : objects) {
                if (o instanceof ClusterRoleBinding b && bindsMe(b.getSubjects())) {
                    ClusterRole role = clusterRole(b.getRoleRef().getName());
                    if (role != null && role.getRules().stream().anyMatch(r -> matches(r, verb, group, resource, name))) {
                        return true;
                    }
                }
                if (namespace != null && o instanceof RoleBinding b && namespace.equals(b.getMetadata().getNamespace())
                        && bindsMe(b.getSubjects())) {
                    List<PolicyRule> rules = b.getRoleRef().getKind().equals("Role")
                            ? role(namespace, b.getRoleRef().getName())
                            : clusterRole(b.getRoleRef().getName()).getRules();
                    if (rules.stream().anyMatch(r -> matches(r, verb, group, resource, name))) {
                        return true;
                    }
                }
            }
            return false;
        }

        boolean allowsUrl(String verb, String url) {
            return objects.stream().filter(ClusterRoleBinding.class::isInstance).map(ClusterRoleBinding.class::cast)
                    .filter(b -> bindsMe(b.getSubjects()))
                    .map(b -> clusterRole(b.getRoleRef().getName())).filter(Objects::nonNull)
                    .flatMap(r -> r.getRules().stream())
                    .anyMatch(r -> r.getNonResourceURLs() != null && r.getNonResourceURLs().contains(url)
                            && r.getVerbs().contains(verb));
        }

        List<PolicyRule> rules() {
            return objects.stream().flatMap(o -> o instanceof ClusterRole c ? c.getRules().stream()
                    : o instanceof Role r ? r.getRules().stream() : java.util.stream.Stream.empty()).toList();
        }

        private boolean bindsMe(List<Subject> subjects) {
            return subjects.stream().anyMatch(s -> "ServiceAccount".equals(s.getKind()) && saName.equals(s.getName())
                    && saNamespace.equals(s.getNamespace()));
        }

        private ClusterRole clusterRole(String roleName) {
            return objects.stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast)
                    .filter(r -> r.getMetadata().getName().equals(roleName)).findFirst().orElse(null);
        }

        private List<PolicyRule> role(String namespace, String roleName) {
            return objects.stream().filter(Role.class::isInstance).map(Role.class::cast)
                    .filter(r -> r.getMetadata().getName().equals(roleName)
                            && namespace.equals(r.getMetadata().getNamespace()))
                    .findFirst().map(Role::getRules).orElse(List.of());
        }

        private static boolean matches(PolicyRule r, String verb, String group, String resource, String name) {
            if (r.getResources() == null || r.getResources().isEmpty()) {
                return false; // a non-resource URL rule
            }
            boolean names = r.getResourceNames() == null || r.getResourceNames().isEmpty()
                    || (name != null && r.getResourceNames().contains(name));
            return r.getVerbs().contains(verb) && r.getApiGroups().contains(group)
                    && r.getResources().contains(resource) && names;
        }
    }
}
