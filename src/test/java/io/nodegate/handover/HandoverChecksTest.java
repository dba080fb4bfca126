package io.nodegate.handover;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Taint;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.nodegate.handover.Fixtures.NOW;
import static io.nodegate.handover.Fixtures.T0;
import static io.nodegate.handover.Fixtures.ev;
import static io.nodegate.handover.Fixtures.giving;
import static io.nodegate.handover.Fixtures.gpuA07;
import static io.nodegate.handover.Fixtures.handover;
import static io.nodegate.handover.Fixtures.node;
import static io.nodegate.handover.Fixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

/** What nodegate checks at steps 3 and 5, where the machine can see the most, with the near misses. */
class HandoverChecksTest {

    private static final NodeInfo A07 = gpuA07("Unknown", true);
    private static final Instant GATED = Instant.parse("2026-10-26T06:55:00Z");
    private static final Instant DELETED = Instant.parse("2026-10-26T06:57:10Z");
    private static final Instant ARRIVED = Instant.parse("2026-10-27T02:00:00Z");

    private static NodeHandover upTo4() {
        return handover(List.of(A07), step(0, "lee", T0), step(1, "kim", T0), step(2, "p", T0,
                ev("removedAt/gpu-a07", "2026-10-26T06:09:00Z")), step(3, "kim", GATED), step(4, "p", GATED,
                ev("newName/gpu-a07", "b-gpu-07"), ev("newIP/gpu-a07", "198.51.100.67")));
    }

    private static HandoverReading.GateSeen gate(String verdict, String uid, boolean etcd) {
        return new HandoverReading.GateSeen("gpu-a07", verdict, GATED, "/e/gate-gpu-a07.json", "ab12", uid,
                List.of("because"), Instant.parse("2026-10-26T06:07:56Z"), Instant.parse("2026-10-26T06:09:00Z"), etcd);
    }

    private static HandoverReading.Evidence evidence(HandoverReading.GateSeen g, Instant... verifyGone) {
        return evidence(g, "cluster-b", verifyGone);
    }

    private static HandoverReading.Evidence evidence(HandoverReading.GateSeen g, String handedTo,
                                                     Instant... verifyGone) {
        return new HandoverReading.Evidence("/e", g == null ? Map.of() : Map.of("gpu-a07", g), Map.of("gpu-a07",
                new HandoverReading.RemovalSeen("gpu-a07", "complete", DELETED.minusSeconds(5), DELETED, "gate PASS",
                        null, "uid-a07", "/e/remove-gpu-a07/removal.json", handedTo)),
                java.util.Arrays.stream(verifyGone).map(t -> new HandoverReading.VerifyGoneSeen(t, "PASS",
                        "/e/verify-gone.json", List.of())).toList());
    }

    private static Verdict outcome(List<StepCheck> checks, String id) {
        return checks.stream().filter(c -> c.check().id().equals(id)).map(StepCheck::outcome).findFirst().orElseThrow();
    }

    private static List<StepCheck> step3(NodeHandover h, HandoverReading.Evidence e, NodeInfo... giving) {
        return HandoverChecks.check(Step.GATE_DELETE, h, null, new HandoverReading(NOW, giving(giving), List.of(), e,
                List.of(), null, null));
    }

    @Test
    void step3PassesOnTheGatesPassTheRemovalAndAVerifyGoneAfterIt() {
        NodeHandover h = upTo4();
        List<StepCheck> ok = step3(h, evidence(gate("PASS", "uid-a07", false), DELETED.plusSeconds(3600)));
        assertThat(StepCheck.worst(ok)).isEqualTo(Verdict.PASS);

        // a verify-gone run before the removal proves nothing about it
        assertThat(outcome(step3(h, evidence(gate("PASS", "uid-a07", false), GATED)), "verifyGone"))
                .isEqualTo(Verdict.HOLD);
        // the gate judged another object than the target recorded at open
        assertThat(outcome(step3(h, evidence(gate("PASS", "uid-other", false), DELETED.plusSeconds(60))), "gate"))
                .isEqualTo(Verdict.FAIL);
        // a HOLD gate holds the step
        assertThat(outcome(step3(h, evidence(gate("HOLD", "uid-a07", false), DELETED.plusSeconds(60))), "gate"))
                .isEqualTo(Verdict.HOLD);
        // removed without --handed-to, or handed to another cluster: its Node there would read as a return
        assertThat(outcome(step3(h, evidence(gate("PASS", "uid-a07", false), (String) null, DELETED.plusSeconds(60))),
                "handedTo")).isEqualTo(Verdict.HOLD);
        List<StepCheck> elsewhere = step3(h, evidence(gate("PASS", "uid-a07", false), "cluster-c",
                DELETED.plusSeconds(60)));
        assertThat(elsewhere.stream().filter(c -> c.check().id().equals("handedTo")).findFirst().orElseThrow().check()
                .reasons()).containsExactly("gpu-a07's tombstone says it was handed to cluster-c, not cluster-b");
        // the Node is still there: not removed
        assertThat(outcome(step3(h, evidence(gate("PASS", "uid-a07", false), DELETED.plusSeconds(60)), A07),
                "removal")).isEqualTo(Verdict.HOLD);
    }

    @Test
    void aServerNodesGateMustShowItsEtcdMemberGoneFirst() {
        NodeHandover plain = upTo4();
        HandoverSpec.Target t = plain.spec().targets().get(0);
        HandoverSpec.Target server = new HandoverSpec.Target(t.node(), t.uid(), t.systemUuid(), t.machineId(),
                t.internalIps(), t.bootId(), List.of("control-plane", "etcd"), t.taints(), 0L, t.kubeletVersion(), true);
        HandoverSpec s = plain.spec();
        NodeHandover h = plain.withSpec(new HandoverSpec(s.nodes(), s.type(), s.destination(), s.due(), s.requester(),
                s.ticket(), s.alertmanagers(), s.silence(), List.of(server), s.steps(), null));

        List<StepCheck> withoutEtcd = step3(h, evidence(gate("PASS", "uid-a07", false), DELETED.plusSeconds(60)));
        assertThat(outcome(withoutEtcd, "gate")).isEqualTo(Verdict.HOLD);
        assertThat(withoutEtcd.stream().filter(c -> c.check().id().equals("gate")).findFirst().orElseThrow().check()
                .reasons()).anySatisfy(r -> assertThat(r).contains("its etcd member must be gone from every endpoint"));
        assertThat(outcome(step3(h, evidence(gate("PASS", "uid-a07", true), DELETED.plusSeconds(60))), "gate"))
                .isEqualTo(Verdict.PASS);
    }

    private static NodeInfo inB(String kubelet, boolean withTaint, String gpus, String ready) {
        NodeInfo base = node("b-gpu-07", "uid-b7", "198.51.100.67", A07.systemInfo().systemUuid(), "mid-a07",
                "boot-b", ready, false, ARRIVED);
        return new NodeInfo(base.name(), base.uid(), "1", ARRIVED, base.labels(), Map.of(),
                withTaint ? base.taints() : List.<Taint>of(), false, null, base.addresses(), base.conditions(),
                new io.nodegate.model.NodeSystemInfo("boot-b", A07.systemInfo().systemUuid(), "mid-a07", "6.8",
                        "Ubuntu", kubelet, "containerd"), Map.of("nvidia.com/gpu", gpus));
    }

    private static NodeInfo bServer() {
        NodeInfo s = node("b-ctl-1", "uid-bc1", "198.51.100.41", "uuid-bc1", "mid-bc1", "boot-bc1", "True", false, T0);
        return new NodeInfo(s.name(), s.uid(), "1", T0, Map.of("node-role.kubernetes.io/control-plane", "true",
                "node-role.kubernetes.io/etcd", "true"), Map.of(), List.of(), false, null, s.addresses(),
                s.conditions(), s.systemInfo(), Map.of());
    }

    private static List<StepCheck> step5(NodeInfo there, StepRecord claim, Instant... verifyGone) {
        HandoverReading.Other b = new HandoverReading.Other("cluster-b", true, List.of(bServer(), there), null);
        return HandoverChecks.check(Step.ADMITTED, upTo4(), claim, new HandoverReading(NOW, giving(), List.of(b),
                evidence(gate("PASS", "uid-a07", false), verifyGone), List.of(), null, null));
    }

    @Test
    void step5WantsTheSameHostReadyAtTheDestinationsVersionWithItsRolesTaintsAndGpus() {
        Instant second = ARRIVED.plusSeconds(600);
        assertThat(StepCheck.worst(step5(inB("v1.34.3+rke2r3", true, "8", "True"), null, second)))
                .isEqualTo(Verdict.PASS);

        List<StepCheck> wrong = step5(inB("v1.33.9+rke2r1", false, "7", "True"), null, second);
        assertThat(outcome(wrong, "admitted")).isEqualTo(Verdict.FAIL);
        assertThat(wrong.get(0).check().reasons()).anySatisfy(r -> assertThat(r).contains("runs kubelet v1.33.9+rke2r1, "
                + "not cluster-b's v1.34.3+rke2r3")).anySatisfy(r -> assertThat(r).contains("lacks taint(s) "
                + "[nvidia.com/gpu:NoSchedule]")).anySatisfy(r -> assertThat(r).contains("reports 7 GPU(s), gpu-a07 "
                + "had 8"));

        assertThat(outcome(step5(inB("v1.34.3+rke2r3", true, "8", "Unknown"), null, second), "admitted"))
                .isEqualTo(Verdict.HOLD);
        // the second verify-gone must come after the host arrived: the first one (before) does not count
        assertThat(outcome(step5(inB("v1.34.3+rke2r3", true, "8", "True"), null, DELETED.plusSeconds(60)),
                "verifyGoneAgain")).isEqualTo(Verdict.HOLD);
        // the receiving cluster's own role convention, given at step 5
        StepRecord claim = step(5, "team-b", NOW, ev("expectRole", "gpu-worker"));
        assertThat(step5(inB("v1.34.3+rke2r3", true, "8", "True"), claim, second).get(0).check().reasons())
                .anySatisfy(r -> assertThat(r).contains("lacks role label(s) [node-role.kubernetes.io/gpu-worker]"));
    }

    @Test
    void step2WantsARemovalTimePerNode() {
        NodeInfo a08 = node("gpu-a08", "uid-a08", "192.0.2.108", "uuid-8", "mid-8", "boot-8", "Unknown", true, T0);
        NodeHandover h = handover(List.of(A07, a08), step(0, "lee", T0), step(1, "kim", T0));
        StepRecord oneTime = step(2, "park", NOW, ev("removedAt/gpu-a07", "2026-10-26T06:09:00Z"));

        List<StepCheck> checks = HandoverChecks.check(Step.HOST_CLEANUP, h, oneTime,
                new HandoverReading(NOW, giving(A07, a08), List.of(), null, List.of(), null, null));

        assertThat(checks).filteredOn(c -> c.check().id().equals("reply")).extracting(StepCheck::node,
                StepCheck::outcome).containsExactly(org.assertj.core.groups.Tuple.tuple("gpu-a07", Verdict.PASS),
                org.assertj.core.groups.Tuple.tuple("gpu-a08", Verdict.HOLD));
    }
    /**
     * After `remove`, step 3's look must not say the earlier recorded steps FAIL ("target exists", "cordoned"):
     * they held when they were recorded, and the Node going is the procedure moving on.
     */
    @Test
    void recordedStepsAreNotJudgedAgainstANodeThatHasSinceLeft() {
        NodeInfo a07 = gpuA07("True", true);
        NodeInfo a08 = node("gpu-a08", "uid-a08", "192.0.2.108", "FEB06A68-0000-4000-8000-000000000008", "mid-a08",
                "boot-a08", "True", false, Instant.parse("2026-04-10T04:31:02Z"));
        NodeHandover h = handover(List.of(a07, a08), step(0, "lee", T0), step(1, "kim", T0.plusSeconds(3600)),
                step(2, "infra", T0.plusSeconds(7200)));

        List<StepCheck> checks = HandoverChecks.all(h, Fixtures.reading(giving(a08)));

        assertThat(checks).filteredOn(c -> c.step() < 3 && "gpu-a07".equals(c.node())).isNotEmpty()
                .allSatisfy(c -> assertThat(c.outcome()).isIn(Verdict.PASS, Verdict.NOT_CHECKED));
        assertThat(checks).filteredOn(c -> c.step() == 0 && "gpu-a07".equals(c.node())).singleElement()
                .satisfies(c -> assertThat(c.check().reasons()).singleElement().asString()
                        .contains("has left the cluster since (NotFound): a recorded step is not judged again"));
        // a Node still there that contradicts its recorded step is still said (gpu-a08 is uncordoned)
        assertThat(checks).filteredOn(c -> c.step() == 1 && "gpu-a08".equals(c.node())
                && c.outcome() == Verdict.FAIL).isNotEmpty();
        // the next step is judged as before: a Node gone without a gate is not a PASS
        assertThat(checks).filteredOn(c -> c.step() == 3).isNotEmpty();
    }
}
