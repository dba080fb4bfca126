package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.VariableBuilder;
import io.nodegate.lifecycle.quarantine.TombstoneLedger;
import io.nodegate.model.HostIdentity;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.TombstoneShards;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * <p>The parameters: {@code paramKind} ConfigMap; the binding's {@code paramRef} selects the ledger's shards in the
 * tombstones namespace by label ({@link TombstoneShards}), so the policy is evaluated once per shard and a CREATE
 * is denied when any shard denies it. {@code parameterNotFoundAction: Allow} (fail-open): before the first
 * removal there is no shard, and a fail-closed binding would refuse every new Node in the cluster. A shard's
 * {@code systemuuid.*} and {@code machineid.*} keys are the indexes CEL reads (it cannot parse the JSON entries);
 * {@link TombstoneMatchCel} reads them by the Java matcher's rule (identities normalised as {@link HostIdentity}
 * does, a machineID contradicted by the systemUUIDs is no match), so NG302 and the quarantine agree on a Node.
 *
 * <p>Nodes that existed at removal are never refused. A kubelet POSTs its Node at every start and
 * patches only on AlreadyExists ({@code tryRegisterWithAPIServer} in kubernetes
 * {@code pkg/kubelet/kubelet_node_status.go}), and validating admission runs before storage finds that the Node
 * exists: the create handler passes admission as {@code createValidation}
 * ({@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go}) and {@code Store.Create} calls it before
 * {@code Storage.Create} returns AlreadyExists ({@code staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go}).
 * So a restarting kubelet on a live Node that shares a tombstoned systemUUID or machineID (a cloned VM, the other
 * half of an NG110 pair) would be refused forever and go NotReady. `remove` records the names of the live Nodes
 * sharing each identity, and the shard's {@code exempt.<index key>} lists the names exempt from it.
 */
public final class QuarantinePolicy {

    public static final String NAME = TombstoneLedger.QUARANTINE_POLICY;

    private QuarantinePolicy() {
    }

    public static ValidatingAdmissionPolicy policy() {
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
                .withVariables(variables())
                .withValidations(new ValidationBuilder()
                        .withExpression("!variables.byName && !variables.byUUID && !variables.byMachineID")
                        .withMessage("nodegate: this host was removed and is quarantined (tombstone in the ConfigMaps "
                                + TombstoneBook.CONFIGMAP + "*); run nodegate readmit NODE to let it join again")
                        .withMessageExpression("'nodegate: node ' + object.metadata.name + ' is a removed host ("
                                + "' + variables.matchedBy + ' is tombstoned as ' + variables.tombstone + ' in ConfigMap '"
                                + " + params.metadata.name + '). If it is meant to come back, run nodegate readmit '"
                                + " + variables.tombstone.split(' ')[0] + ' --yes first; otherwise clean the host"
                                + " (rke2-uninstall.sh).'")
                        .withReason("Forbidden")
                        .build())
                .endSpec()
                .build();
    }

    /** Binds the policy to every shard of the ledger in {@code namespace}, by label. */
    public static ValidatingAdmissionPolicyBinding binding(String namespace) {
        return new ValidatingAdmissionPolicyBindingBuilder()
                .withNewMetadata().withName(NAME).withLabels(GatePolicy.LABELS).endMetadata()
                .withNewSpec()
                .withPolicyName(NAME)
                .withValidationActions("Deny")
                .withNewParamRef()
                .withNamespace(namespace)
                .withNewSelector().addToMatchLabels(TombstoneShards.LABEL, TombstoneShards.LABEL_VALUE).endSelector()
                .withParameterNotFoundAction("Allow")
                .endParamRef()
                .endSpec()
                .build();
    }

    /** {@link TombstoneMatchCel}'s variables, then the tombstone's name(s) and what matched, for the message. */
    private static List<Variable> variables() {
        String uuidKey = CelLiteral.quote(TombstoneBook.SYSTEM_UUID_PREFIX);
        String midKey = CelLiteral.quote(TombstoneBook.MACHINE_ID_PREFIX);
        Map<String, String> v = new LinkedHashMap<>(TombstoneMatchCel.variables("has(params.data)"));
        // the tombstone's node name(s): the index value lists every tombstone with that ID
        v.put("tombstone", "variables.byName ? object.metadata.name"
                + " : variables.byUUID ? params.data[" + uuidKey + " + variables.systemUUID]"
                + " : variables.byMachineID ? params.data[" + midKey + " + variables.machineID]"
                + " : ''");
        v.put("matchedBy", "variables.byName ? 'name ' + object.metadata.name"
                + " : variables.byUUID ? 'systemUUID ' + variables.systemUUID"
                + " : variables.byMachineID ? 'machineID ' + variables.machineID : ''");
        return v.entrySet().stream()
                .map(e -> new VariableBuilder().withName(e.getKey()).withExpression(e.getValue()).build())
                .toList();
    }
}
