package io.nodegate.handover;

import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Tombstone;
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
import static io.nodegate.handover.Fixtures.reading;
import static io.nodegate.handover.Fixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

/** The procedure's don'ts, each on the shape the field produces, with its near miss. */
class ViolationsTest {

    private static final NodeInfo A07 = gpuA07("Unknown", true);
    private static final Instant JOINED = Instant.parse("2026-10-22T05:23:45Z");

    private static List<Violations.Seen> detect(NodeHandover h, HandoverReading r) {
        return Violations.detect(h, r);
    }

    private static NodeInfo renamed(String name, String uuid, String machineId) {
        return node(name, "uid-" + name, "203.0.113.51", uuid, machineId, "boot-new", "True", false, JOINED);
    }

    @Test
    void aTargetRegisteredUnderANewNameBeforeStep2IsNamedWithItsCreation() {
        NodeHandover h = handover(List.of(A07), step(0, "lee", T0), step(1, "kim", T0));
        NodeInfo new01 = renamed("new-01", "ed7f385e-0000-4000-8000-000000000007", "other-mid");

        List<Violations.Seen> seen = detect(h, reading(giving(A07, new01)));

        assertThat(seen).singleElement().satisfies(v -> {
            assertThat(v.kind()).isEqualTo(Violations.RENAMED);
            assertThat(v.message()).contains("gpu-a07's host registered here as new-01 (same systemUUID", "not cordoned");
            assertThat(v.happenedAt()).isEqualTo(JOINED);
        });
        // the same sighting after step 2 is recorded: the don't no longer applies
        NodeHandover after2 = handover(List.of(A07), step(0, "lee", T0), step(1, "kim", T0), step(2, "park", T0));
        assertThat(detect(after2, reading(giving(A07, new01)))).isEmpty();
    }

    @Test
    void zeroUuidsJoinNothing() {
        NodeInfo zeroA = node("gpu-a07", "uid-a07", "192.0.2.107", "00000000-0000-0000-0000-000000000000", "",
                "boot-a07", "Unknown", true, T0);
        NodeInfo zeroB = renamed("new-01", "00000000-0000-0000-0000-000000000000", "");
        NodeHandover h = handover(List.of(zeroA), step(0, "lee", T0));

        assertThat(detect(h, reading(giving(zeroA, zeroB)))).isEmpty();
    }

    @Test
    void aNewAddressANewObjectAndANewBootAreEachNamed() {
        NodeHandover h = handover(List.of(A07), step(0, "lee", T0));
        NodeInfo readdressed = node("gpu-a07", "uid-a07", "203.0.113.27", A07.systemInfo().systemUuid(), "mid-a07",
                "boot-a07", "True", true, A07.created());
        NodeInfo rebooted = node("gpu-a07", "uid-a07", "192.0.2.107", A07.systemInfo().systemUuid(), "mid-a07",
                "boot-d9", "True", true, A07.created());
        NodeInfo recreated = node("gpu-a07", "uid-new", "192.0.2.107", A07.systemInfo().systemUuid(), "mid-a07",
                "boot-d9", "True", false, JOINED);

        assertThat(detect(h, reading(giving(readdressed)))).singleElement().satisfies(v ->
                assertThat(v.message()).contains("InternalIP changed from 192.0.2.107 to 203.0.113.27"));
        assertThat(detect(h, reading(giving(rebooted)))).singleElement().satisfies(v ->
                assertThat(v.message()).contains("rebooted and reported to this cluster (bootID boot-a07 at open, now "
                        + "boot-d9)"));
        assertThat(detect(h, reading(giving(recreated)))).singleElement().satisfies(v -> {
            assertThat(v.message()).contains("is a new object (uid uid-new");
            assertThat(v.happenedAt()).isEqualTo(JOINED);
        });
        // unchanged: nothing
        assertThat(detect(h, reading(giving(A07)))).isEmpty();
    }

    @Test
    void theHostInAnotherClusterBeforeStep3FromEveryKindOfRead() {
        NodeHandover h = handover(List.of(A07), step(0, "lee", T0), step(1, "kim", T0));
        NodeInfo inB = renamed("b-gpu-07", "ed7f385e-0000-4000-8000-000000000007", "mid-a07");
        HandoverReading.Other b = new HandoverReading.Other("cluster-b", false, List.of(inB), null);

        assertThat(detect(h, reading(giving(A07), b))).singleElement().satisfies(v -> {
            assertThat(v.kind()).isEqualTo(Violations.ELSEWHERE);
            assertThat(v.message()).contains("gpu-a07's host is b-gpu-07 in cluster-b (same systemUUID and machineID, "
                    + "created 2026-10-22T05:23:45Z, Ready=True) before step 3");
            assertThat(v.happenedAt()).isEqualTo(JOINED);
        });
        // a cluster whose read failed says nothing either way
        HandoverReading.Other failed = new HandoverReading.Other("cluster-b", false, null, "HTTP 403");
        assertThat(detect(h, reading(giving(A07), failed))).isEmpty();
        // the kubelet port answering for another cluster
        KubeletAnswer other = new KubeletAnswer("gpu-a07", "192.0.2.107", 10250, KubeletAnswer.Outcome.OTHER_CA,
                "CN=rke2-server-ca@1759000000", "CN=b-gpu-07", List.of("DNS:b-gpu-07"), "another CA");
        HandoverReading probed = new HandoverReading(NOW, giving(A07), List.of(), null, List.of(), List.of(other), null);
        assertThat(detect(h, probed)).singleElement().satisfies(v ->
                assertThat(v.message()).contains("answers with a certificate from CN=rke2-server-ca@1759000000"));
        // a host report pointing elsewhere, recorded at step 2
        NodeHandover reported = handover(List.of(A07), step(0, "lee", T0), step(1, "kim", T0), step(2, "park", T0,
                ev("hostReport/gpu-a07", "points-elsewhere sha256:ab server:https://198.51.100.50:9345 inspected:x")));
        assertThat(detect(reported, reading(giving(A07)))).singleElement().satisfies(v ->
                assertThat(v.message()).contains("points at https://198.51.100.50:9345"));
        // after step 3 the host may be anywhere
        NodeHandover after3 = handover(List.of(A07), step(0, "lee", T0), step(1, "kim", T0), step(2, "p", T0,
                ev("removedAt/gpu-a07", "2026-10-26T06:09:00Z")),
                step(3, "kim", T0, ev("removal/gpu-a07", "complete deleted 2026-10-26T06:58:00Z")));
        assertThat(detect(after3, reading(giving(), b))).isEmpty();
    }

    @Test
    void aDeletionWithoutTheOwnersTimeIsNotReadyReadAsCleanup() {
        HandoverReading.Evidence removed = new HandoverReading.Evidence("/e", Map.of(), Map.of("gpu-a07",
                new HandoverReading.RemovalSeen("gpu-a07", "complete", T0, T0, "gate PASS", null, "uid-a07", "/e/r",
                        null)), List.of());
        HandoverReading r = new HandoverReading(NOW, giving(), List.of(), removed, List.of(), null, null);
        NodeHandover noTime = handover(List.of(A07), step(0, "lee", T0), step(1, "kim", T0), step(2, "park", T0));
        NodeHandover withTime = handover(List.of(A07), step(0, "lee", T0), step(1, "kim", T0), step(2, "park", T0,
                ev("removedAt/gpu-a07", "2026-10-26T06:09:00Z")));

        assertThat(detect(noTime, r)).extracting(Violations.Seen::kind).containsExactly(Violations.NOTREADY_AS_CLEANUP);
        assertThat(detect(withTime, r)).isEmpty();

        HandoverReading.Evidence overridden = new HandoverReading.Evidence("/e", Map.of(), Map.of("gpu-a07",
                new HandoverReading.RemovalSeen("gpu-a07", "complete", T0, T0, "override of gate HOLD", "kim: same "
                        + "source", "uid-a07", "/e/r", null)), List.of());
        assertThat(detect(withTime, new HandoverReading(NOW, giving(), List.of(), overridden, List.of(), null, null)))
                .singleElement().satisfies(v -> assertThat(v.message()).contains("over a gate that did not pass"));
    }

    @Test
    void aNodeGoneWithoutARemovalRecordOrTombstoneWasDeletedOutsideTheProcedure() {
        NodeHandover h = handover(List.of(A07), step(0, "lee", T0), step(1, "kim", T0));
        HandoverReading.Giving gone = new HandoverReading.Giving("cluster-a", List.of(), Map.of(), Map.of(),
                List.of(), null);
        HandoverReading.Giving goneWithTombstone = new HandoverReading.Giving("cluster-a", List.of(), Map.of(),
                Map.of(), List.of(new Tombstone("gpu-a07", "uid-a07", null, null, T0, "sha", "kim")), null);
        HandoverReading.Giving tombstonesNotRead = new HandoverReading.Giving("cluster-a", List.of(), Map.of(),
                Map.of(), null, null);

        assertThat(detect(h, reading(gone))).extracting(Violations.Seen::kind)
                .containsExactly(Violations.DELETED_OUTSIDE);
        assertThat(detect(h, reading(goneWithTombstone))).isEmpty();
        assertThat(detect(h, reading(tombstonesNotRead))).as("nothing read that could show a removal").isEmpty();
    }

    @Test
    void aRecordedDoneThatTheClusterContradicts() {
        NodeHandover one = handover(List.of(A07), step(0, "lee", T0), step(1, "kim", T0));
        NodeInfo uncordoned = gpuA07("Unknown", false);
        assertThat(detect(one, reading(giving(uncordoned)))).singleElement().satisfies(v ->
                assertThat(v.message()).contains("step 1 was recorded done by kim", "is not cordoned"));

        NodeHandover three = handover(List.of(A07), step(0, "lee", T0), step(1, "kim", T0), step(2, "p", T0,
                ev("removedAt/gpu-a07", "x")), step(3, "kim", T0));
        assertThat(detect(three, reading(giving(A07)))).extracting(Violations.Seen::message).anySatisfy(m ->
                assertThat(m).contains("step 3 was recorded done by kim", "Node gpu-a07 (uid uid-a07) is still there"));

        NodeHandover five = handover(List.of(A07), step(0, "lee", T0), step(1, "kim", T0), step(2, "p", T0,
                ev("removedAt/gpu-a07", "x")), step(3, "kim", T0), step(4, "p", T0), step(5, "b", T0));
        NodeInfo notReadyInB = node("b-gpu-07", "uid-b7", "198.51.100.67", A07.systemInfo().systemUuid(), "mid-a07",
                "boot-b", "False", false, JOINED);
        assertThat(detect(five, reading(giving(), new HandoverReading.Other("cluster-b", true, List.of(notReadyInB),
                null)))).extracting(Violations.Seen::message).anySatisfy(m ->
                assertThat(m).contains("step 5 was recorded done by b", "not Ready in cluster-b (b-gpu-07 Ready=False)"));
    }
}
