package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;

import java.util.List;

/**
 * The operators' RBAC on Rancher's management cluster, in the Fleet workspace namespace only: what
 * `gate --machine-context` and `remove --machine-context` do there, nothing else. get and list Machines (the gate
 * lists the namespace to find the one whose status.nodeRef names the Node), patch them (the verdict annotations),
 * delete them (remove); get the provisioning Cluster the Machine must belong to. Beside it, cluster-wide, list
 * ClusterRegistrationTokens (rejoin-risk: whether the registration command still works).
 */
public final class MachineRbac {

    private MachineRbac() {
    }

    public static List<HasMetadata> objects(MachinePolicySettings settings) {
        return List.of(
                new RoleBuilder()
                        .withNewMetadata().withName(OperatorRbac.NAME).withNamespace(settings.namespace())
                        .withLabels(GatePolicy.LABELS).endMetadata()
                        .withRules(
                                new PolicyRuleBuilder().withApiGroups("cluster.x-k8s.io").withResources("machines")
                                        .withVerbs("get", "list", "patch", "delete").build(),
                                new PolicyRuleBuilder().withApiGroups("provisioning.cattle.io")
                                        .withResources("clusters").withVerbs("get").build())
                        .build(),
                new RoleBindingBuilder()
                        .withNewMetadata().withName(OperatorRbac.NAME).withNamespace(settings.namespace())
                        .withLabels(GatePolicy.LABELS).endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "Role", OperatorRbac.NAME)
                        .withSubjects(new SubjectBuilder().withApiGroup("rbac.authorization.k8s.io").withKind("Group")
                                .withName(settings.operatorsGroup()).build())
                        .build(),
                // rejoin-risk and verify-gone ask whether the registration command still works: they LIST the
                // ClusterRegistrationTokens in the cluster's management namespace (c-m-..., a name only the
                // provisioning Cluster's status gives, so a Role cannot be written for it in advance). nodegate
                // streams past every field that carries a token; RBAC cannot grant metadata only, so this lets
                // the group read the tokens with kubectl too (docs/policy.md says how to narrow it to one namespace)
                new ClusterRoleBuilder()
                        .withNewMetadata().withName(REGISTRATION_TOKENS).withLabels(GatePolicy.LABELS).endMetadata()
                        .withRules(new PolicyRuleBuilder().withApiGroups("management.cattle.io")
                                .withResources("clusterregistrationtokens").withVerbs("list").build())
                        .build(),
                new ClusterRoleBindingBuilder()
                        .withNewMetadata().withName(REGISTRATION_TOKENS).withLabels(GatePolicy.LABELS).endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", REGISTRATION_TOKENS)
                        .withSubjects(new SubjectBuilder().withApiGroup("rbac.authorization.k8s.io").withKind("Group")
                                .withName(settings.operatorsGroup()).build())
                        .build());
    }

    /** The ClusterRole (and its binding) that lets rejoin-risk list ClusterRegistrationTokens. */
    public static final String REGISTRATION_TOKENS = OperatorRbac.NAME + "-registration-tokens";
}
