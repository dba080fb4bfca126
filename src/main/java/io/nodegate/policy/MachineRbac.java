package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;

import java.util.List;

/**
 * The operators' RBAC on Rancher's management cluster, in the Fleet workspace namespace only: what
 * `gate --machine-context` and `remove --machine-context` do there, nothing else. get and list Machines (the gate
 * lists the namespace to find the one whose status.nodeRef names the Node), patch them (the verdict annotations),
 * delete them (remove); get the provisioning Cluster the Machine must belong to.
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
                        .build());
    }
}
