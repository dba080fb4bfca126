package io.nodegate.lab;

import io.nodegate.testing.Await;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Machine policy ({@code nodegate policy --machines}, docs/policy.md "Rancher custom clusters") on a real
 * kube-apiserver, against Cluster API's own Machine CRD: {@code config/crd/bases/cluster.x-k8s.io_machines.yaml} of
 * the sigs.k8s.io/cluster-api Go module at the release {@code bin/lab capi-crd} pins (v1.11.3: v1beta2 stored,
 * v1beta1 served; without Cluster API's conversion webhook, which the lab does not run, so the Machines here are
 * written as v1beta2, the stored version). The Machines are shaped as Rancher's custom-node Machines (rancher/rancher
 * pkg/controllers/capr/unmanaged/controller.go: infrastructureRef CustomMachine in rke.cattle.io, in fleet-default).
 */
@ExtendWith(RealControlPlane.Resolver.class)
class MachinePolicyOnRealApiServerTest {

    private static final String NS = "fleet-default";
    private static final String OPERATOR_AS = "--as=lab-operator";
    private static final String OPERATORS_GROUP = "--as-group=nodegate:operators";
    private static final String[] BREAK_GLASS = {"--as=lab-admin", "--as-group=system:masters",
            "--as-group=nodegate:break-glass"};
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static RealControlPlane lab;
    private static String printed;

    @BeforeAll
    static void applyCrdAndPolicy(RealControlPlane controlPlane) {
        lab = controlPlane;
        Path crd = lab.capiCrd("machines");
        lab.kubectl(null, "apply", "--server-side", "-f", crd.toString()).requireOk("apply Cluster API's Machine CRD");
        // (kubectl wait fails at once while the CRD has no conditions yet)
        Await.until("the Machine CRD established", Duration.ofSeconds(60), () -> lab.kubectl(null, "get", "crd",
                "machines.cluster.x-k8s.io", "-o", "jsonpath={.status.conditions[?(@.type==\"Established\")].status}")
                .output().equals("True"));
        lab.kubectl(null, "create", "namespace", NS);
        CliRun policy = CliRun.run("policy", "--machines");
        assertThat(policy.exitCode()).as(policy.all()).isZero();
        printed = policy.out();
        lab.kubectl(printed, "apply", "-f", "-").requireOk("kubectl apply of nodegate policy --machines");
        // in force only once the apiserver's informers have it: wait for a refused server-side dry run
        createMachine("t-machine-probe", "rke.cattle.io", "CustomMachine");
        Await.until("the Machine policy enforced", Duration.ofSeconds(30), () -> lab.kubectl(null, "delete",
                "machines.cluster.x-k8s.io", "-n", NS, "t-machine-probe", "--dry-run=server").output()
                .contains("ValidatingAdmissionPolicy 'nodegate-machine-gate'"));
    }

    @AfterAll
    static void removePolicyAndCrd() {
        if (lab != null) {
            lab.kubectl(null, "delete", "--ignore-not-found", "validatingadmissionpolicybinding", "nodegate-machine-gate");
            lab.kubectl(null, "delete", "--ignore-not-found", "validatingadmissionpolicy", "nodegate-machine-gate");
            lab.kubectl(null, "delete", "--ignore-not-found", "crd", "machines.cluster.x-k8s.io", "--wait=false");
        }
    }

    static void createMachine(String name, String infraGroup, String infraKind) {
        lab.kubectl("""
                apiVersion: cluster.x-k8s.io/v1beta2
                kind: Machine
                metadata:
                  name: %s
                  namespace: %s
                  labels: {cluster.x-k8s.io/cluster-name: prod-gpu}
                spec:
                  clusterName: prod-gpu
                  bootstrap: {dataSecretName: %s-machine-bootstrap}
                  infrastructureRef: {apiGroup: %s, kind: %s, name: %s}
                """.formatted(name, NS, name, infraGroup, infraKind, name), "create", "-f", "-")
                .requireOk("create Machine " + name);
    }

    /** What Cluster API's Machine controller writes once the Node is there (v1beta2 status), and NodeHealthy False. */
    static void setStatus(String name, String node, String bootId, Instant unhealthySince) {
        String status = """
                {"status": {"nodeRef": {"name": "%s"},
                  "nodeInfo": {"architecture": "amd64", "bootID": "%s", "containerRuntimeVersion": "containerd://2.0.5-k3s1",
                    "kernelVersion": "6.8.0-60-generic", "kubeProxyVersion": "", "kubeletVersion": "v1.34.4+rke2r1",
                    "machineID": "0d9ba3f2e1c84b7aa1c3f4e5d6a7b8c9", "operatingSystem": "linux",
                    "osImage": "Ubuntu 24.04.2 LTS", "systemUUID": "4c4c4544-0042-3310-8052-b4c04f4e4d32"},
                  "conditions": [{"type": "NodeHealthy", "status": "False", "reason": "NodeNotReady",
                    "message": "Node is not ready", "lastTransitionTime": "%s"}]}}
                """.formatted(node, bootId, unhealthySince.truncatedTo(ChronoUnit.SECONDS));
        lab.kubectl(null, "patch", "machines.cluster.x-k8s.io", "-n", NS, name, "--subresource=status",
                "--type=merge", "-p", status).requireOk("status of Machine " + name);
    }

    private static RealControlPlane.Result delete(String name, String... as) {
        String[] args = new String[6 + as.length];
        System.arraycopy(new String[]{"delete", "machines.cluster.x-k8s.io", "-n", NS, name, "--wait=false"}, 0, args, 0, 6);
        System.arraycopy(as, 0, args, 6, as.length);
        return lab.kubectl(null, args);
    }

    private static String uid(String name) {
        return lab.kubectl(null, "get", "machines.cluster.x-k8s.io", "-n", NS, name, "-o", "jsonpath={.metadata.uid}")
                .requireOk("uid of " + name).output();
    }

    private static boolean gone(String name) {
        return lab.kubectl(null, "get", "machines.cluster.x-k8s.io", "-n", NS, name).output().contains("NotFound");
    }

    @Test
    void acceptedAndEveryExpressionTypeChecksAgainstBothServedSchemas() {
        JsonNode applied = JSON.readTree(lab.kubectl(null, "get", "validatingadmissionpolicy", "nodegate-machine-gate",
                "-o", "json").requireOk("get the policy").output());
        // The policy's own type check: with apiVersions ["*"] the apiserver checks nothing (see PolicyTypeCheck), so
        // this only says it holds no warning...
        assertThat(applied.path("status").path("typeChecking").path("expressionWarnings")).isEmpty();
        // ...and the typed copy is what proves the expressions against v1beta1's and v1beta2's schemas.
        assertThat(PolicyTypeCheck.warnings(lab, applied, "t-typed-machine-gate", List.of("v1beta1", "v1beta2")))
                .as("warnings of the typed copy").isEmpty();
    }

    @Test
    void refusesACustomMachinesDeleteWithoutAPassAndNamesTheGateCommand() {
        String m = "custom-4b2f0c1d9e8a";
        createMachine(m, "rke.cattle.io", "CustomMachine");
        RealControlPlane.Result refused = delete(m);
        assertThat(refused.code()).as(refused.output()).isNotZero();
        assertThat(refused.output()).contains("ValidatingAdmissionPolicy 'nodegate-machine-gate'")
                .contains("nodegate: Machine " + NS + "/" + m + " may not be deleted: annotation "
                        + "nodegate.io/gate-verdict is missing, it must be PASS. Clean up the host, then run: nodegate "
                        + "gate NODE --baseline FILE --machine-context RANCHER --machine-cluster prod-gpu --annotate. In "
                        + "an emergency a member of nodegate:break-glass can delete it.");
        delete(m, BREAK_GLASS).requireOk("break-glass delete of " + m);
        assertThat(gone(m)).isTrue();
    }

    @Test
    void leavesMachinesThatAreNotRancherCustomNodesAlone() {
        String m = "pool1-7d9f8c-x2k4q";
        createMachine(m, "rke-machine.cattle.io", "VmwarevsphereMachine");
        lab.kubectl(null, "annotate", "machines.cluster.x-k8s.io", "-n", NS, m, "nodegate.io/gate-verdict=HOLD")
                .requireOk("a non-operator's annotation on a node-driver Machine");
        delete(m).requireOk("delete of a node-driver Machine");
        assertThat(gone(m)).isTrue();
    }

    @Test
    void onlyOperatorsWriteTheGatesAnnotationsAndABoundPassAdmitsTheDelete() {
        String m = "custom-9a1e77b2c3d4";
        String node = "gpu-a11";
        String bootId = "0f2a4c1e-5d6b-4e8f-9a7c-3b2d1e0f4a5c";
        createMachine(m, "rke.cattle.io", "CustomMachine");
        setStatus(m, node, bootId, Instant.now().minusSeconds(600));
        String gateAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        String[] pass = {"nodegate.io/gate-verdict=PASS", "nodegate.io/gate-uid=" + uid(m),
                "nodegate.io/gate-node-name=" + node, "nodegate.io/gate-boot-id=" + bootId, "nodegate.io/gate-at=" + gateAt};

        RealControlPlane.Result notOperator = lab.kubectl(null, concat(new String[]{"annotate",
                "machines.cluster.x-k8s.io", "-n", NS, m}, pass));
        assertThat(notOperator.code()).as(notOperator.output()).isNotZero();
        assertThat(notOperator.output()).contains("nodegate: only members of nodegate:operators may add, change or remove");

        // a PASS given while the Machine pointed at another Node is refused
        lab.kubectl(null, concat(new String[]{"annotate", "machines.cluster.x-k8s.io", "-n", NS, m, OPERATOR_AS,
                OPERATORS_GROUP}, new String[]{"nodegate.io/gate-verdict=PASS", "nodegate.io/gate-uid=" + uid(m),
                "nodegate.io/gate-node-name=gpu-a12", "nodegate.io/gate-boot-id=" + bootId, "nodegate.io/gate-at=" + gateAt}))
                .requireOk("annotate as an operator");
        RealControlPlane.Result otherNode = delete(m);
        assertThat(otherNode.code()).as(otherNode.output()).isNotZero();
        assertThat(otherNode.output()).contains("its PASS was given while it pointed at another Node (gpu-a12); it "
                + "now points at Node " + node + ".");

        lab.kubectl(null, concat(new String[]{"annotate", "--overwrite", "machines.cluster.x-k8s.io", "-n", NS, m,
                OPERATOR_AS, OPERATORS_GROUP}, pass)).requireOk("annotate as an operator");
        delete(m).requireOk("delete with a bound PASS");
        assertThat(gone(m)).isTrue();
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
