package io.nodegate.policy;

import io.nodegate.InputException;

import java.util.List;

/**
 * What the Machine policy (`nodegate policy --machines`, for Rancher's management cluster) is parameterised on.
 *
 * @param operatorsGroup  may write nodegate.io/* annotations on Machines, and gets the Role to gate and remove
 * @param breakGlassGroup may delete a Machine without a PASS (a person, in an emergency)
 * @param exemptUsers     users whose Machine deletes are not gated, printed in the policy: the controllers that delete
 *                        every Machine of a cluster being deleted, while an operator deletes one deliberately
 * @param exemptGroups    groups exempt the same way
 * @param namespace       the Fleet workspace namespace the operators' Role is in ({@code fleet-default})
 */
public record MachinePolicySettings(String operatorsGroup, String breakGlassGroup, List<String> exemptUsers,
                                    List<String> exemptGroups, String namespace) {

    public MachinePolicySettings {
        operatorsGroup = PolicySettings.requireGroup("--operators-group", operatorsGroup);
        breakGlassGroup = PolicySettings.requireGroup("--break-glass-group", breakGlassGroup);
        if (operatorsGroup.equals(breakGlassGroup)) {
            throw new InputException("--operators-group and --break-glass-group must differ (both are '"
                    + operatorsGroup + "')");
        }
        exemptUsers = List.copyOf(exemptUsers == null ? List.of() : exemptUsers);
        exemptGroups = List.copyOf(exemptGroups == null ? List.of() : exemptGroups);
        exemptUsers.forEach(u -> PolicySettings.requireGroup("--exempt-user", u));
        exemptGroups.forEach(g -> PolicySettings.requireGroup("--exempt-group", g));
        if (exemptGroups.contains(operatorsGroup)) {
            throw new InputException("--exempt-group " + operatorsGroup + " is the operators group: the people who"
                    + " write the verdict would never need one");
        }
        if (namespace == null || !namespace.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?") || namespace.length() > 63) {
            throw new InputException("--machine-namespace '" + namespace + "' is not a valid namespace name");
        }
    }
}
