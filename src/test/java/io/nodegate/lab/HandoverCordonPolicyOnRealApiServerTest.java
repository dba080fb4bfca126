package io.nodegate.lab;

import io.nodegate.policy.HandoverCordonPolicy;
import io.nodegate.testing.Await;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hand-over cordon policy that {@code nodegate policy} prints, on a real kube-apiserver with the NodeHandover
 * CRD installed: the apiserver collects every NodeHandover as a parameter and refuses a real {@code kubectl uncordon}
 * of an open hand-over's node, and lets through the uncordon that names the hand-over. It also shows the field
 * manager a real {@code kubectl cordon} is recorded under in the Node's managedFields, which NG171 reports.
 */
@ExtendWith(RealControlPlane.Resolver.class)
class HandoverCordonPolicyOnRealApiServerTest {

    private static final String NODE = "t-hco-1";
    private static final String HANDOVER = "hco-to-b";
    private static RealControlPlane lab;

    @BeforeAll
    static void apply(RealControlPlane controlPlane) {
        lab = controlPlane;
        CliRun crds = CliRun.run("install", "--crds-only");
        assertThat(crds.exitCode()).as(crds.all()).isZero();
        lab.kubectl(crds.out(), "apply", "-f", "-").requireOk("kubectl apply of install --crds-only");
        lab.kubectl(null, "wait", "--for=condition=Established", "--timeout=30s", "crd/nodehandovers.nodegate.io")
                .requireOk("the CRD established");
        CliRun policy = CliRun.run("policy", "--no-rancher");
        assertThat(policy.exitCode()).as(policy.all()).isZero();
        // only this policy and its binding: the gate's are other classes' to apply and remove
        String ours = Arrays.stream(policy.out().split("(?m)^---\\n"))
                .filter(doc -> doc.contains("name: \"" + HandoverCordonPolicy.NAME + "\""))
                .map(doc -> "---\n" + doc).collect(Collectors.joining());
        assertThat(ours).contains("kind: \"ValidatingAdmissionPolicy\"", "kind: \"ValidatingAdmissionPolicyBinding\"");
        lab.kubectl(ours, "apply", "-f", "-").requireOk("kubectl apply of the hand-over cordon policy");
        lab.kubectl(LabNodes.probe(NODE), "create", "-f", "-")
                .requireOk("create Node " + NODE);
        lab.kubectl("""
                apiVersion: nodegate.io/v1alpha1
                kind: NodeHandover
                metadata:
                  name: %s
                spec:
                  nodes: [%s]
                  type: move
                  destination: {cluster: cluster-b}
                  due: "2027-11-05"
                  requester: lee
                  steps:
                  - {step: 0, by: lee, at: "2026-10-20T09:00:00Z", message: request}
                """.formatted(HANDOVER, NODE), "apply", "-f", "-").requireOk("create the NodeHandover");
    }

    @AfterAll
    static void cleanUp() {
        if (lab != null) {
            lab.kubectl(null, "delete", "--ignore-not-found", "validatingadmissionpolicybinding", HandoverCordonPolicy.NAME);
            lab.kubectl(null, "delete", "--ignore-not-found", "validatingadmissionpolicy", HandoverCordonPolicy.NAME);
            lab.kubectl(null, "delete", "--ignore-not-found", "nodehandover", HANDOVER);
            lab.kubectl(null, "delete", "--ignore-not-found", "node", NODE, "--as=lab-admin",
                    "--as-group=system:masters", "--as-group=nodegate:break-glass");
        }
    }

    @Test
    void kubectlUncordonOfAnOpenHandoversNodeIsRefusedUnlessItNamesTheHandover() {
        lab.kubectl(null, "cordon", NODE).requireOk("kubectl cordon");

        // who cordoned it, as the apiserver recorded it: kubectl sends no field manager, so its User-Agent names it
        JsonNode node = JsonMapper.builder().build().readTree(lab.kubectl(null, "get", "node", NODE, "-o", "json",
                "--show-managed-fields").requireOk("get the Node with its managedFields").output());
        JsonNode owner = null;
        for (JsonNode e : node.path("metadata").path("managedFields")) {
            if (e.path("fieldsV1").path("f:spec").has("f:unschedulable")) {
                owner = e;
            }
        }
        assertThat(owner).as(node.path("metadata").path("managedFields").toString()).isNotNull();
        assertThat(owner.path("manager").asString()).isEqualTo("kubectl");
        assertThat(owner.path("operation").asString()).isEqualTo("Update");

        // the apiserver enforces a new binding once its informers have it and the NodeHandover
        Await.until("the hand-over cordon policy enforced", Duration.ofSeconds(30), () -> lab.kubectl(null,
                "uncordon", NODE, "--dry-run=server").output().contains(HandoverCordonPolicy.NAME));
        // kubectl uncordon prints the refusal and still exits 0 (it reports per node): read its words and the Node
        RealControlPlane.Result refused = lab.kubectl(null, "uncordon", NODE);
        assertThat(lab.kubectl(null, "get", "node", NODE, "-o", "jsonpath={.spec.unschedulable}").output())
                .as(refused.output()).isEqualTo("true");
        assertThat(refused.output()).contains("nodegate: node " + NODE + " is part of the open hand-over " + HANDOVER,
                "nodegate.io/uncordon-reason=" + HANDOVER);

        lab.kubectl(null, "patch", "node", NODE, "-p", "{\"spec\":{\"unschedulable\":null},\"metadata\":{\"annotations\""
                + ":{\"nodegate.io/uncordon-reason\":\"" + HANDOVER + ": lab check\"}}}")
                .requireOk("an uncordon that names the hand-over");
        assertThat(lab.kubectl(null, "get", "node", NODE, "-o", "jsonpath={.spec.unschedulable}").output()).isEmpty();

        // a label change of a cordoned node is not an uncordon: not matched
        lab.kubectl(null, "cordon", NODE).requireOk("cordon again");
        lab.kubectl(null, "label", "node", NODE, "example.com/rack=r12").requireOk("label a cordoned target");
    }
}
