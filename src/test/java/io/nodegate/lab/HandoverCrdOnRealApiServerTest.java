package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.nodegate.testing.Await;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The NodeHandover CRD that {@code nodegate install --crds-only} prints, on a real kube-apiserver: its structural
 * schema and CEL rules (with their cost estimates) are accepted, {@code kubectl get} shows its printer columns, and
 * the apiserver itself refuses a rewritten step with the rule's message.
 */
@ExtendWith(RealControlPlane.Resolver.class)
class HandoverCrdOnRealApiServerTest {

    private static final ResourceDefinitionContext HANDOVERS = new ResourceDefinitionContext.Builder()
            .withGroup("nodegate.io").withVersion("v1alpha1").withKind("NodeHandover").withPlural("nodehandovers")
            .withNamespaced(false).build();

    private static RealControlPlane lab;
    private static String crd;

    @BeforeAll
    static void applyCrd(RealControlPlane controlPlane) {
        lab = controlPlane;
        CliRun crds = CliRun.run("install", "--crds-only");
        assertThat(crds.exitCode()).as(crds.all()).isZero();
        crd = crds.out();
        lab.kubectl(crd, "apply", "-f", "-").requireOk("kubectl apply of install --crds-only");
        lab.kubectl(null, "wait", "--for=condition=Established", "--timeout=30s", "crd/nodehandovers.nodegate.io")
                .requireOk("the CRD established");
    }

    @AfterAll
    static void cleanUp() {
        if (lab != null) {
            lab.kubectl(null, "delete", "--ignore-not-found", "nodehandovers", "--all");
        }
    }

    private static final String HANDOVER = """
            apiVersion: nodegate.io/v1alpha1
            kind: NodeHandover
            metadata:
              name: a-to-b
            spec:
              nodes: [t-agent-1]
              type: move
              destination: {cluster: cluster-b}
              due: "2026-11-05"
              requester: lee
              steps:
              - {step: 0, by: lee, at: "2026-10-20T09:00:00Z", message: request}
            """;

    @Test
    void kubectlGetShowsThePrinterColumnsAndARewrittenStepIsRefusedWith422() {
        lab.kubectl(HANDOVER, "apply", "-f", "-").requireOk("create a NodeHandover");

        // The default columns: Name, then every column without a priority, in the CRD's order.
        String table = lab.kubectl(null, "get", "nodehandovers").requireOk("kubectl get nodehandovers").output();
        List<String> header = Arrays.asList(table.lines().findFirst().orElseThrow().trim().split("\\s{2,}"));
        assertThat(header).containsExactly("NAME", "STEP", "NODES", "DESTINATION", "DUE", "VIOLATIONS", "AGE");
        String row = table.lines().filter(l -> l.startsWith("a-to-b ")).findFirst().orElseThrow();
        assertThat(row.split("\\s{2,}")).contains("[\"t-agent-1\"]", "cluster-b", "2026-11-05");
        String wide = lab.kubectl(null, "get", "nodehandovers", "-o", "wide").requireOk("-o wide").output();
        assertThat(wide.lines().findFirst().orElseThrow()).contains("NEXT").contains("PHASE");

        try (KubernetesClient admin = lab.client("admin")) {
            KubernetesClientException refused = catchThrowableOfType(KubernetesClientException.class, () ->
                    admin.genericKubernetesResources(HANDOVERS).withName("a-to-b").edit(h -> rewriteStepZero(h)));
            assertThat(refused).as("rewriting a recorded step").isNotNull();
            assertThat(refused.getCode()).isEqualTo(422);
            assertThat(refused.getMessage()).contains("a recorded step cannot be changed");
        }
        Await.until("the step unchanged", Duration.ofSeconds(5), () -> lab.kubectl(null, "get", "nodehandover", "a-to-b",
                "-o", "jsonpath={.spec.steps[0].by}").output().equals("lee"));
    }

    @SuppressWarnings("unchecked")
    private static GenericKubernetesResource rewriteStepZero(GenericKubernetesResource h) {
        Map<String, Object> spec = (Map<String, Object>) h.getAdditionalProperties().get("spec");
        List<Map<String, Object>> steps = (List<Map<String, Object>>) spec.get("steps");
        steps.get(0).put("by", "mallory");
        return h;
    }
}
