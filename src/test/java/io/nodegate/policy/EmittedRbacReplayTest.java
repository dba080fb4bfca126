package io.nodegate.policy;

import io.nodegate.lifecycle.readmit.ReadmitScenarioTest;
import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RbacAuthorizer;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The RBAC that `nodegate policy` emits must let the operators group run every lifecycle command. Each command
 * runs against the test API server; every request it made is then replayed through an RBAC evaluator loaded
 * with the emitted Roles. A real apiserver authorizes before it routes, so a request for an API the cluster
 * does not serve (MetalLB absent) still needs a grant, and a missing one is a 403 and exit 3 on every cluster.
 */
class EmittedRbacReplayTest extends SeededClusterTest {

    List<String> lifecycleRequests(boolean rancher) throws InterruptedException {
        CliRun saved = seedAndSaveBaseline();
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        if (rancher) {
            api.create(ReadmitScenarioTest.cattleSystem(), ReadmitScenarioTest.failedUpgraderJob());
        }
        clock.set(seed.gateTime);
        CliRun gate = cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", seed.a11Reply,
                "--annotate");
        assertThat(gate.exitCode()).as(gate.all()).isZero();
        // the garbage collector was quick: the cascade ends at the first look
        api.client().leases().inNamespace("kube-node-lease").withName("gpu-a11").delete();
        api.client().storage().v1().csiNodes().withName("gpu-a11").delete();
        api.client().secrets().inNamespace("kube-system").withName("gpu-a11.node-password.rke2").delete();
        api.client().pods().inNamespace("kube-system").withName("rke2-canal-gpu-a11").delete();
        api.client().pods().inNamespace("gpu-operator").withName("nvidia-dcgm-exporter-gpu-a11").delete();
        CliRun remove = cli("remove", "gpu-a11", "--baseline", baseline.toString());
        assertThat(remove.exitCode()).as(remove.all()).isZero();
        CliRun gone = cli("verify-gone", "--baseline", baseline.toString());
        assertThat(gone.exitCode()).as(gone.all()).isIn(0, 5);
        // readmission happens later, on the real clock the server stamps new objects with
        clock.set(Instant.now());
        CliRun readmit = cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--yes");
        assertThat(readmit.exitCode()).as(readmit.all()).isZero();
        // the host is back, so --verify --yes acts (it deletes the Failed Jobs only on an otherwise passing run)
        hostRejoins("uuid-a10");
        CliRun verify = cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--verify", "--yes");
        assertThat(verify.all()).as(verify.all()).doesNotContain("HTTP 403");
        return api.requestLog();
    }

    static List<String> denied(List<String> requests, PolicySettings settings) {
        RbacAuthorizer rbac = new RbacAuthorizer(PolicyBundle.of(settings).objects());
        return requests.stream().filter(r -> !rbac.allows(r))
                .map(r -> r + "  ->  " + RbacAuthorizer.attributes(r)).distinct().toList();
    }

    @Test
    void everyRequestOfEveryLifecycleCommandIsGrantedUnderRancher() throws InterruptedException {
        List<String> requests = lifecycleRequests(true);
        assertThat(requests).anyMatch(r -> r.startsWith("GET /apis/metallb.io/v1beta1/servicel2statuses"))
                .anyMatch(r -> r.startsWith("GET /apis/batch/v1/namespaces/cattle-system/jobs"))
                .anyMatch(r -> r.startsWith("DELETE /apis/batch/v1/namespaces/cattle-system/jobs/"))
                .anyMatch(r -> r.startsWith("PATCH /api/v1/nodes/gpu-a11"))
                .anyMatch(r -> r.startsWith("DELETE /api/v1/nodes/gpu-a11"));
        assertThat(denied(requests, PolicySettings.defaults())).isEmpty();
    }

    @Test
    void withoutRancherNothingOutsideTheNoRancherRolesIsAsked() throws InterruptedException {
        List<String> requests = lifecycleRequests(false);
        assertThat(requests).anyMatch(r -> r.startsWith("GET /api/v1/namespaces/cattle-system"))
                .noneMatch(r -> r.contains("/namespaces/cattle-system/jobs"));
        PolicySettings noRancher = new PolicySettings(PolicySettings.DEFAULT_OPERATORS_GROUP,
                PolicySettings.DEFAULT_BREAK_GLASS_GROUP, false, List.of());
        assertThat(denied(requests, noRancher)).isEmpty();
    }

    @Test
    void theEvaluatorDeniesWhatNoRuleGrants() {
        RbacAuthorizer rbac = new RbacAuthorizer(PolicyBundle.of(PolicySettings.defaults()).objects());
        assertThat(rbac.allows("GET /api/v1/namespaces/kube-system/configmaps?limit=500")).isFalse();
        assertThat(rbac.allows("GET /api/v1/namespaces/kube-system/secrets?limit=500")).isTrue();
        assertThat(rbac.allows("GET /api/v1/namespaces/default/secrets?limit=500")).isFalse();
        assertThat(rbac.allows("GET /api/v1/namespaces/cattle-system")).isTrue();
        assertThat(rbac.allows("GET /api/v1/namespaces/kube-system")).isFalse();
        assertThat(rbac.allows("PATCH /api/v1/nodes/gpu-a11/status")).isFalse();
        assertThat(rbac.allows("GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x")).isFalse();
        assertThat(rbac.allows("GET /version")).isTrue();
    }
}
