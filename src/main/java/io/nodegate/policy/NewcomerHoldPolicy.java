package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.MutatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.MutatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.MutatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.MutatingAdmissionPolicyBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.MutationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.Variable;
import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.VariableBuilder;
import io.nodegate.model.NewcomerHold;
import io.nodegate.model.NodeInventory;
import io.nodegate.model.TombstoneShards;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Holds a newcomer at birth (`nodegate policy --hold`): a MutatingAdmissionPolicy
 * ({@code admissionregistration.k8s.io/v1beta1}, beta in Kubernetes 1.34 and off by default: the feature gate
 * {@code MutatingAdmissionPolicy} plus {@code --runtime-config admissionregistration.k8s.io/v1beta1=true}) that adds
 * the taint {@value NewcomerHold#TAINT_KEY}:NoSchedule (or NoExecute, `--hold-effect`) to a Node in its CREATE when
 * <ul>
 *   <li>its name, systemUUID or machineID is tombstoned, read exactly as {@link QuarantinePolicy} reads it
 *       ({@link TombstoneMatchCel}: the same exemptions, and a machineID only while the Node reports no systemUUID
 *       or the tombstone none, as {@code Tombstone.matchOf} rules), or</li>
 *   <li>a declared inventory ({@link NodeInventory}) does not list a host under the Node's name whose declared
 *       identities all match the Node's (read from the inventory's index keys).</li>
 * </ul>
 * The watch's hold ({@code NewcomerHold.reasons}) decides more than this can: whether an identity is shared with an
 * older live Node, and whether a declared identity is shared (an identity listed alone places nothing then), need the
 * other Nodes, which an admission policy does not see. Those stay with the watch, which holds them one event later;
 * what this policy holds the watch would hold too, so the two never disagree about a Node this policy tainted.
 *
 * <p>Why CREATE sees the identity: the registering kubelet POSTs its Node with status.nodeInfo filled
 * ({@link QuarantinePolicy} cites the kubelet source). A kubelet that restarts on an existing Node POSTs again and
 * gets AlreadyExists after admission: the mutated object is never stored, and the kubelet's fallback patch does not
 * carry taints ({@code tryRegisterWithAPIServer} in kubernetes {@code pkg/kubelet/kubelet_node_status.go}), so an
 * existing Node is never held by this policy. NodeRestriction refuses a kubelet's own change of its taints on
 * update, so the node cannot lift the hold itself.
 *
 * <p>Parameters: one policy, two bindings, both ConfigMaps in nodegate's namespace. One binding selects the
 * tombstones ledger's shards by label ({@link TombstoneShards}), the other names the inventory; kube-apiserver
 * evaluates the policy once per parameter, each time on the object as the evaluations before left it, so the patch
 * adds the taint only where it is not there yet. {@code parameterNotFoundAction: Allow}: no ledger or no inventory
 * holds nothing for that reason. {@code failurePolicy: Ignore}: an error in this policy must not refuse every Node
 * registration in the cluster; the Node is then admitted untainted and the watch's hold is the backstop.
 */
public final class NewcomerHoldPolicy {

    public static final String NAME = "nodegate-newcomer-hold";
    public static final String TOMBSTONES_BINDING = NAME + "-tombstones";
    public static final String INVENTORY_BINDING = NAME + "-inventory";
    public static final String API_VERSION = "admissionregistration.k8s.io/v1beta1";

    private NewcomerHoldPolicy() {
    }

    /** The hold with the effect NoSchedule: nothing new is scheduled there, what runs keeps running. */
    public static MutatingAdmissionPolicy policy() {
        return policy(NewcomerHold.NO_SCHEDULE);
    }

    /**
     * @param effect NoSchedule, or NoExecute for hosts that must not run anything: at CREATE no pod is bound yet, so
     *               the difference is what the kubelet and the scheduler do afterwards (NoExecute also keeps off, and
     *               evicts, DaemonSet pods without a toleration for it)
     */
    public static MutatingAdmissionPolicy policy(String effect) {
        if (NewcomerHold.effect(effect) == null) {
            throw new IllegalArgumentException("the hold's effect is NoSchedule or NoExecute, not " + effect);
        }
        String taint = "{'key': " + CelLiteral.quote(NewcomerHold.TAINT_KEY) + ", 'effect': "
                + CelLiteral.quote(effect) + "}";
        return new MutatingAdmissionPolicyBuilder()
                .withApiVersion(API_VERSION)
                .withNewMetadata().withName(NAME).withLabels(GatePolicy.LABELS).endMetadata()
                .withNewSpec()
                .withFailurePolicy("Ignore")
                .withReinvocationPolicy("Never")
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
                .withVariables(variables())
                .withMutations(new MutationBuilder()
                        .withPatchType("JSONPatch")
                        .withNewJsonPatch()
                        .withExpression("!variables.hold ? []"
                                + " : !has(object.spec) ? [" + patch("/spec", "{'taints': [" + taint + "]}") + "]"
                                + " : !has(object.spec.taints) ? [" + patch("/spec/taints", "[" + taint + "]") + "]"
                                + " : object.spec.taints.exists(t, t.key == " + CelLiteral.quote(NewcomerHold.TAINT_KEY)
                                + ") ? []"
                                + " : [" + patch("/spec/taints/-", taint) + "]")
                        .endJsonPatch()
                        .build())
                .endSpec()
                .build();
    }

    /**
     * Each evaluation has one param: a tombstones shard (read by {@link TombstoneMatchCel}, the quarantine's own
     * reading) or the inventory; the variables of the other kind are false.
     */
    private static List<Variable> variables() {
        String host = CelLiteral.quote(NodeInventory.HOST_PREFIX);
        String invUuid = CelLiteral.quote(NodeInventory.SYSTEM_UUID_PREFIX);
        String invMid = CelLiteral.quote(NodeInventory.MACHINE_ID_PREFIX);
        String name = "object.metadata.name";
        Map<String, String> v = new LinkedHashMap<>();
        v.put("inventory", "params.metadata.name == " + CelLiteral.quote(NodeInventory.CONFIGMAP));
        v.put("data", "has(params.data)");
        // ---- the tombstones ledger ----
        v.putAll(TombstoneMatchCel.variables("!variables.inventory && variables.data"));
        // ---- the declared inventory ----
        v.put("declared", "variables.inventory && variables.data && " + host + " + " + name + " in params.data");
        v.put("uuidMatches", "variables.declared && variables.systemUUID != '' && " + invUuid
                + " + variables.systemUUID in params.data && " + name + " in params.data[" + invUuid
                + " + variables.systemUUID].split(' ')");
        v.put("machineIDMatches", "variables.declared && variables.machineID != '' && " + invMid
                + " + variables.machineID in params.data && " + name + " in params.data[" + invMid
                + " + variables.machineID].split(' ')");
        // whether the host under this name declares an identity at all (then it must match)
        v.put("uuidDeclared", "variables.declared && params.data.exists(k, k.startsWith(" + invUuid
                + ") && " + name + " in params.data[k].split(' '))");
        v.put("machineIDDeclared", "variables.declared && params.data.exists(k, k.startsWith("
                + invMid + ") && " + name + " in params.data[k].split(' '))");
        v.put("placed", "variables.declared"
                + " && (variables.uuidMatches || variables.machineIDMatches)"
                + " && (variables.uuidMatches || !variables.uuidDeclared)"
                + " && (variables.machineIDMatches || !variables.machineIDDeclared)");
        v.put("hold", "variables.byName || variables.byUUID || variables.byMachineID"
                + " || (variables.inventory && !variables.placed)");
        return v.entrySet().stream()
                .map(e -> new VariableBuilder().withName(e.getKey()).withExpression(e.getValue()).build())
                .toList();
    }

    /** One JSON Patch "add" in the JSONPatch object type kube-apiserver's mutation CEL provides. */
    private static String patch(String path, String value) {
        return "JSONPatch{op: 'add', path: " + CelLiteral.quote(path) + ", value: " + value + "}";
    }

    /** The policy bound to the tombstones' shards (by label) and to the inventory (by name), both in {@code namespace}. */
    public static List<MutatingAdmissionPolicyBinding> bindings(String namespace) {
        return List.of(new MutatingAdmissionPolicyBindingBuilder()
                        .withApiVersion(API_VERSION)
                        .withNewMetadata().withName(TOMBSTONES_BINDING).withLabels(GatePolicy.LABELS).endMetadata()
                        .withNewSpec()
                        .withPolicyName(NAME)
                        .withNewParamRef()
                        .withNamespace(namespace)
                        .withNewSelector().addToMatchLabels(TombstoneShards.LABEL, TombstoneShards.LABEL_VALUE)
                        .endSelector()
                        .withParameterNotFoundAction("Allow")
                        .endParamRef()
                        .endSpec()
                        .build(),
                new MutatingAdmissionPolicyBindingBuilder()
                        .withApiVersion(API_VERSION)
                        .withNewMetadata().withName(INVENTORY_BINDING).withLabels(GatePolicy.LABELS).endMetadata()
                        .withNewSpec()
                        .withPolicyName(NAME)
                        .withNewParamRef()
                        .withNamespace(namespace)
                        .withName(NodeInventory.CONFIGMAP)
                        .withParameterNotFoundAction("Allow")
                        .endParamRef()
                        .endSpec()
                        .build());
    }
}
