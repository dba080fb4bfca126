package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.nodegate.model.TombstoneShards;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;

import java.util.ArrayList;
import java.util.List;

/**
 * Least-privilege RBAC for the operators group: exactly what nodegate's commands read and write, cluster-wide
 * only where the objects are cluster-scoped or spread over all namespaces, a Role per namespace otherwise.
 * What RBAC cannot narrow (list by name, field selectors, which fields a patch touches) is explained in
 * docs/policy.md; the admission policy covers the one that matters (who writes nodegate.io/* annotations).
 */
public final class OperatorRbac {

    public static final String NAME = "nodegate-operator";
    public static final String NODE_LEASE_NAMESPACE = "kube-node-lease";
    public static final String KUBE_SYSTEM = "kube-system";
    public static final String DEFAULT_NAMESPACE = "default";
    public static final String CATTLE_SYSTEM = "cattle-system";

    private OperatorRbac() {
    }

    /** ClusterRole, ClusterRoleBinding, then one Role and RoleBinding per namespace, in that order. */
    public static List<HasMetadata> objects(PolicySettings settings) {
        List<HasMetadata> out = new ArrayList<>();
        out.add(clusterRole());
        out.add(new ClusterRoleBindingBuilder()
                .withNewMetadata().withName(NAME).withLabels(GatePolicy.LABELS).endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", NAME)
                .withSubjects(group(settings))
                .build());

        addNamespaced(out, settings, NODE_LEASE_NAMESPACE, List.of(
                rule("coordination.k8s.io", "leases", "get", "list")));

        List<PolicyRule> kubeSystem = new ArrayList<>();
        // audit lists kube-system Leases (scheduler/controller-manager leaders); nothing gets one by name
        kubeSystem.add(rule("coordination.k8s.io", "leases", "list"));
        if (settings.nodePasswordSecrets().isEmpty()) {
            kubeSystem.add(rule("", "secrets", "get", "list", "delete"));
        } else {
            kubeSystem.add(rule("", "secrets", "get", "list"));
            kubeSystem.add(new PolicyRuleBuilder().withApiGroups("").withResources("secrets")
                    .withVerbs("delete").withResourceNames(settings.nodePasswordSecrets()).build());
        }
        addNamespaced(out, settings, KUBE_SYSTEM, kubeSystem);

        addNamespaced(out, settings, DEFAULT_NAMESPACE, List.of(
                rule("discovery.k8s.io", "endpointslices", "list")));

        // `remove` records tombstones, `readmit` releases them, audit/fleet/gate read them: the ledger's shards (fixed
        // names, so update can name each), in a namespace of nodegate's own that this bundle creates (a Role cannot
        // be created in a missing namespace)
        out.add(new NamespaceBuilder().withNewMetadata().withName(settings.tombstonesNamespace())
                .withLabels(GatePolicy.LABELS).endMetadata().build());
        addNamespaced(out, settings, settings.tombstonesNamespace(), List.of(
                new PolicyRuleBuilder().withApiGroups("").withResources("configmaps")
                        .withResourceNames(TombstoneShards.names()).withVerbs("get", "update").build(),
                // audit and fleet LIST the namespace's ConfigMaps (the kinds table); create cannot be limited by
                // resourceNames (the name is not known at authorization time)
                rule("", "configmaps", "create", "list")));

        if (settings.includeRancher()) {
            addNamespaced(out, settings, CATTLE_SYSTEM, List.of(
                    rule("batch", "jobs", "get", "list", "delete")));
        }
        return out;
    }

    static ClusterRole clusterRole() {
        return new ClusterRoleBuilder()
                .withNewMetadata().withName(NAME).withLabels(GatePolicy.LABELS).endMetadata()
                .withRules(
                        rule("", "nodes", "get", "list", "patch", "delete"),
                        rule("", "pods", "list"),
                        rule("storage.k8s.io", "csinodes", "get", "list"),
                        rule("apps", "daemonsets", "list"),
                        // baseline and gate read MetalLB's L2 announcers. A real apiserver authorizes before it
                        // routes, so without this rule the call is a 403 even where MetalLB is not installed.
                        rule("metallb.io", "servicel2statuses", "list"),
                        // Only to tell "Rancher absent" (NotFound) from "cannot see": get by exact name works.
                        new PolicyRuleBuilder().withApiGroups("").withResources("namespaces")
                                .withResourceNames(CATTLE_SYSTEM).withVerbs("get").build(),
                        // audit and collect list the NodeHandovers (NG171: a cordon an open hand-over names is
                        // explained); without it the list is a 403 and NG171 stays at info on every run
                        rule(io.nodegate.handover.NodeHandover.GROUP, io.nodegate.handover.NodeHandover.PLURAL,
                                "list"),
                        // rejoin-risk and verify-gone read whether the quarantine is in force, by its names
                        new PolicyRuleBuilder().withApiGroups("admissionregistration.k8s.io")
                                .withResources("validatingadmissionpolicies", "validatingadmissionpolicybindings")
                                .withResourceNames(QuarantinePolicy.NAME).withVerbs("get").build(),
                        new PolicyRuleBuilder().withNonResourceURLs("/version").withVerbs("get").build())
                .build();
    }

    private static void addNamespaced(List<HasMetadata> out, PolicySettings settings, String namespace,
                                      List<PolicyRule> rules) {
        Role role = new RoleBuilder()
                .withNewMetadata().withName(NAME).withNamespace(namespace).withLabels(GatePolicy.LABELS).endMetadata()
                .withRules(rules)
                .build();
        RoleBinding binding = new RoleBindingBuilder()
                .withNewMetadata().withName(NAME).withNamespace(namespace).withLabels(GatePolicy.LABELS).endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "Role", NAME)
                .withSubjects(group(settings))
                .build();
        out.add(role);
        out.add(binding);
    }

    private static PolicyRule rule(String apiGroup, String resource, String... verbs) {
        return new PolicyRuleBuilder().withApiGroups(apiGroup).withResources(resource).withVerbs(verbs).build();
    }

    private static Subject group(PolicySettings settings) {
        return new SubjectBuilder().withApiGroup("rbac.authorization.k8s.io").withKind("Group")
                .withName(settings.operatorsGroup()).build();
    }
}
