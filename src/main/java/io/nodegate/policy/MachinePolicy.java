package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MatchConditionBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.VariableBuilder;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The gate on Rancher's management cluster (`nodegate policy --machines`): in a Rancher custom cluster every node
 * is a Cluster API Machine, and deleting it from Rancher (UI, API) drains and deletes the downstream Node without
 * the downstream Node policy ever being asked first. This policy puts the gate in front of that Machine DELETE.
 *
 * <p>Two rules, like the Node policy's:
 * <ol>
 *   <li>DELETE of a Machine needs a PASS written by `nodegate gate --machine-context --annotate` and bound to this
 *       Machine ({@value GatePolicy#GATE_UID_ANNOTATION} is its uid: a verdict copied from another Machine is denied)
 *       and to the Node it points at now ({@code nodegate.io/gate-node-name} is {@code status.nodeRef.name}, and
 *       {@code nodegate.io/gate-node-uid} its uid where Cluster API records one; {@code nodegate.io/gate-boot-id} the
 *       bootID Cluster API copied into {@code status.nodeInfo}), with no sign that the Node is back since
 *       ({@code NodeHealthy}/{@code NodeReady} True, or either condition changed after {@code gate-at}). Members of
 *       the break-glass group and the exempt users and groups are not gated.</li>
 *   <li>CREATE/UPDATE may add, change or remove nodegate.io/* annotations on a Machine only for the operators
 *       group; every other change (Cluster API's and Rancher's controllers write Machines all the time) passes.</li>
 * </ol>
 *
 * <p>Scope: only Machines of Rancher custom nodes ({@code spec.infrastructureRef} CustomMachine in
 * {@code rke.cattle.io}, rancher/rancher pkg/controllers/capr/unmanaged/controller.go), by a matchCondition. Node
 * driver pools (VMs Rancher creates and destroys, scaled down by Cluster API's MachineSet controller and remediated
 * through MachineHealthChecks) are left alone. Both served shapes are handled: v1beta1 names the group in
 * {@code infrastructureRef.apiVersion}, v1beta2 in {@code infrastructureRef.apiGroup}.
 */
public final class MachinePolicy {

    public static final String NAME = "nodegate-machine-gate";
    public static final String NODE_NAME_ANNOTATION = GatePolicy.ANNOTATION_PREFIX + "gate-node-name";
    public static final String NODE_UID_ANNOTATION = GatePolicy.ANNOTATION_PREFIX + "gate-node-uid";

    private MachinePolicy() {
    }

    public static ValidatingAdmissionPolicy policy(MachinePolicySettings settings) {
        String operators = CelLiteral.quote(settings.operatorsGroup());
        String verdictKey = CelLiteral.quote(GatePolicy.VERDICT_ANNOTATION);
        String atKey = CelLiteral.quote(GatePolicy.GATE_AT_ANNOTATION);
        String uidKey = CelLiteral.quote(GatePolicy.GATE_UID_ANNOTATION);
        String bootKey = CelLiteral.quote(GatePolicy.GATE_BOOT_ID_ANNOTATION);
        String nodeKey = CelLiteral.quote(NODE_NAME_ANNOTATION);
        String nodeUidKey = CelLiteral.quote(NODE_UID_ANNOTATION);
        String rfc3339 = CelLiteral.quote(GatePolicy.RFC3339_UTC);
        String ann = "oldObject.metadata.annotations";
        String onDelete = "request.operation == 'DELETE' && has(oldObject.metadata.annotations)";
        String exemptGroups = list(settings.exemptGroups(), settings.breakGlassGroup());
        String health = "(c.type == 'NodeHealthy' || c.type == 'NodeReady')";

        return new ValidatingAdmissionPolicyBuilder()
                .withNewMetadata().withName(NAME).withLabels(GatePolicy.LABELS).endMetadata()
                .withNewSpec()
                .withFailurePolicy("Fail")
                .withNewMatchConstraints()
                .addNewResourceRule()
                .withApiGroups("cluster.x-k8s.io")
                // every served version: v1beta1 and v1beta2 today; a version listed by name would stop matching when
                // Cluster API drops it, and the gate would fall silent
                .withApiVersions("*")
                .withOperations("CREATE", "UPDATE", "DELETE")
                .withResources("machines")
                .withScope("Namespaced")
                .endResourceRule()
                .endMatchConstraints()
                .withMatchConditions(new MatchConditionBuilder()
                        .withName("rancher-custom-machine")
                        .withExpression("request.operation == 'CREATE' ? " + customMachine("object")
                                + " : " + customMachine("oldObject"))
                        .build())
                .withVariables(
                        variable("isOperator",
                                "has(request.userInfo.groups) && " + operators + " in request.userInfo.groups"),
                        // printed here so that whoever reads the applied policy sees who is not gated
                        variable("exemptUsers", list(settings.exemptUsers(), null)),
                        variable("exemptGroups", exemptGroups),
                        variable("isExempt", "request.userInfo.username in variables.exemptUsers"
                                + " || (has(request.userInfo.groups)"
                                + " && request.userInfo.groups.exists(g, g in variables.exemptGroups))"),
                        variable("verdict", onDelete + " && " + verdictKey + " in " + ann + " ? " + ann + "["
                                + verdictKey + "] : ''"),
                        variable("nodeRefName", "request.operation == 'DELETE' && has(oldObject.status)"
                                + " && has(oldObject.status.nodeRef) && has(oldObject.status.nodeRef.name)"
                                + " ? oldObject.status.nodeRef.name : ''"),
                        // v1beta1 with v1beta1 storage (Cluster API up to v1.10) records the Node's uid; v1beta2
                        // (and its v1beta1 view since v1.11) only the name
                        // (through dyn(): v1beta2's schema has no nodeRef.uid, see customMachine)
                        variable("nodeRefUid", "request.operation == 'DELETE' && has(oldObject.status)"
                                + " && has(oldObject.status.nodeRef) && has(dyn(oldObject.status.nodeRef).uid)"
                                + " ? string(dyn(oldObject.status.nodeRef).uid) : ''"),
                        variable("gateUidMatches", onDelete + " && " + uidKey + " in " + ann + " && " + ann + "["
                                + uidKey + "] == oldObject.metadata.uid"),
                        variable("gateNodeMatches", "variables.nodeRefName != '' && " + onDelete + " && " + nodeKey
                                + " in " + ann + " && " + ann + "[" + nodeKey + "] == variables.nodeRefName"),
                        variable("gateNodeUidMatches", "variables.nodeRefUid == '' || (" + onDelete + " && "
                                + nodeUidKey + " in " + ann + " && " + ann + "[" + nodeUidKey
                                + "] == variables.nodeRefUid)"),
                        variable("reportedBootId", "request.operation == 'DELETE' && has(oldObject.status)"
                                + " && has(oldObject.status.nodeInfo) && has(oldObject.status.nodeInfo.bootID)"
                                + " ? oldObject.status.nodeInfo.bootID : ''"),
                        variable("gateBootMatches", "variables.reportedBootId == '' || (" + onDelete + " && "
                                + bootKey + " in " + ann + " && " + ann + "[" + bootKey
                                + "] == variables.reportedBootId)"),
                        variable("gateAt", onDelete + " && " + atKey + " in " + ann + " && " + ann + "[" + atKey
                                + "].matches(" + rfc3339 + ") ? " + ann + "[" + atKey + "] : ''"),
                        variable("nodeHealthy", "request.operation == 'DELETE' && has(oldObject.status)"
                                + " && has(oldObject.status.conditions)"
                                + " && oldObject.status.conditions.exists(c, " + health + " && c.status == 'True')"),
                        variable("healthChangedAfterGate", "variables.gateAt != '' && has(oldObject.status)"
                                + " && has(oldObject.status.conditions)"
                                + " && oldObject.status.conditions.exists(c, " + health
                                + " && has(c.lastTransitionTime)"
                                + " && string(c.lastTransitionTime).matches(" + rfc3339 + ")"
                                + " && timestamp(string(c.lastTransitionTime)) > timestamp(variables.gateAt))"),
                        variable("gateCommand", "'nodegate gate ' + (variables.nodeRefName == '' ? 'NODE'"
                                + " : variables.nodeRefName) + ' --baseline FILE --machine-context RANCHER"
                                + " --machine-cluster ' + (request.operation == 'DELETE' && has(oldObject.spec)"
                                + " && has(oldObject.spec.clusterName) ? oldObject.spec.clusterName : 'CLUSTER')"
                                + " + ' --annotate'"),
                        variable("deleteDenial",
                                "request.operation != 'DELETE' || variables.isExempt ? ''"
                                        + " : variables.verdict != " + CelLiteral.quote(GatePolicy.PASS)
                                        + " ? 'annotation " + GatePolicy.VERDICT_ANNOTATION + " is '"
                                        + " + (variables.verdict == '' ? 'missing' : '\"' + variables.verdict + '\"')"
                                        + " + ', it must be " + GatePolicy.PASS + ".'"
                                        + " : !variables.gateUidMatches ? 'its " + GatePolicy.PASS + " is not bound to"
                                        + " this Machine (" + GatePolicy.GATE_UID_ANNOTATION + " is missing or is not"
                                        + " its uid ' + oldObject.metadata.uid + '): copied from another Machine, or"
                                        + " the Machine was recreated.'"
                                        + " : variables.nodeRefName == '' ? 'it points at no Node (no status.nodeRef),"
                                        + " so its " + GatePolicy.PASS + " cannot be tied to the Node that was gated.'"
                                        + " : !variables.gateNodeMatches ? 'its " + GatePolicy.PASS + " was given while"
                                        + " it pointed at another Node (' + (" + nodeKey + " in " + ann + " ? " + ann
                                        + "[" + nodeKey + "] : 'none recorded') + '); it now points at Node '"
                                        + " + variables.nodeRefName + '.'"
                                        + " : !variables.gateNodeUidMatches ? 'its " + GatePolicy.PASS + " was given"
                                        + " to another Node object of that name (status.nodeRef.uid is now '"
                                        + " + variables.nodeRefUid + ').'"
                                        + " : !variables.gateBootMatches ? 'its " + GatePolicy.PASS + " was given to"
                                        + " another boot of the host (status.nodeInfo.bootID is now '"
                                        + " + variables.reportedBootId + ').'"
                                        + " : variables.gateAt == '' ? 'annotation " + GatePolicy.GATE_AT_ANNOTATION
                                        + " is missing or not an RFC 3339 UTC time.'"
                                        + " : variables.nodeHealthy ? 'its Node reports healthy again (NodeHealthy or"
                                        + " NodeReady is True): the host is back.'"
                                        + " : variables.healthChangedAfterGate ? 'its Node changed health after the"
                                        + " gate (NodeHealthy or NodeReady changed after ' + variables.gateAt + ').'"
                                        + " : ''"),
                        variable("oldGateKeys", GatePolicy.gateKeysOf("oldObject", "CREATE")),
                        variable("newGateKeys", GatePolicy.gateKeysOf("object", "DELETE")),
                        variable("changedGateKeys", GatePolicy.CHANGED_GATE_KEYS))
                .withValidations(
                        new ValidationBuilder()
                                .withExpression("variables.deleteDenial == ''")
                                .withMessage("nodegate: a Rancher custom node's Machine may be deleted only with a "
                                        + GatePolicy.PASS + " from 'nodegate gate --machine-context --annotate' bound"
                                        + " to this Machine and the Node it points at; or by a member of "
                                        + settings.breakGlassGroup())
                                .withMessageExpression("'nodegate: Machine ' + oldObject.metadata.namespace + '/'"
                                        + " + oldObject.metadata.name + ' may not be deleted: ' + variables.deleteDenial"
                                        + " + ' Clean up the host, then run: ' + variables.gateCommand"
                                        + " + '. In an emergency a member of ' + "
                                        + CelLiteral.quote(settings.breakGlassGroup()) + " + ' can delete it.'")
                                .withReason("Forbidden")
                                .build(),
                        GatePolicy.onlyOperatorsWriteVerdicts(settings.operatorsGroup(), "a Machine",
                                "' on Machine ' + object.metadata.namespace + '/' + object.metadata.name"))
                .endSpec()
                .build();
    }

    public static ValidatingAdmissionPolicyBinding binding() {
        return new ValidatingAdmissionPolicyBindingBuilder()
                .withNewMetadata().withName(NAME).withLabels(GatePolicy.LABELS).endMetadata()
                .withNewSpec()
                .withPolicyName(NAME)
                .withValidationActions("Deny")
                .endSpec()
                .build();
    }

    /** The Machine's infrastructure is a Rancher custom node: CustomMachine in rke.cattle.io, either version. */
    private static String customMachine(String object) {
        String ref = object + ".spec.infrastructureRef";
        // Each version's schema has only one of the two fields (v1beta1 apiVersion, v1beta2 apiGroup): read through
        // dyn() they type-check against both served schemas (kube-apiserver checks a typed copy; without dyn() it
        // reports "undefined field" for the other version), and has() still tells which one the object carries.
        String anyRef = "dyn(" + ref + ")";
        return "(has(" + object + ".spec) && has(" + ref + ") && has(" + ref + ".kind) && " + ref
                + ".kind == 'CustomMachine' && ((has(" + anyRef + ".apiVersion) && " + anyRef
                + ".apiVersion.startsWith('rke.cattle.io/')) || (has(" + anyRef + ".apiGroup) && " + anyRef
                + ".apiGroup == 'rke.cattle.io')))";
    }

    /** A CEL list of string literals (plus one more value when given). */
    private static String list(List<String> values, String extra) {
        List<String> all = new java.util.ArrayList<>(values);
        if (extra != null) {
            all.add(0, extra);
        }
        return all.stream().map(CelLiteral::quote).collect(Collectors.joining(", ", "[", "]"));
    }

    private static Variable variable(String name, String expression) {
        return new VariableBuilder().withName(name).withExpression(expression).build();
    }
}
