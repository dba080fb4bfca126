package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.testing.CliRun;

import java.util.List;
import java.util.Map;

/**
 * The quarantine policy and binding exactly as `nodegate policy --quarantine` prints them (parsed back from its
 * YAML), with a simulator that reviews a kubelet's registration the way kube-apiserver does.
 */
public record EmittedQuarantine(ValidatingAdmissionPolicy policy, ValidatingAdmissionPolicyBinding binding,
                                AdmissionSimulator simulator) {

    private static final List<String> KUBELET = List.of("system:nodes", "system:authenticated");

    public static EmittedQuarantine load() {
        CliRun run = CliRun.run("policy", "--quarantine");
        if (run.exitCode() != 0) {
            throw new AssertionError("nodegate policy --quarantine: " + run.all());
        }
        @SuppressWarnings("unchecked")
        List<HasMetadata> objects = (List<HasMetadata>) new KubernetesSerialization().unmarshal(run.out());
        ValidatingAdmissionPolicy policy = objects.stream().filter(ValidatingAdmissionPolicy.class::isInstance)
                .map(ValidatingAdmissionPolicy.class::cast)
                .filter(p -> p.getMetadata().getName().equals(QuarantinePolicy.NAME)).findFirst().orElseThrow();
        ValidatingAdmissionPolicyBinding binding = objects.stream()
                .filter(ValidatingAdmissionPolicyBinding.class::isInstance)
                .map(ValidatingAdmissionPolicyBinding.class::cast)
                .filter(b -> b.getMetadata().getName().equals(QuarantinePolicy.NAME)).findFirst().orElseThrow();
        return new EmittedQuarantine(policy, binding, new AdmissionSimulator(policy));
    }

    /** The kubelet's CREATE of {@code node} (JSON as sent), reviewed against these ConfigMaps (the binding selects). */
    public AdmissionSimulator.Decision registration(Map<String, Object> node, List<Map<String, Object>> configMaps) {
        return simulator.review(create(node), binding, configMaps);
    }

    /** The CREATE a registering kubelet sends for {@code node}. */
    @SuppressWarnings("unchecked")
    public static AdmissionSimulator.Request create(Map<String, Object> node) {
        Object name = ((Map<String, Object>) node.get("metadata")).get("name");
        return new AdmissionSimulator.Request("CREATE", "nodes", null, "system:node:" + name, KUBELET, node, null);
    }
}
