package io.nodegate.lifecycle.gate;

import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeSystemInfo;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.nodegate.lifecycle.gate.GateDecisionTest.A11;
import static io.nodegate.lifecycle.gate.GateDecisionTest.BASE;
import static io.nodegate.lifecycle.gate.GateDecisionTest.GOOD;
import static io.nodegate.lifecycle.gate.GateDecisionTest.NOW;
import static io.nodegate.lifecycle.gate.GateDecisionTest.REQ;
import static io.nodegate.lifecycle.gate.GateDecisionTest.check;
import static org.assertj.core.api.Assertions.assertThat;

/** The gate's fleet check: the target's host, followed by machineID/systemUUID into the other clusters given. */
class GateFleetCheckTest {

    /** gpu-a11's host under another name in another cluster, with the given Ready status. */
    private static NodeInfo sameHostAs(NodeInfo target, String name, String ready, boolean sameMachineId) {
        NodeSystemInfo t = target.systemInfo();
        NodeSystemInfo info = new NodeSystemInfo("boot-b", t.systemUuid(), sameMachineId ? t.machineId() : "reinstalled",
                t.kernelVersion(), t.osImage(), t.kubeletVersion(), t.containerRuntimeVersion());
        NodeInfo ready0 = GateDecisionTest.node(name, "uid-" + name, ready, Map.of(), "boot-b", 8, "198.51.100.67",
                Map.of(), false);
        return new NodeInfo(ready0.name(), ready0.uid(), ready0.resourceVersion(), NOW.minusSeconds(3600),
                ready0.labels(), ready0.annotations(), ready0.taints(), false, null, ready0.addresses(),
                ready0.conditions(), info, ready0.capacity());
    }

    private static List<NamedView> clusterB(NodeInfo... nodes) {
        return List.of(new NamedView("cluster-b", ClusterState.builder(NOW, "live: --fleet-context cluster-b")
                .context("cluster-b").nodes(List.of(nodes)).build()));
    }

    @Test
    void withoutFleetTheCheckSaysNotCheckedAndNeverPasses() {
        GateResult r = GateDecision.decide(BASE, GOOD, REQ);

        Check fleet = check(r, "fleet");
        assertThat(fleet.outcome()).isEqualTo(Verdict.NOT_CHECKED);
        assertThat(fleet.reasons()).singleElement().asString().contains("was not checked");
        assertThat(r.verdict()).isEqualTo(Verdict.PASS); // the other checks decide; "not checked" is not a pass
    }

    @Test
    void theHostReadyInAnotherClusterFails() {
        GateResult r = GateDecision.decide(BASE, GOOD.withFleet(clusterB(sameHostAs(A11, "b-gpu-11", "True", true)),
                null), REQ);

        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(check(r, "fleet").reasons()).singleElement().asString()
                .startsWith("host now serves cluster-b as b-gpu-11 since ").contains("(Ready; same machineID)");
    }

    @Test
    void theHostSeenButNotReadyElsewhereHolds() {
        GateResult r = GateDecision.decide(BASE, GOOD.withFleet(clusterB(sameHostAs(A11, "b-gpu-11", "Unknown", false)),
                null), REQ);

        assertThat(r.verdict()).isEqualTo(Verdict.HOLD);
        assertThat(check(r, "fleet").reasons()).singleElement().asString()
                .contains("also Node b-gpu-11 in cluster-b (Ready=Unknown; same systemUUID)");
    }

    @Test
    void otherHostsElsewherePassAndAFailedReadIsInvalid() {
        NodeInfo other = GateDecisionTest.node("b-ctl-1", "uid-b", "True", Map.of(), "boot-x", 0, "198.51.100.41",
                Map.of(), false);
        GateResult clean = GateDecision.decide(BASE, GOOD.withFleet(clusterB(other), null), REQ);
        assertThat(check(clean, "fleet").outcome()).isEqualTo(Verdict.PASS);
        assertThat(check(clean, "fleet").evidence()).containsEntry("clustersChecked", "[cluster-b]");

        GateResult failed = GateDecision.decide(BASE, GOOD.withFleet(null, "fleet cluster --fleet-context cluster-b:"
                + " LIST nodes: 403 Forbidden"), REQ);
        assertThat(failed.verdict()).isEqualTo(Verdict.INVALID);
    }
}
