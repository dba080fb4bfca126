package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static io.nodegate.testing.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

class PolicyBundleTest {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    @SuppressWarnings("unchecked")
    static List<HasMetadata> parseYaml(String yaml) {
        return (List<HasMetadata>) (Object) SERIALIZATION.unmarshal(yaml);
    }

    @Test
    void yamlParsesIntoTypedObjectsInApplyOrder() {
        CliRun run = run("policy");
        assertThat(run.exitCode()).isZero();
        List<HasMetadata> objects = parseYaml(run.out());
        assertThat(objects).extracting(o -> o.getClass().getSimpleName()).containsExactly(
                "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
                "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
                "ClusterRole", "ClusterRoleBinding",
                "Role", "RoleBinding", "Role", "RoleBinding", "Role", "RoleBinding",
                "Namespace", "Role", "RoleBinding", "Role", "RoleBinding");

        ValidatingAdmissionPolicy policy = (ValidatingAdmissionPolicy) objects.get(0);
        assertThat(policy.getApiVersion()).isEqualTo("admissionregistration.k8s.io/v1");
        assertThat(policy.getSpec().getFailurePolicy()).isEqualTo("Fail");
        assertThat(policy.getSpec().getValidations()).hasSize(2)
                .allSatisfy(v -> assertThat(v.getReason()).isEqualTo("Forbidden"))
                .allSatisfy(v -> assertThat(v.getMessage()).startsWith("nodegate: "));
        assertThat(policy.getSpec().getMatchConstraints().getResourceRules()).singleElement().satisfies(rule -> {
            assertThat(rule.getResources()).containsExactly("nodes", "nodes/status");
            assertThat(rule.getOperations()).containsExactly("CREATE", "UPDATE", "DELETE");
        });

        ValidatingAdmissionPolicyBinding binding = (ValidatingAdmissionPolicyBinding) objects.get(1);
        assertThat(binding.getSpec().getPolicyName()).isEqualTo(policy.getMetadata().getName());
        assertThat(binding.getSpec().getValidationActions()).containsExactly("Deny");
        assertThat(binding.getSpec().getParamRef()).isNull();
    }

    @Test
    void jsonIsAV1ListWithTheSameObjects() {
        CliRun run = run("policy", "-o", "json");
        assertThat(run.exitCode()).isZero();
        KubernetesList list = SERIALIZATION.unmarshal(run.out(), KubernetesList.class);
        assertThat(list.getItems()).extracting(o -> o.getKind() + "/" + o.getMetadata().getName())
                .containsExactlyElementsOf(parseYaml(run("policy").out()).stream()
                        .map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList());
        assertThat(list.getItems().get(0)).isInstanceOf(ValidatingAdmissionPolicy.class);
    }

    @Test
    void rbacGrantsExactlyWhatNodegateUsesAndNothingWild() {
        List<HasMetadata> objects = PolicyBundle.of(PolicySettings.defaults()).objects();

        assertThat(grants(objects)).isEqualTo(new TreeMap<>(Map.ofEntries(
                Map.entry("* /version", "get"),
                // rejoin-risk and verify-gone read whether the quarantine is in force, by name only
                Map.entry("* admissionregistration.k8s.io/validatingadmissionpolicies[nodegate-node-quarantine]", "get"),
                Map.entry("* admissionregistration.k8s.io/validatingadmissionpolicybindings[nodegate-node-quarantine]",
                        "get"),
                Map.entry("* apps/daemonsets", "list"),
                Map.entry("* core/namespaces[cattle-system]", "get"),
                Map.entry("* core/nodes", "delete,get,list,patch"),
                Map.entry("* core/pods", "list"),
                Map.entry("* metallb.io/servicel2statuses", "list"),
                // audit and collect list the open hand-overs (NG171): a cordon one names is explained
                Map.entry("* nodegate.io/nodehandovers", "list"),
                Map.entry("* storage.k8s.io/csinodes", "get,list"),
                Map.entry("cattle-system batch/jobs", "delete,get,list"),
                Map.entry("default discovery.k8s.io/endpointslices", "list"),
                Map.entry("kube-node-lease coordination.k8s.io/leases", "get,list"),
                Map.entry("kube-system coordination.k8s.io/leases", "list"),
                Map.entry("kube-system core/secrets", "delete,get,list"),
                // the tombstones `remove` records and `readmit` releases: get/update by the ledger's shard names
                // (nodegate-tombstones, nodegate-tombstones-1 .. -15), create unnamed
                Map.entry("nodegate-system core/configmaps", "create,list"),
                Map.entry("nodegate-system core/configmaps[" + String.join(",",
                        new java.util.TreeSet<>(io.nodegate.model.TombstoneShards.names())) + "]", "get,update"))));
        assertThat(io.nodegate.model.TombstoneShards.names()).hasSize(16)
                .startsWith("nodegate-tombstones", "nodegate-tombstones-1").endsWith("nodegate-tombstones-15");
    }

    @Test
    void quarantineAddsItsPolicyAndBindingAfterTheGatesAndTheTombstonesNamespaceFollowsNamespace() {
        List<HasMetadata> objects = parseYaml(run("policy", "--quarantine", "--namespace", "ops-nodegate").out());
        assertThat(objects).extracting(o -> o.getKind() + "/" + o.getMetadata().getName()).startsWith(
                "ValidatingAdmissionPolicy/nodegate-node-gate", "ValidatingAdmissionPolicyBinding/nodegate-node-gate",
                "ValidatingAdmissionPolicy/nodegate-handover-cordon",
                "ValidatingAdmissionPolicyBinding/nodegate-handover-cordon",
                "ValidatingAdmissionPolicy/nodegate-node-quarantine",
                "ValidatingAdmissionPolicyBinding/nodegate-node-quarantine");
        var binding = (io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding)
                objects.get(5);
        assertThat(binding.getSpec().getParamRef().getNamespace()).isEqualTo("ops-nodegate");
        // the shards are selected by label: the policy is evaluated once per shard (see TombstoneShards)
        assertThat(binding.getSpec().getParamRef().getName()).isNull();
        assertThat(binding.getSpec().getParamRef().getSelector().getMatchLabels())
                .containsExactly(Map.entry("nodegate.io/ledger", "tombstones"));
        assertThat(objects).anyMatch(o -> o.getKind().equals("Namespace") && o.getMetadata().getName().equals("ops-nodegate"));
        assertThat(objects).anyMatch(o -> o.getKind().equals("Role") && "ops-nodegate".equals(o.getMetadata().getNamespace()));
        assertThat(objects).noneMatch(o -> "nodegate-system".equals(o.getMetadata().getNamespace()));

        CliRun bad = run("policy", "--namespace", "Not_A_Namespace");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--namespace 'Not_A_Namespace' is not a valid namespace name");
    }

    @Test
    void everyBindingNamesOnlyTheOperatorsGroupAndItsOwnRole() {
        List<HasMetadata> objects = PolicyBundle.of(new PolicySettings("platform:node-ops", "sre:oncall", true,
                List.of())).objects();
        for (HasMetadata o : objects) {
            if (o instanceof ClusterRoleBinding crb) {
                assertThat(crb.getSubjects()).singleElement().satisfies(s -> {
                    assertThat(s.getKind()).isEqualTo("Group");
                    assertThat(s.getName()).isEqualTo("platform:node-ops");
                });
                assertThat(crb.getRoleRef().getName()).isEqualTo(OperatorRbac.NAME);
            }
            if (o instanceof RoleBinding rb) {
                assertThat(rb.getSubjects()).singleElement()
                        .satisfies(s -> assertThat(s.getName()).isEqualTo("platform:node-ops"));
                assertThat(rb.getRoleRef().getKind()).isEqualTo("Role");
            }
        }
    }

    @Test
    void noRancherLeavesOutCattleSystem() {
        List<HasMetadata> objects = parseYaml(run("policy", "--no-rancher").out());
        assertThat(objects).noneMatch(o -> "cattle-system".equals(o.getMetadata().getNamespace()));
        assertThat(grants(objects)).doesNotContainKey("cattle-system batch/jobs")
                .containsKey("kube-system core/secrets");
    }

    @Test
    void nodePasswordSecretNarrowsDeleteToExactNames() {
        List<HasMetadata> objects = parseYaml(run("policy", "--node-password-secret", "worker-7.node-password.rke2",
                "--node-password-secret", "worker-9.node-password.rke2").out());
        assertThat(grants(objects))
                .containsEntry("kube-system core/secrets", "get,list")
                .containsEntry("kube-system core/secrets[worker-7.node-password.rke2,worker-9.node-password.rke2]",
                        "delete");
    }

    @Test
    void badInputIsRejectedWithExitTwoAndNamesTheFlag() {
        CliRun empty = run("policy", "--operators-group", " ");
        assertThat(empty.exitCode()).isEqualTo(2);
        assertThat(empty.err()).contains("--operators-group");
        assertThat(empty.out()).isEmpty();

        CliRun same = run("policy", "--operators-group", "ops", "--break-glass-group", "ops");
        assertThat(same.exitCode()).isEqualTo(2);
        assertThat(same.err()).contains("must differ");

        CliRun badSecret = run("policy", "--node-password-secret", "Worker_7");
        assertThat(badSecret.exitCode()).isEqualTo(2);
        assertThat(badSecret.err()).contains("Worker_7");

        CliRun offlineApply = run("policy", "--apply", "-f", "dump.json");
        assertThat(offlineApply.exitCode()).isEqualTo(2);
        assertThat(offlineApply.err()).contains("Unknown options: '-f'");

        // table lists the objects (every command takes table|wide|json|yaml); junit is audit's alone
        assertThat(run("policy", "-o", "junit").exitCode()).isEqualTo(2);
    }

    @Test
    void helpTeachesDefaultsAndExamples() {
        CliRun help = run("policy", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("default: nodegate:operators").contains("default: nodegate:break-glass")
                .contains("kubectl apply -f").contains("nodes/status");
    }

    /** "namespace group/resource[names]" -> sorted verbs; namespace "*" for cluster-wide grants. */
    static Map<String, String> grants(List<HasMetadata> objects) {
        Map<String, String> out = new TreeMap<>();
        for (HasMetadata o : objects) {
            List<PolicyRule> rules;
            String scope;
            if (o instanceof ClusterRole cr) {
                rules = cr.getRules();
                scope = "*";
            } else if (o instanceof Role r) {
                rules = r.getRules();
                scope = r.getMetadata().getNamespace();
            } else {
                continue;
            }
            for (PolicyRule rule : rules) {
                assertThat(rule.getVerbs()).doesNotContain("*");
                String verbs = String.join(",", new TreeSet<>(rule.getVerbs()));
                if (!rule.getNonResourceURLs().isEmpty()) {
                    rule.getNonResourceURLs().forEach(u -> out.put(scope + " " + u, verbs));
                    continue;
                }
                assertThat(rule.getApiGroups()).doesNotContain("*");
                assertThat(rule.getResources()).doesNotContain("*");
                for (String group : rule.getApiGroups()) {
                    for (String resource : rule.getResources()) {
                        String names = rule.getResourceNames().isEmpty() ? ""
                                : rule.getResourceNames().stream().sorted().collect(Collectors.joining(",", "[", "]"));
                        String key = scope + " " + (group.isEmpty() ? "core" : group) + "/" + resource + names;
                        assertThat(out).as("duplicate grant %s", key).doesNotContainKey(key);
                        out.put(key, verbs);
                    }
                }
            }
        }
        return out;
    }
}
