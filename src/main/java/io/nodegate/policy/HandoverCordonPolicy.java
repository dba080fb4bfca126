package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MatchConditionBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.VariableBuilder;
import io.nodegate.handover.NodeHandover;

/**
 * Keeps a hand-over's nodes cordoned: a ValidatingAdmissionPolicy whose parameter is every NodeHandover, refusing
 * the UPDATE that uncordons a Node (spec.unschedulable true → false or absent) while an open hand-over (no
 * {@code spec.closed}) names it in {@code spec.nodes}, unless the request's Node carries the hand-over's name as its
 * reason in {@value #UNCORDON_REASON_ANNOTATION} (the name alone, or the name, a colon and words). In seed 000 a
 * target went back into service between steps because nothing said it was on its way out; a plain
 * {@code kubectl uncordon} on such a node is now refused with the hand-over's name, and a deliberate one says which
 * hand-over it knows it is overriding.
 *
 * <p>The binding's {@code paramRef} selects every NodeHandover (an empty selector; the kind is cluster-scoped, so no
 * namespace), and kube-apiserver evaluates the policy once per hand-over, denying when any denies
 * ({@code CollectParams} in apiserver {@code pkg/admission/plugin/policy/generic/policy_dispatcher.go}). No
 * hand-over at all is {@code parameterNotFoundAction: Allow}.
 *
 * <p>{@code failurePolicy: Ignore}, unlike the gate: the parameter kind is a CRD, and when it is not installed (or
 * not yet synced) kube-apiserver cannot collect the params and applies the failure policy to every matched request
 * (the same dispatcher, {@code addConfigError}), before any matchCondition is looked at. With Fail that would refuse
 * every update of every Node, the kubelet's and the controllers' included. This policy keeps a procedure, not a
 * door: when it cannot run, updates go through.
 */
public final class HandoverCordonPolicy {

    public static final String NAME = "nodegate-handover-cordon";
    /** What an uncordon of a hand-over's node must carry: the hand-over's name (optionally "NAME: words"). */
    public static final String UNCORDON_REASON_ANNOTATION = GatePolicy.ANNOTATION_PREFIX + "uncordon-reason";

    private HandoverCordonPolicy() {
    }

    public static ValidatingAdmissionPolicy policy() {
        String reasonKey = CelLiteral.quote(UNCORDON_REASON_ANNOTATION);
        return new ValidatingAdmissionPolicyBuilder()
                .withNewMetadata().withName(NAME).withLabels(GatePolicy.LABELS).endMetadata()
                .withNewSpec()
                .withFailurePolicy("Ignore")
                .withNewParamKind().withApiVersion(NodeHandover.API_VERSION).withKind(NodeHandover.KIND).endParamKind()
                .withNewMatchConstraints()
                .addNewResourceRule()
                .withApiGroups("")
                .withApiVersions("v1")
                .withOperations("UPDATE")
                // not nodes/status: its update strategy keeps spec from the stored object, so it cannot uncordon
                .withResources("nodes")
                .withScope("Cluster")
                .endResourceRule()
                .endMatchConstraints()
                // only an uncordon is looked at: every other update of a Node (the kubelet's, the controllers') is
                // not matched, so no expression of this policy runs on it
                .withMatchConditions(new MatchConditionBuilder().withName("uncordon")
                        .withExpression("has(oldObject.spec) && has(oldObject.spec.unschedulable)"
                                + " && oldObject.spec.unschedulable"
                                + " && !(has(object.spec) && has(object.spec.unschedulable) && object.spec.unschedulable)")
                        .build())
                .withVariables(
                        variable("open", "!has(params.spec.closed)"),
                        variable("target", "has(params.spec.nodes) && object.metadata.name in params.spec.nodes"),
                        variable("reason", "has(object.metadata.annotations) && " + reasonKey
                                + " in object.metadata.annotations ? object.metadata.annotations[" + reasonKey
                                + "] : ''"),
                        variable("reasonNamesIt", "variables.reason == params.metadata.name"
                                + " || variables.reason.startsWith(params.metadata.name + ':')"))
                .withValidations(new ValidationBuilder()
                        .withExpression("!variables.open || !variables.target || variables.reasonNamesIt")
                        .withMessage("nodegate: a Node that an open NodeHandover names stays cordoned; to uncordon it"
                                + " anyway, set annotation " + UNCORDON_REASON_ANNOTATION + " to the hand-over's name"
                                + " in the same request")
                        .withMessageExpression("'nodegate: node ' + object.metadata.name + ' is part of the open"
                                + " hand-over ' + params.metadata.name + ' and stays cordoned until it is closed. To"
                                + " uncordon it anyway, say so in the same request: annotation "
                                + UNCORDON_REASON_ANNOTATION + "=' + params.metadata.name + ' (or ' +"
                                + " params.metadata.name + ': why).'")
                        .withReason("Forbidden")
                        .build())
                .endSpec()
                .build();
    }

    /** Binds the policy to every NodeHandover (cluster-scoped: no namespace); none at all allows. */
    public static ValidatingAdmissionPolicyBinding binding() {
        return new ValidatingAdmissionPolicyBindingBuilder()
                .withNewMetadata().withName(NAME).withLabels(GatePolicy.LABELS).endMetadata()
                .withNewSpec()
                .withPolicyName(NAME)
                .withValidationActions("Deny")
                .withNewParamRef()
                .withNewSelector().endSelector()
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
