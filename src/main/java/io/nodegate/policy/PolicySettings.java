package io.nodegate.policy;

import io.nodegate.InputException;
import io.nodegate.model.NewcomerHold;
import io.nodegate.model.TombstoneBook;

import java.util.List;

/**
 * What the emitted policy and RBAC are parameterised on.
 *
 * @param operatorsGroup        the group allowed to write nodegate.io/* annotations and granted nodegate's RBAC
 * @param breakGlassGroup       the group whose members may delete a Node without a PASS verdict
 * @param includeRancher        emit the cattle-system Role/RoleBinding (upgrader Jobs); that namespace exists only
 *                              under Rancher, and a Role cannot be created in a missing namespace
 * @param nodePasswordSecrets   when not empty, deleting kube-system Secrets is granted only for these exact names
 * @param quarantine            also emit the quarantine policy that refuses tombstoned hosts (--quarantine)
 * @param tombstonesNamespace   where `remove` keeps the nodegate-tombstones ConfigMap (--namespace)
 * @param hold                  also emit the MutatingAdmissionPolicy that holds newcomers at CREATE (--hold); only
 *                              for API servers that serve admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicy
 * @param holdEffect            the hold's taint effect, NoSchedule or NoExecute (--hold-effect)
 */
public record PolicySettings(String operatorsGroup, String breakGlassGroup, boolean includeRancher,
                             List<String> nodePasswordSecrets, boolean quarantine, String tombstonesNamespace,
                             boolean hold, String holdEffect) {

    public PolicySettings(String operatorsGroup, String breakGlassGroup, boolean includeRancher,
                          List<String> nodePasswordSecrets, boolean quarantine, String tombstonesNamespace,
                          boolean hold) {
        this(operatorsGroup, breakGlassGroup, includeRancher, nodePasswordSecrets, quarantine, tombstonesNamespace,
                hold, NewcomerHold.NO_SCHEDULE);
    }

    public PolicySettings(String operatorsGroup, String breakGlassGroup, boolean includeRancher,
                          List<String> nodePasswordSecrets, boolean quarantine, String tombstonesNamespace) {
        this(operatorsGroup, breakGlassGroup, includeRancher, nodePasswordSecrets, quarantine, tombstonesNamespace,
                false);
    }

    public PolicySettings(String operatorsGroup, String breakGlassGroup, boolean includeRancher,
                          List<String> nodePasswordSecrets) {
        this(operatorsGroup, breakGlassGroup, includeRancher, nodePasswordSecrets, false,
                TombstoneBook.DEFAULT_NAMESPACE);
    }

    public static final String DEFAULT_OPERATORS_GROUP = "nodegate:operators";
    public static final String DEFAULT_BREAK_GLASS_GROUP = "nodegate:break-glass";

    public PolicySettings {
        operatorsGroup = requireGroup("--operators-group", operatorsGroup);
        breakGlassGroup = requireGroup("--break-glass-group", breakGlassGroup);
        if (operatorsGroup.equals(breakGlassGroup)) {
            throw new InputException("--operators-group and --break-glass-group must differ (both are '"
                    + operatorsGroup + "'): the people who approve a deletion should not also be the ones who skip"
                    + " the approval");
        }
        if (tombstonesNamespace == null || !tombstonesNamespace.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")
                || tombstonesNamespace.length() > 63) {
            throw new InputException("--namespace '" + tombstonesNamespace + "' is not a valid namespace name"
                    + " (lower-case DNS label, e.g. nodegate-system)");
        }
        if (NewcomerHold.effect(holdEffect) == null) {
            throw new InputException("--hold-effect must be NoSchedule or NoExecute, got '"
                    + holdEffect + "'");
        }
        nodePasswordSecrets = List.copyOf(nodePasswordSecrets == null ? List.of() : nodePasswordSecrets);
        for (String name : nodePasswordSecrets) {
            if (!name.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?") || name.length() > 253) {
                throw new InputException("--node-password-secret '" + name + "' is not a valid Secret name"
                        + " (lower-case DNS subdomain, e.g. worker-7.node-password.rke2)");
            }
        }
    }

    public static PolicySettings defaults() {
        return new PolicySettings(DEFAULT_OPERATORS_GROUP, DEFAULT_BREAK_GLASS_GROUP, true, List.of());
    }

    static String requireGroup(String flag, String group) {
        if (group == null || group.isBlank()) {
            throw new InputException(flag + " must not be empty");
        }
        if (!group.equals(group.strip())) {
            throw new InputException(flag + " '" + group + "' has leading or trailing spaces;"
                    + " names are matched exactly");
        }
        for (int i = 0; i < group.length(); i++) {
            if (Character.isISOControl(group.charAt(i))) {
                throw new InputException(flag + " contains a control character at position " + i);
            }
        }
        return group;
    }
}
