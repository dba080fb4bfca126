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
 *       subset of annotations is compared, so kubelet heartbeats and controllers keep working.</li>
 * </ol>
 * Every expression must evaluate without error on any real Node: with failurePolicy Fail an error is a denial,
 * and a denial of kubelet status updates would turn every node NotReady. Hence the {@code has()} guards and the
 * operation checks before {@code object}/{@code oldObject} are touched (null on DELETE/CREATE respectively).
 */
public final class GatePolicy {

    public static final String NAME = "nodegate-node-gate";
    public static final String ANNOTATION_PREFIX = "nodegate.io/";
    public static final String VERDICT_ANNOTATION = ANNOTATION_PREFIX + "gate-verdict";
    public static final String PASS = "PASS";

    static final Map<String, String> LABELS = new TreeMap<>(Map.of(
            "app.kubernetes.io/name", "nodegate",
            "app.kubernetes.io/managed-by", "nodegate"));

    private GatePolicy() {
    }

    public static ValidatingAdmissionPolicy policy(PolicySettings settings) {
        String operators = CelLiteral.quote(settings.operatorsGroup());
        String breakGlass = CelLiteral.quote(settings.breakGlassGroup());
        String prefix = CelLiteral.quote(ANNOTATION_PREFIX);
        String verdictKey = CelLiteral.quote(VERDICT_ANNOTATION);

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
                        variable("oldGateKeys",
                                "request.operation != 'CREATE' && has(oldObject.metadata.annotations)"
                                        + " ? oldObject.metadata.annotations.filter(k, k.startsWith(" + prefix + "))"
                                        + " : []"),
                        variable("newGateKeys",
                                "request.operation != 'DELETE' && has(object.metadata.annotations)"
                                        + " ? object.metadata.annotations.filter(k, k.startsWith(" + prefix + "))"
                                        + " : []"),
                        // A key in both lists guarantees both annotation maps exist, so the index is safe.
                        variable("changedGateKeys",
                                "variables.newGateKeys.filter(k, !(k in variables.oldGateKeys)"
                                        + " || oldObject.metadata.annotations[k] != object.metadata.annotations[k])"
                                        + " + variables.oldGateKeys.filter(k, !(k in variables.newGateKeys))"))
                .withValidations(
                        new ValidationBuilder()
                                .withExpression("request.operation != 'DELETE' || variables.isBreakGlass"
                                        + " || (variables.verdict == " + CelLiteral.quote(PASS)
                                        + " && !variables.reportsReady)")
                                .withMessage("nodegate: a Node may be deleted only when its annotation "
                                        + VERDICT_ANNOTATION + " is " + PASS + " (written by 'nodegate gate' as a"
                                        + " member of " + settings.operatorsGroup() + ") and it does not report"
                                        + " Ready=True, or by a member of " + settings.breakGlassGroup())
                                .withMessageExpression("'nodegate: node ' + oldObject.metadata.name"
                                        + " + ' may not be deleted: ' + (variables.verdict == " + CelLiteral.quote(PASS)
                                        + " ? 'its verdict is " + PASS + " but it reports Ready=True again (the host"
                                        + " is back, perhaps re-registered under the same name); run nodegate gate"
                                        + " again.'"
                                        + " : 'annotation " + VERDICT_ANNOTATION + " is '"
                                        + " + (variables.verdict == '' ? 'missing' : '\"' + variables.verdict + '\"')"
                                        + " + ', it must be " + PASS + ". Run nodegate gate for this node.')"
                                        + " + ' In an emergency a member of ' + " + breakGlass + " + ' can delete it.'")
                                .withReason("Forbidden")
                                .build(),
                        new ValidationBuilder()
                                .withExpression("request.operation == 'DELETE' || variables.isOperator"
                                        + " || size(variables.changedGateKeys) == 0")
                                .withMessage("nodegate: only members of " + settings.operatorsGroup()
                                        + " may add, change or remove " + ANNOTATION_PREFIX
                                        + "* annotations on a Node")
                                .withMessageExpression("'nodegate: only members of ' + " + operators
                                        + " + ' may add, change or remove " + ANNOTATION_PREFIX
                                        + "* annotations; this request changes ' + variables.changedGateKeys.join(', ')"
                                        + " + ' on node ' + object.metadata.name")
                                .withReason("Forbidden")
                                .build())
                .endSpec()
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
