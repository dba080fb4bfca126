package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesListBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.util.ArrayList;
import java.util.List;

/** Everything `nodegate policy` emits or applies, in apply order, and its YAML/JSON rendering. */
public final class PolicyBundle {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private final List<HasMetadata> objects;

    private PolicyBundle(List<HasMetadata> objects) {
        this.objects = List.copyOf(objects);
    }

    public static PolicyBundle of(PolicySettings settings) {
        List<HasMetadata> objects = new ArrayList<>();
        objects.add(GatePolicy.policy(settings));
        objects.add(GatePolicy.binding());
        objects.add(HandoverCordonPolicy.policy());
        objects.add(HandoverCordonPolicy.binding());
        if (settings.quarantine()) {
            objects.add(QuarantinePolicy.policy());
            objects.add(QuarantinePolicy.binding(settings.tombstonesNamespace()));
        }
        if (settings.hold()) {
            objects.add(NewcomerHoldPolicy.policy(settings.holdEffect()));
            objects.addAll(NewcomerHoldPolicy.bindings(settings.tombstonesNamespace()));
        }
        objects.addAll(OperatorRbac.objects(settings));
        return new PolicyBundle(objects);
    }

    /** For Rancher's management cluster: the Machine policy, its binding and the operators' Role there. */
    public static PolicyBundle ofMachines(MachinePolicySettings settings) {
        List<HasMetadata> objects = new ArrayList<>();
        objects.add(MachinePolicy.policy(settings));
        objects.add(MachinePolicy.binding());
        objects.addAll(MachineRbac.objects(settings));
        return new PolicyBundle(objects);
    }

    public List<HasMetadata> objects() {
        return objects;
    }

    /** Multi-document YAML that `kubectl apply -f -` takes as is. */
    public String toYaml() {
        StringBuilder out = new StringBuilder();
        for (HasMetadata object : objects) {
            String doc = SERIALIZATION.asYaml(object);
            if (!doc.startsWith("---")) {
                out.append("---\n");
            }
            out.append(doc);
            if (!doc.endsWith("\n")) {
                out.append('\n');
            }
        }
        return out.toString();
    }

    /** A v1 List, the JSON shape kubectl uses for several objects (`kubectl apply -f` accepts it). */
    public String toJson() {
        return SERIALIZATION.asJson(new KubernetesListBuilder().withItems(objects).build()) + "\n";
    }

    public static String describe(HasMetadata object) {
        String ns = object.getMetadata().getNamespace();
        return object.getKind() + "/" + object.getMetadata().getName() + (ns == null ? "" : " -n " + ns);
    }
}
