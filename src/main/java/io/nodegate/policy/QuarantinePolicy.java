package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.VariableBuilder;
import io.nodegate.model.TombstoneBook;

/**
 * The quarantine (`nodegate policy --quarantine`): a ValidatingAdmissionPolicy whose parameter is the tombstones
 * ConfigMap, denying the CREATE of a Node whose {@code metadata.name}, {@code status.nodeInfo.systemUUID} or
 * {@code status.nodeInfo.machineID} is tombstoned. Nothing upstream stops a removed host from registering again
 * at its next start (rke2#2144, k3s#12782); this makes the API server refuse it until `nodegate readmit`.
 *
 * <p>Why CREATE is enough: the registering kubelet sends its identity in the CREATE. In kubernetes/kubernetes
 * {@code pkg/kubelet/kubelet_node_status.go}, {@code registerWithAPIServer} builds the Node with
 * {@code initialNode}, which calls {@code setNodeStatus} (the {@code nodestatus.MachineInfo} setter fills
 * {@code status.nodeInfo.machineID}, {@code systemUUID} and {@code bootID}) before {@code tryRegisterWithAPIServer}
 * POSTs it; and {@code pkg/registry/core/node/strategy.go} keeps status on create ("Nodes allow *all* fields,
 * including status, to be set on create"), so admission sees it. A denied kubelet retries with back-off (at most
 * every 7 s) and the host never appears.
 *
 * <p>The parameter: {@code paramKind} ConfigMap, bound with {@code paramRef} to
 * {@value TombstoneBook#CONFIGMAP} in the tombstones namespace, {@code parameterNotFoundAction: Allow}
 * (fail-open): before the first removal there is no ConfigMap, and a fail-closed binding would refuse every new
 * Node in the cluster. The ConfigMap's {@code systemuuid.*} and {@code machineid.*} keys are the indexes CEL
 * reads (it cannot parse the JSON entries); all-zero and empty IDs are never indexed and never looked up.
 */
public final class QuarantinePolicy {

    public static final String NAME = "nodegate-node-quarantine";

    private QuarantinePolicy() {
    }

    public static ValidatingAdmissionPolicy policy() {
        String node = CelLiteral.quote(TombstoneBook.NODE_PREFIX);
        String uuidKey = CelLiteral.quote(TombstoneBook.SYSTEM_UUID_PREFIX);
        String midKey = CelLiteral.quote(TombstoneBook.MACHINE_ID_PREFIX);
        return new ValidatingAdmissionPolicyBuilder()
                .withNewMetadata().withName(NAME).withLabels(GatePolicy.LABELS).endMetadata()
                .withNewSpec()
                .withFailurePolicy("Fail")
                .withNewParamKind().withApiVersion("v1").withKind("ConfigMap").endParamKind()
                .withNewMatchConstraints()
                .addNewResourceRule()
                .withApiGroups("")
                .withApiVersions("v1")
                .withOperations("CREATE")
                .withResources("nodes")
                .withScope("Cluster")
                .endResourceRule()
                .endMatchConstraints()
                // Each variable is typed the same in both branches: on the API server object and params have their
                // OpenAPI types (a NodeSystemInfo is not a map), so a '? typed : {}' ternary would not compile there.
                .withVariables(
                        variable("systemUUID", id("systemUUID")),
                        variable("machineID", id("machineID")),
                        variable("byName", "has(params.data) && " + node + " + object.metadata.name in params.data"),
                        variable("byUUID", "variables.systemUUID != '' && has(params.data) && " + uuidKey
                                + " + variables.systemUUID in params.data"),
                        variable("byMachineID", "variables.machineID != '' && has(params.data) && " + midKey
                                + " + variables.machineID in params.data"),
                        // the tombstone's node name(s): the index value lists every tombstone with that ID
                        variable("tombstone", "variables.byName ? object.metadata.name"
                                + " : variables.byUUID ? params.data[" + uuidKey + " + variables.systemUUID]"
                                + " : variables.byMachineID ? params.data[" + midKey + " + variables.machineID]"
                                + " : ''"),
                        variable("matchedBy", "variables.byName ? 'name ' + object.metadata.name"
                                + " : variables.byUUID ? 'systemUUID ' + variables.systemUUID"
                                + " : variables.byMachineID ? 'machineID ' + variables.machineID : ''"))
                .withValidations(new ValidationBuilder()
                        .withExpression("!variables.byName && !variables.byUUID && !variables.byMachineID")
                        .withMessage("nodegate: this host was removed and is quarantined (tombstone in ConfigMap "
                                + TombstoneBook.CONFIGMAP + "); run nodegate readmit NODE to let it join again")
                        .withMessageExpression("'nodegate: node ' + object.metadata.name + ' is a removed host ("
                                + "' + variables.matchedBy + ' is tombstoned as ' + variables.tombstone + ' in ConfigMap "
                                + TombstoneBook.CONFIGMAP + "). If it is meant to come back, run nodegate readmit '"
                                + " + variables.tombstone.split(' ')[0] + ' --yes first; otherwise clean the host"
                                + " (rke2-uninstall.sh).'")
                        .withReason("Forbidden")
                        .build())
                .endSpec()
                .build();
    }

    /** status.nodeInfo.FIELD in lower case, or '' when the Node has none, or it is empty or all zeros. */
    private static String id(String field) {
        String path = "object.status.nodeInfo." + field;
        return "has(object.status) && has(object.status.nodeInfo) && has(" + path + ")"
                + " && !" + path + ".matches('^[0-]*$') ? " + path + ".lowerAscii() : ''";
    }

    public static ValidatingAdmissionPolicyBinding binding(String namespace) {
        return new ValidatingAdmissionPolicyBindingBuilder()
                .withNewMetadata().withName(NAME).withLabels(GatePolicy.LABELS).endMetadata()
                .withNewSpec()
                .withPolicyName(NAME)
                .withValidationActions("Deny")
                .withNewParamRef()
                .withName(TombstoneBook.CONFIGMAP)
                .withNamespace(namespace)
                .withParameterNotFoundAction("Allow")
                .endParamRef()
                .endSpec()
                .build();
    }

    private static io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable variable(String name,
                                                                                              String expression) {
        return new VariableBuilder().withName(name).withExpression(expression).build();
    }
}
