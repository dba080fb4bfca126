package io.nodegate.detect.controlplane;

import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.model.EtcdMember;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.nodegate.detect.controlplane.EtcdFixtures.answer;
import static io.nodegate.detect.controlplane.EtcdFixtures.down;
import static io.nodegate.detect.controlplane.EtcdFixtures.learner;
import static io.nodegate.detect.controlplane.EtcdFixtures.member;
import static io.nodegate.detect.controlplane.EtcdFixtures.node;
import static io.nodegate.detect.controlplane.EtcdFixtures.run;
import static io.nodegate.detect.controlplane.EtcdFixtures.state;
import static org.assertj.core.api.Assertions.assertThat;

class EtcdDetectorsTest {

    static final long C1 = 0xC1L;
    static final long C2 = 0xC2L;
    static final EtcdMember A = member(1, "cp-node-a-0a1b2c3d");
    static final EtcdMember B = member(2, "cp-node-b-1a2b3c4d");
    static final EtcdMember C = member(3, "cp-node-c-2a3b4c5d");
    static final EtcdMember D = member(4, "cp-node-d-3a4b5c6d");
    static final EtcdMember E = member(5, "cp-node-e-4a5b6c7d");

    @Test
    void registryHasTheSixCodesInOrder() {
        assertThat(Detectors.in(Scope.ETCD, Detector.class)).extracting(d -> d.code() + " " + d.name()).containsExactly(
                "NG201 etcd-split-brain", "NG202 etcd-quorum-tolerance", "NG203 etcd-member-unreachable",
                "NG204 etcd-node-mismatch", "NG205 etcd-member-not-control-plane", "NG206 etcd-member-lists-disagree");
    }

    @Nested
    class QuorumTolerance {
        final EtcdQuorumTolerance detector = new EtcdQuorumTolerance();

        Finding one(List<Finding> f) {
            assertThat(f).hasSize(1);
            return f.get(0);
        }

        @Test
        void quorumIsAMajorityOfRegisteredVoters() {
            assertThat(List.of(1, 2, 3, 4, 5, 6, 7)).extracting(EtcdQuorumTolerance::quorum)
                    .containsExactly(1, 2, 2, 3, 3, 4, 4);
        }

        @Test
        void threeUpToleratesOneAndIsOnlyInfo() {
            Finding f = one(run(detector, state(List.of(), answer(C1, 1, 1, A, B, C), answer(C1, 2, 1, A, B, C),
                    answer(C1, 3, 1, A, B, C))));
            assertThat(f.severity()).isEqualTo(Severity.INFO);
            assertThat(f.evidence()).containsEntry("toleratedFailures", 1).containsEntry("registeredVoters", 3);
        }

        @Test
        void threeWithOneDownIsCriticalAtZero() {
            Finding f = one(run(detector, state(List.of(), answer(C1, 1, 1, A, B, C), answer(C1, 2, 1, A, B, C),
                    down(3))));
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.evidence()).containsEntry("toleratedFailures", 0);
            assertThat(f.nodes()).containsExactly("cp-node-c");
            assertThat(f.message()).contains("NO further failure").contains("cp-node-c-2a3b4c5d (3)");
        }

        @Test
        void twoMembersBothUpWarnsButIsNotCritical() {
            Finding f = one(run(detector, state(List.of(), answer(C1, 1, 1, A, B), answer(C1, 2, 1, A, B))));
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.evidence()).containsEntry("toleratedFailures", 0).containsEntry("quorum", 2);
        }

        @Test
        void twoMembersOneDownHasLostQuorum() {
            Finding f = one(run(detector, state(List.of(), answer(C1, 1, 1, A, B), down(2))));
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.evidence()).containsEntry("toleratedFailures", -1);
            assertThat(f.message()).contains("quorum LOST");
        }

        @Test
        void singleMemberWarns() {
            Finding f = one(run(detector, state(List.of(), answer(C1, 1, 1, A))));
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.message()).contains("single member");
        }

        @Test
        void fourMembersToleratesOneLikeThreeAndWarnsForTheEvenCount() {
            EtcdMember[] all = {A, B, C, D};
            Finding f = one(run(detector, state(List.of(), answer(C1, 1, 1, all), answer(C1, 2, 1, all),
                    answer(C1, 3, 1, all), answer(C1, 4, 1, all))));
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.evidence()).containsEntry("toleratedFailures", 1).containsEntry("quorum", 3);
            assertThat(f.message()).contains("even");
        }

        @Test
        void fiveWithOneDownStillToleratesOne() {
            EtcdMember[] all = {A, B, C, D, E};
            Finding f = one(run(detector, state(List.of(), answer(C1, 1, 1, all), answer(C1, 2, 1, all),
                    answer(C1, 3, 1, all), answer(C1, 4, 1, all), down(5))));
            assertThat(f.severity()).isEqualTo(Severity.INFO);
            assertThat(f.evidence()).containsEntry("toleratedFailures", 1);
        }

        @Test
        void fiveWithTwoDownIsCritical() {
            EtcdMember[] all = {A, B, C, D, E};
            Finding f = one(run(detector, state(List.of(), answer(C1, 1, 1, all), answer(C1, 2, 1, all),
                    answer(C1, 3, 1, all), down(4), down(5))));
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.nodes()).containsExactly("cp-node-d", "cp-node-e");
        }

        @Test
        void learnersDoNotCountAsVotersNorAsDown() {
            EtcdMember l = learner(4, "cp-node-d-3a4b5c6d");
            Finding f = one(run(detector, state(List.of(), answer(C1, 1, 1, A, B, C, l), answer(C1, 2, 1, A, B, C, l),
                    answer(C1, 3, 1, A, B, C, l), down(4))));
            assertThat(f.severity()).isEqualTo(Severity.INFO);
            assertThat(f.evidence()).containsEntry("registeredVoters", 3).containsEntry("toleratedFailures", 1);
            assertThat((List<?>) f.evidence().get("learners")).hasSize(1);
        }

        @Test
        void twoVotersAndALearnerIsStillTwoVoters() {
            EtcdMember l = learner(3, "cp-node-c-2a3b4c5d");
            Finding f = one(run(detector, state(List.of(), answer(C1, 1, 1, A, B, l), answer(C1, 2, 1, A, B, l),
                    answer(C1, 3, 1, A, B, l))));
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.evidence()).containsEntry("registeredVoters", 2);
        }

        @Test
        void registeredListIsTheLeadersView() {
            // endpoint 3 lags and still lists only A,B; the leader (1) knows A,B,C,D
            Finding f = one(run(detector, state(List.of(), answer(C1, 1, 1, A, B, C, D), answer(C1, 3, 1, A, B))));
            assertThat(f.evidence()).containsEntry("registeredVoters", 4).containsEntry("answeringVoters", 2);
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        }

        @Test
        void nothingWhenNoEndpointAnswered() {
            assertThat(run(detector, state(List.of(), down(1), down(2)))).isEmpty();
        }
    }

    @Nested
    class SplitBrain {
        final EtcdSplitBrain detector = new EtcdSplitBrain();
        final EtcdMember forkC = member(9, "cp-node-c-2a3b4c5d");

        @Test
        void seed001ForkedServerIsTheMinoritySide() {
            List<Finding> f = run(detector, state(List.of(), answer(C1, 1, 1, A, B, C), answer(C1, 2, 1, A, B, C),
                    answer(C2, 9, 9, forkC)));
            assertThat(f).hasSize(1);
            Finding split = f.get(0);
            assertThat(split.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(split.nodes()).containsExactly("cp-node-c");
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> sides = (List<Map<String, Object>>) split.evidence().get("sides");
            assertThat(sides.get(0)).containsEntry("clusterId", "c1").containsEntry("original", true)
                    .containsEntry("answeringVoters", "2/3");
            assertThat(sides.get(1)).containsEntry("clusterId", "c2").containsEntry("original", false);
            assertThat(sides.get(1).get("leader")).isEqualTo(List.of("cp-node-c-2a3b4c5d (9)"));
            assertThat(split.message()).contains("Side 1 is the original").contains("quorum 2, held");
        }

        @Test
        void originalIsFoundWhateverTheEndpointOrder() {
            List<Finding> f = run(detector, state(List.of(), answer(C2, 9, 9, forkC), answer(C1, 1, 1, A, B, C)));
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> sides = (List<Map<String, Object>>) f.get(0).evidence().get("sides");
            assertThat(sides.get(0)).containsEntry("original", false);
            assertThat(sides.get(1)).containsEntry("original", true);
            assertThat(f.get(0).message()).contains("Side 2 is the original");
        }

        @Test
        void twoUnrelatedEqualClustersCannotBeRanked() {
            EtcdMember x = member(7, "lab-x");
            List<Finding> f = run(detector, state(List.of(), answer(C1, 1, 1, A), answer(C2, 7, 7, x)));
            assertThat(f).hasSize(1);
            assertThat(f.get(0).message()).contains("cannot be told");
            assertThat(f.get(0).nodes()).containsExactlyInAnyOrder("cp-node-a", "lab-x");
        }

        @Test
        void largerListWithoutTheOthersNamesIsOnlyPresumedOriginal() {
            EtcdMember stranger = member(9, "lab-9");
            List<Finding> f = run(detector, state(List.of(), answer(C1, 1, 1, A, B, C), answer(C2, 9, 9, stranger)));
            assertThat(f.get(0).message()).contains("Side 1 is the original cluster: its member list is the largest")
                    .contains("compare `kubectl get nodes`");
        }

        @Test
        void oneClusterIdIsNoSplitEvenWithAnEndpointDown() {
            assertThat(run(detector, state(List.of(), answer(C1, 1, 1, A, B, C), down(3)))).isEmpty();
        }

        @Test
        void aFailedEndpointIsNotASide() {
            assertThat(run(detector, state(List.of(), answer(C1, 1, 1, A, B, C), down(9)))).isEmpty();
        }
    }

    @Nested
    class MemberUnreachable {
        final EtcdMemberUnreachable detector = new EtcdMemberUnreachable();

        @Test
        void queriedAndFailingMemberCarriesTheError() {
            List<Finding> f = run(detector, state(List.of(), answer(C1, 1, 1, A, B, C), answer(C1, 2, 1, A, B, C),
                    down(3)));
            assertThat(f).hasSize(1);
            assertThat(f.get(0).evidence()).containsEntry("reason", "endpoint-error")
                    .containsEntry("error", "connect timed out after 5s");
            assertThat(f.get(0).nodes()).containsExactly("cp-node-c");
        }

        @Test
        void memberNobodyQueriedIsNamedAsSuch() {
            List<Finding> f = run(detector, state(List.of(), answer(C1, 1, 1, A, B, C), answer(C1, 2, 1, A, B, C)));
            assertThat(f).hasSize(1);
            assertThat(f.get(0).evidence()).containsEntry("reason", "not-answered-by-any-endpoint");
            assertThat(f.get(0).message()).contains("were not queried");
        }

        @Test
        void urlNowServedByAnotherEtcdIsSaid() {
            // 10.0.0.3:2379 answers, but as member 9 of another cluster
            var other = new io.nodegate.model.EtcdEndpointReport("https://10.0.0.3:2379",
                    new io.nodegate.model.EtcdStatus(C2, 9, 9, 2, 5, "3.5.17", 1, false), C2,
                    List.of(member(9, "cp-node-c-2a3b4c5d")), null);
            List<Finding> f = run(detector, state(List.of(), answer(C1, 1, 1, A, B, C), answer(C1, 2, 1, A, B, C), other));
            assertThat(f).hasSize(1);
            assertThat(f.get(0).evidence()).containsEntry("reason", "url-answers-as-other-member");
        }

        @Test
        void failedEndpointOfNoKnownMemberIsStillReported() {
            List<Finding> f = run(detector, state(List.of(), answer(C1, 1, 1, A), down(8)));
            assertThat(f).hasSize(1);
            assertThat(f.get(0).message()).contains("https://10.0.0.8:2379").contains("connect timed out");
        }

        @Test
        void allAnsweringIsQuiet() {
            assertThat(run(detector, state(List.of(), answer(C1, 1, 1, A, B), answer(C1, 2, 1, A, B)))).isEmpty();
        }

        @Test
        void everyFailureIsReportedWhenNothingAnswered() {
            assertThat(run(detector, state(List.of(), down(1), down(2)))).hasSize(2);
        }
    }

    @Nested
    class NodeMismatchAndRoles {
        final EtcdNodeMismatch mismatch = new EtcdNodeMismatch();
        final EtcdMemberNotControlPlane notControlPlane = new EtcdMemberNotControlPlane();

        @Test
        void k3sNamesPairWithNodesQuietly() {
            var s = state(List.of(node("cp-node-a", "192.168.1.1", "control-plane", "etcd", "master"),
                            node("cp-node-b", "192.168.1.2", "control-plane", "etcd", "master")),
                    answer(C1, 1, 1, A, B), answer(C1, 2, 1, A, B));
            assertThat(run(mismatch, s)).isEmpty();
            assertThat(run(notControlPlane, s)).isEmpty();
        }

        @Test
        void plainEtcdNamesPairByPeerAddress() {
            EtcdMember etcd1 = member(1, "etcd1");
            var s = state(List.of(node("server-1", "10.0.0.1", "control-plane", "etcd")), answer(C1, 1, 1, etcd1));
            assertThat(run(mismatch, s)).isEmpty();
        }

        @Test
        void memberWithoutNodeAndEtcdNodeWithoutMember() {
            var s = state(List.of(node("cp-node-a", "192.168.1.1", "control-plane", "etcd", "master"),
                            node("cp-node-x", "192.168.1.9", "control-plane", "etcd", "master"),
                            node("worker-1", "192.168.1.20")),
                    answer(C1, 1, 1, A, B), answer(C1, 2, 1, A, B));
            List<Finding> f = run(mismatch, s);
            assertThat(f).hasSize(2);
            assertThat(f.get(0).message()).contains("cp-node-b-1a2b3c4d").contains("has no Node");
            assertThat(f.get(1).nodes()).containsExactly("cp-node-x");
            assertThat(f).allMatch(x -> x.severity() == Severity.WARNING);
        }

        @Test
        void skippedWithoutNodes() {
            var s = state(List.of(), answer(C1, 1, 1, A, B));
            assertThat(run(mismatch, s)).isEmpty();
            assertThat(run(notControlPlane, s)).isEmpty();
        }

        @Test
        void workerStartedAsServerIsCritical() {
            var s = state(List.of(node("cp-node-a", "192.168.1.1", "control-plane", "etcd", "master"),
                            node("worker-7", "192.168.1.7")),
                    answer(C1, 1, 1, A, member(7, "worker-7-9f8e7d6c")));
            List<Finding> f = run(notControlPlane, s);
            assertThat(f).hasSize(1);
            assertThat(f.get(0).severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.get(0).nodes()).containsExactly("worker-7");
            assertThat(f.get(0).evidence()).containsEntry("matchedBy", "member name = <node>-<8 hex>");
        }

        @Test
        void etcdOnlyServerIsNotAWorker() {
            // seed 003: solomon runs etcd with the apiserver disabled; it carries only the etcd role
            var s = state(List.of(node("solomon", "192.168.1.3", "etcd")), answer(C1, 3, 3, member(3, "solomon-0012157a")));
            assertThat(run(notControlPlane, s)).isEmpty();
            assertThat(run(mismatch, s)).isEmpty();
        }

        @Test
        void matchByK3sAnnotation() {
            var annotated = new io.nodegate.model.NodeInfo("renamed-host", "u", "1", null,
                    Map.of(), Map.of("etcd.k3s.cattle.io/node-name", "cp-node-a-0a1b2c3d"), List.of(), false, null,
                    List.of(), List.of(), null, Map.of());
            var s = state(List.of(annotated), answer(C1, 1, 1, A));
            assertThat(run(mismatch, s)).isEmpty();
            assertThat(run(notControlPlane, s)).singleElement()
                    .satisfies(x -> assertThat(x.evidence()).containsEntry("matchedBy", "annotation etcd.k3s.cattle.io/node-name"));
        }
    }

    @Nested
    class ListsDisagree {
        final EtcdMemberListsDisagree detector = new EtcdMemberListsDisagree();

        @Test
        void sameLeaderDifferentListsWarns() {
            List<Finding> f = run(detector, state(List.of(), answer(C1, 1, 1, A, B, C), answer(C1, 2, 1, A, B, C),
                    answer(C1, 3, 1, A, B)));
            assertThat(f).hasSize(1);
            assertThat(f.get(0).severity()).isEqualTo(Severity.WARNING);
            assertThat(f.get(0).evidence()).containsEntry("differentLeaders", false);
            assertThat(f.get(0).message()).contains("missing cp-node-c-2a3b4c5d (3)");
            assertThat(f.get(0).nodes()).containsExactly("cp-node-c");
        }

        @Test
        void forkedClusterIdWithTwoLeadersIsCritical() {
            List<Finding> f = run(detector, state(List.of(), answer(C1, 1, 1, A, B, C), answer(C1, 3, 3, C)));
            assertThat(f).hasSize(1);
            assertThat(f.get(0).severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.get(0).message()).contains("forked");
        }

        @Test
        void equalListsInAnyOrderAreQuiet() {
            assertThat(run(detector, state(List.of(), answer(C1, 1, 1, A, B, C), answer(C1, 2, 1, C, B, A)))).isEmpty();
        }

        @Test
        void differentClusterIdsAreNg201NotNg206() {
            assertThat(run(detector, state(List.of(), answer(C1, 1, 1, A, B), answer(C2, 9, 9, member(9, "x"))))).isEmpty();
        }
    }

    /** Offline dumps: `endpoint status` without a member list, or a member list without its status. */
    @Nested
    class PartialOfflineReports {

        io.nodegate.model.EtcdEndpointReport statusOnly(long clusterId, long self, long leader) {
            var full = answer(clusterId, self, leader, A);
            return new io.nodegate.model.EtcdEndpointReport(full.endpoint(), full.status(), 0L, List.of(), null);
        }

        io.nodegate.model.EtcdEndpointReport listOnly(long clusterId, long self, EtcdMember... members) {
            return new io.nodegate.model.EtcdEndpointReport("https://10.0.0." + self + ":2379", null, clusterId,
                    List.of(members), null);
        }

        @Test
        void statusWithoutMemberListIsNotADisagreeingView() {
            var s = state(List.of(), answer(C1, 1, 1, A, B, C), statusOnly(C1, 2, 1), statusOnly(C1, 3, 1));
            List<Finding> all = EtcdFixtures.all(s);
            assertThat(all).extracting(Finding::code).doesNotContain("NG206", "NG203", "NG201");
            Finding tolerance = all.stream().filter(f -> f.code().equals("NG202")).findFirst().orElseThrow();
            assertThat(tolerance.evidence()).containsEntry("answeringVoters", 3).containsEntry("toleratedFailures", 1);
        }

        @Test
        void memberListWithoutStatusStillCountsItsAnsweringMember() {
            var s = state(List.of(), listOnly(C1, 1, A, B, C), listOnly(C1, 2, A, B, C), listOnly(C1, 3, A, B, C));
            List<Finding> all = EtcdFixtures.all(s);
            assertThat(all).extracting(Finding::code).containsExactly("NG202");
            assertThat(all.get(0).evidence()).containsEntry("toleratedFailures", 1);
        }

        @Test
        void splitBrainIsSeenFromMemberListsAlone() {
            var s = state(List.of(), listOnly(C1, 1, A, B, C), listOnly(C2, 9, member(9, "cp-node-c-2a3b4c5d")));
            Finding split = run(new EtcdSplitBrain(), s).get(0);
            assertThat(split.message()).contains("unknown (no status read)").contains("Side 1 is the original");
            assertThat(split.nodes()).containsExactly("cp-node-c");
        }
    }
}
