package io.nodegate.lab;

import io.nodegate.testing.CliRun;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code nodegate policy --apply} on a real kube-apiserver returns only once the apiserver enforces the gate: the
 * apiserver takes a new policy and binding into force through its informers, after the apply is answered (a DELETE
 * sent right after {@code kubectl apply} went through, docs/lab.md). So the very next request after the command is
 * refused.
 */
@ExtendWith(RealControlPlane.Resolver.class)
class PolicyApplyOnRealApiServerTest {

    private static RealControlPlane lab;

    @BeforeAll
    static void lab(RealControlPlane controlPlane) {
        lab = controlPlane;
    }

    @AfterAll
    static void removeTheGate() {
        if (lab != null) {
            lab.kubectl(null, "delete", "--ignore-not-found", "validatingadmissionpolicybinding", "nodegate-node-gate");
            lab.kubectl(null, "delete", "--ignore-not-found", "validatingadmissionpolicy", "nodegate-node-gate");
        }
    }

    @Test
    void applyReturnsOnceTheApiServerEnforcesTheGateAndSaysSo() {
        assertThat(lab.kubectl(null, "get", "validatingadmissionpolicybinding", "nodegate-node-gate").output())
                .as("no gate before the apply").contains("NotFound");
        CliRun apply = CliRun.run("policy", "--apply", "--no-rancher", "--kubeconfig", lab.kubeconfig().toString(),
                "--context", "admin");
        assertThat(apply.exitCode()).as(apply.all()).isZero();
        assertThat(apply.err()).containsPattern("enforced: the apiserver refuses with nodegate-node-gate \\(a "
                + "server-side dry run, after [0-9]+ ms\\)");
        // the next request: a Node with a nodegate.io annotation from the admin, who is no operator
        RealControlPlane.Result next = lab.kubectl(LabNodes.probe("t-apply-probe")
                .replace("metadata:\n", "metadata:\n  annotations: {nodegate.io/gate-verdict: PASS}\n"),
                "create", "--dry-run=server", "-f", "-");
        assertThat(next.code()).as(next.output()).isNotZero();
        assertThat(next.output()).contains("ValidatingAdmissionPolicy 'nodegate-node-gate'")
                .contains("nodegate: only members of nodegate:operators may add, change or remove");
    }
}
