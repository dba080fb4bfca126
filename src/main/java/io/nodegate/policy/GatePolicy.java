package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.VariableBuilder;

import java.util.Map;
import java.util.TreeMap;

/**
 * The admission policy that enforces the removal gate on the API server itself, so a Node cannot be deleted
 * around nodegate (kubectl, Rancher, a script) and nobody can write the verdict that approves their own deletion.
 *
 * <p>One ValidatingAdmissionPolicy with two validations, each guarded by the operation it is about:
 * <ol>
 *   <li>DELETE of a Node needs {@value #VERDICT_ANNOTATION}=PASS on the stored object ({@code oldObject}) and
 *       no Ready=True condition, unless the requester is in the break-glass group.</li>
 *   <li>CREATE/UPDATE (on {@code nodes} and on {@code nodes/status}) may add, change or remove
 *       {@value #ANNOTATION_PREFIX}* annotations only when the requester is in the operators group. Only that
 *       subset of annotations is compared, so kubelet heartbeats and controllers keep working. The reasons
 *       ({@link #REASON_ANNOTATIONS}: why a Node is cordoned or uncordoned) are anyone's to write.</li>
 * </ol>
 * Every expression must evaluate without error on any real Node: with failurePolicy Fail an error is a denial,
 * and a denial of kubelet status updates would turn every node NotReady. Hence the {@code has()} guards and the
 * operation checks before {@code object}/{@code oldObject} are touched (null on DELETE/CREATE respectively).
 */
public final class GatePolicy {

    public static final String NAME = "nodegate-node-gate";
    public static final String ANNOTATION_PREFIX = "nodegate.io/";
    public static final String VERDICT_ANNOTATION = ANNOTATION_PREFIX + "gate-verdict";
    /** When the gate judged (RFC 3339, UTC), written with the verdict. */
    public static final String GATE_AT_ANNOTATION = ANNOTATION_PREFIX + "gate-at";
    /** The uid of the Node object the gate judged. */
    public static final String GATE_UID_ANNOTATION = ANNOTATION_PREFIX + "gate-uid";
    /** The bootID the judged Node reported (absent when it reported none). */
    public static final String GATE_BOOT_ID_ANNOTATION = ANNOTATION_PREFIX + "gate-boot-id";
    /** RFC 3339 in UTC as Instant.toString() writes it, checked before CEL's timestamp() is asked to parse it. */
    static final String RFC3339_UTC = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?Z$";
    public static final String PASS = "PASS";

    static final Map<String, String> LABELS = new TreeMap<>(Map.of(
            "app.kubernetes.io/name", "nodegate",
            "app.kubernetes.io/managed-by", "nodegate"));

    private GatePolicy() {
    }

    public static ValidatingAdmissionPolicy policy(PolicySettings settings) {
        String operators = CelLiteral.quote(settings.operatorsGroup());
        String breakGlass = CelLiteral.quote(settings.breakGlassGroup());
        String verdictKey = CelLiteral.quote(VERDICT_ANNOTATION);
        String atKey = CelLiteral.quote(GATE_AT_ANNOTATION);
        String uidKey = CelLiteral.quote(GATE_UID_ANNOTATION);
        String bootKey = CelLiteral.quote(GATE_BOOT_ID_ANNOTATION);
        String oldAnn = "oldObject.metadata.annotations";
        String onDeleteWithAnnotations = "request.operation == 'DELETE' && has(oldObject.metadata.annotations)";

        return new ValidatingAdmissionPolicyBuilder()
                .withNewMetadata().withName(NAME).withLabels(LABELS).endMetadata()
                .withNewSpec()
                .withFailurePolicy("Fail")
                .withNewMatchConstraints()
                .addNewResourceRule()
                .withApiGroups("")
                .withApiVersions("v1")
                .withOperations("CREATE", "UPDATE", "DELETE")
                // nodes/status too: its update strategy keeps only spec from the stored object, so a status
                // PATCH can rewrite metadata.annotations (kubelet's credentials are allowed nodes/status).
                .withResources("nodes", "nodes/status")
                .withScope("Cluster")
                .endResourceRule()
                .endMatchConstraints()
                .withVariables(
                        variable("isOperator",
                                "has(request.userInfo.groups) && " + operators + " in request.userInfo.groups"),
                        variable("isBreakGlass",
                                "has(request.userInfo.groups) && " + breakGlass + " in request.userInfo.groups"),
                        variable("verdict",
                                "request.operation != 'CREATE' && has(oldObject.metadata.annotations) && "
                                        + verdictKey + " in oldObject.metadata.annotations"
                                        + " ? oldObject.metadata.annotations[" + verdictKey + "] : ''"),
                        // Re-registering under the same name keeps annotations, so a PASS written before the host
                        // came back would still be there: a Node whose kubelet reports Ready=True is never gated out.
                        variable("reportsReady",
                                "request.operation == 'DELETE' && has(oldObject.status)"
                                        + " && has(oldObject.status.conditions)"
                                        + " && oldObject.status.conditions.exists(c, c.type == 'Ready'"
                                        + " && c.status == 'True')"),
                        // The PASS is bound to what the gate judged: this Node object (uid), this boot (bootID),
                        // and no kubelet report after the gate. Without it a PASS would be a bearer token: a host
                        // that comes back and reports Ready=False at boot, or anyone who writes Ready=False through
                        // nodes/status, would leave a Node that anyone with `delete nodes` may delete.
                        variable("gateUidMatches",
                                onDeleteWithAnnotations + " && " + uidKey + " in " + oldAnn
                                        + " && " + oldAnn + "[" + uidKey + "] == oldObject.metadata.uid"),
                        variable("reportedBootId",
                                "request.operation == 'DELETE' && has(oldObject.status)"
                                        + " && has(oldObject.status.nodeInfo) && has(oldObject.status.nodeInfo.bootID)"
                                        + " ? oldObject.status.nodeInfo.bootID : ''"),
                        variable("gateBootMatches",
                                "variables.reportedBootId == '' || (" + onDeleteWithAnnotations + " && " + bootKey
                                        + " in " + oldAnn + " && " + oldAnn + "[" + bootKey
                                        + "] == variables.reportedBootId)"),
                        variable("gateAt",
                                onDeleteWithAnnotations + " && " + atKey + " in " + oldAnn + " && " + oldAnn + "["
                                        + atKey + "].matches(" + CelLiteral.quote(RFC3339_UTC) + ") ? " + oldAnn
                                        + "[" + atKey + "] : ''"),
                        variable("heartbeatAfterGate",
                                "variables.gateAt != '' && has(oldObject.status) && has(oldObject.status.conditions)"
                                        + " && oldObject.status.conditions.exists(c, c.type == 'Ready'"
                                        + " && has(c.lastHeartbeatTime)"
                                        + " && string(c.lastHeartbeatTime).matches(" + CelLiteral.quote(RFC3339_UTC) + ")"
                                        + " && timestamp(string(c.lastHeartbeatTime)) > timestamp(variables.gateAt))"),
                        // Why a DELETE is denied, in words; '' when the gate allows it. The validation and its
                        // message read the same variable, so they cannot disagree.
                        variable("deleteDenial",
                                "request.operation != 'DELETE' || variables.isBreakGlass ? ''"
                                        + " : variables.verdict != " + CelLiteral.quote(PASS)
                                        + " ? 'annotation " + VERDICT_ANNOTATION + " is '"
                                        + " + (variables.verdict == '' ? 'missing' : '\"' + variables.verdict + '\"')"
                                        + " + ', it must be " + PASS + ". Run nodegate gate for this node.'"
                                        + " : variables.reportsReady ? 'its verdict is " + PASS + " but it reports"
                                        + " Ready=True again (the host is back, perhaps re-registered under the same"
                                        + " name); run nodegate gate again.'"
                                        + " : !variables.gateUidMatches ? 'its " + PASS + " is not bound to this Node"
                                        + " object (" + GATE_UID_ANNOTATION + " is missing or is not its uid ' +"
                                        + " oldObject.metadata.uid + '): the Node was recreated, or the verdict was"
                                        + " written by an older nodegate; run nodegate gate again.'"
                                        + " : !variables.gateBootMatches ? 'its " + PASS + " was given to another boot"
                                        + " of the host (it now reports bootID ' + variables.reportedBootId + '): the"
                                        + " host rebooted and reported since the gate; run nodegate gate again.'"
                                        + " : variables.gateAt == '' ? 'annotation " + GATE_AT_ANNOTATION + " is missing"
                                        + " or not an RFC 3339 UTC time; run nodegate gate again.'"
                                        + " : variables.heartbeatAfterGate ? 'its kubelet reported after the gate"
                                        + " (Ready lastHeartbeatTime is newer than " + GATE_AT_ANNOTATION + " ' +"
                                        + " variables.gateAt + '): the host is back; run nodegate gate again.'"
                                        + " : ''"),
                        variable("oldGateKeys", gateKeysOf("oldObject", "CREATE")),
                        variable("newGateKeys", gateKeysOf("object", "DELETE")),
                        variable("changedGateKeys", CHANGED_GATE_KEYS))
                .withValidations(
                        new ValidationBuilder()
                                .withExpression("variables.deleteDenial == ''")
                                .withMessage("nodegate: a Node may be deleted only when its annotation "
                                        + VERDICT_ANNOTATION + " is " + PASS + " (written by 'nodegate gate' as a"
                                        + " member of " + settings.operatorsGroup() + ") for this Node object and"
                                        + " boot, it does not report Ready=True, and its kubelet has not reported"
                                        + " since the gate; or by a member of " + settings.breakGlassGroup())
                                .withMessageExpression("'nodegate: node ' + oldObject.metadata.name"
                                        + " + ' may not be deleted: ' + variables.deleteDenial"
                                        + " + ' In an emergency a member of ' + " + breakGlass + " + ' can delete it.'")
                                .withReason("Forbidden")
                                .build(),
                        onlyOperatorsWriteVerdicts(settings.operatorsGroup(), "a Node",
                                "' on node ' + object.metadata.name"))
                .endSpec()
                .build();
    }

    /**
     * The nodegate.io/* keys of {@code object} ("object", "oldObject"), or [] when the request has none ({@code absentOn}
     * is the operation on which that side is null).
     */
    static String gateKeysOf(String object, String absentOn) {
        return "request.operation != '" + absentOn + "' && has(" + object + ".metadata.annotations)"
                + " ? " + object + ".metadata.annotations.filter(k, k.startsWith(" + CelLiteral.quote(ANNOTATION_PREFIX)
                + ") && !(k in " + REASON_KEYS + ")) : []";
    }

    /**
     * The nodegate.io/* annotations anyone may write: why a Node is cordoned, and why a hand-over's node is uncordoned
     * ({@link HandoverCordonPolicy}). They are words for people, not verdicts; the gate reads none of them.
     */
    public static final java.util.List<String> REASON_ANNOTATIONS = java.util.List.of(
            ANNOTATION_PREFIX + "cordon-reason", ANNOTATION_PREFIX + "uncordon-reason");
    private static final String REASON_KEYS = "[" + String.join(", ",
            REASON_ANNOTATIONS.stream().map(CelLiteral::quote).toList()) + "]";

    /** The gate keys added, changed or removed; a key in both lists guarantees both maps exist, so the index is safe. */
    static final String CHANGED_GATE_KEYS = "variables.newGateKeys.filter(k, !(k in variables.oldGateKeys)"
            + " || oldObject.metadata.annotations[k] != object.metadata.annotations[k])"
            + " + variables.oldGateKeys.filter(k, !(k in variables.newGateKeys))";

    /**
     * Rule 2, for any kind that carries a verdict: outside the operators group, no request may add, change or remove
     * nodegate.io/* annotations but the reasons (needs the variables isOperator, oldGateKeys, newGateKeys, changedGateKeys).
     *
     * The reason annotations ({@link #REASON_ANNOTATIONS}) are not counted: anyone may write them.
     *
     * @param aKind           the kind in the static message ("a Node")
     * @param onWhatExpression CEL naming the object in the message ("' on node ' + object.metadata.name")
     */
    static io.fabric8.kubernetes.api.model.admissionregistration.v1.Validation onlyOperatorsWriteVerdicts(
            String operatorsGroup, String aKind, String onWhatExpression) {
        return new ValidationBuilder()
                .withExpression("request.operation == 'DELETE' || variables.isOperator"
                        + " || size(variables.changedGateKeys) == 0")
                .withMessage("nodegate: only members of " + operatorsGroup + " may add, change or remove "
                        + ANNOTATION_PREFIX + "* annotations on " + aKind)
                .withMessageExpression("'nodegate: only members of ' + " + CelLiteral.quote(operatorsGroup)
                        + " + ' may add, change or remove " + ANNOTATION_PREFIX
                        + "* annotations; this request changes ' + variables.changedGateKeys.join(', ') + "
                        + onWhatExpression)
                .withReason("Forbidden")
                .build();
    }

    public static ValidatingAdmissionPolicyBinding binding() {
        return new ValidatingAdmissionPolicyBindingBuilder()
                .withNewMetadata().withName(NAME).withLabels(LABELS).endMetadata()
                .withNewSpec()
                .withPolicyName(NAME)
                .withValidationActions("Deny")
                .endSpec()
                .build();
    }

    private static io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable variable(String name,
                                                                                              String expression) {
        return new VariableBuilder().withName(name).withExpression(expression).build();
    }
}
