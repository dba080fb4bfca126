package io.nodegate.detect.controlplane;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.model.ClusterState;
import io.nodegate.testing.ControlPlaneFixtures;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.nodegate.testing.ControlPlaneFixtures.ILWON_IP;
import static io.nodegate.testing.ControlPlaneFixtures.LEMUEL_IP;
import static io.nodegate.testing.ControlPlaneFixtures.SERVER_ARGS;
import static io.nodegate.testing.ControlPlaneFixtures.SOLOMON_IP;
import static io.nodegate.testing.ControlPlaneFixtures.node;
import static io.nodegate.testing.ControlPlaneFixtures.state;
import static org.assertj.core.api.Assertions.assertThat;

class RedundancyDetectorsTest {

    private static List<Finding> run(ClusterState state) {
        List<Finding> out = new ArrayList<>();
        for (Detector d : Detectors.in(Scope.REDUNDANCY, Detector.class)) {
            out.addAll(d.detect(state, AuditSettings.DEFAULTS));
        }
        return out;
    }

    @Test
    void registryHoldsTheThreeRedundancyCodes() {
        assertThat(Detectors.in(Scope.REDUNDANCY, Detector.class)).extracting(d -> d.code().code())
                .containsExactly("NG210", "NG211", "NG212");
        assertThat(Detectors.in(Scope.VIEWS, MultiViewDetector.class)).extracting(d -> d.code().code()).containsExactly("NG207");
    }

    @Test
    void seed003ApiserverLayersBelowEtcdNamesTheVoterWithoutApi() {
        List<Finding> findings = run(ControlPlaneFixtures.seed003WithEtcd().build());

        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG210");
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.nodes()).containsExactly("solomon");
            assertThat(f.message()).startsWith("etcd has 3 voters but only 2 kube-apiserver(s) (ilwon, lemuel); "
                            + "solomon votes in etcd but serves no API.")
                    .contains("etcd tolerates 1 failure(s), the API 1")
                    .contains("if the kube-apiservers on ilwon and lemuel both stop, kubelets")
                    .contains("k3s agents have nothing to connect to, even while etcd keeps quorum")
                    .doesNotContain("inferred");
            assertThat(f.evidence()).containsEntry("votersWithoutApiserver", List.of("solomon"))
                    .containsEntry("etcdTolerates", 1).containsEntry("apiTolerates", 1);
        });
    }

    @Test
    void seed003WithoutEtcdEndpointsSaysVotersWereInferred() {
        assertThat(run(ControlPlaneFixtures.seed003().build())).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG210");
            assertThat(f.message()).contains("(etcd voters inferred from role labels.)");
        });
    }

    @Test
    void threeApiserversForThreeVotersIsNoFinding() {
        ClusterState state = ControlPlaneFixtures.seed003WithEtcd()
                .apiEndpoints(LEMUEL_IP, ILWON_IP, SOLOMON_IP).build();
        assertThat(run(state)).extracting(Finding::code).doesNotContain("NG210", "NG211");
    }

    @Test
    void singleApiserverIsCriticalAndAlsoBelowEtcd() {
        List<Finding> findings = run(ControlPlaneFixtures.seed003WithEtcd().apiEndpoints(LEMUEL_IP).build());

        assertThat(findings).extracting(Finding::code).containsExactly("NG210", "NG211");
        Finding single = findings.get(1);
        assertThat(single.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(single.nodes()).containsExactly("lemuel");
        assertThat(single.message()).contains("Only one kube-apiserver (lemuel)")
                .contains("k3s agents' failover list has only this one entry");
        assertThat(findings.get(0).message()).contains("if the kube-apiserver on lemuel stops");
    }

    @Test
    void unknownApiserverCountRaisesNothing() {
        ClusterState state = state()
                .node(node("a").roles("control-plane", "etcd").k3sArgs(SERVER_ARGS))
                .node(node("b").roles("control-plane", "etcd").k3sArgs(SERVER_ARGS))
                .node(node("c").roles("control-plane", "etcd").k3sArgs(SERVER_ARGS)).build();
        assertThat(run(state)).isEmpty();
    }

    @Test
    void schedulerDisabledOnTwoOfThreeServersLeavesOneCandidate() {
        String noScheduler = "[\"server\",\"--disable-scheduler\",\"true\"]";
        ClusterState state = state()
                .node(node("s1").roles("control-plane", "etcd", "master").ip("10.0.0.1").k3sArgs("[\"server\"]"))
                .node(node("s2").roles("control-plane", "etcd", "master").ip("10.0.0.2").k3sArgs(noScheduler))
                .node(node("s3").roles("control-plane", "etcd", "master").ip("10.0.0.3").k3sArgs(noScheduler))
                .apiEndpoints("10.0.0.1", "10.0.0.2", "10.0.0.3")
                .leaderLease("kube-scheduler", "s1").leaderLease("kube-controller-manager", "s2")
                .build();

        assertThat(run(state)).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG212");
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.nodes()).containsExactly("s1");
            assertThat(f.message()).isEqualTo("Only s1 can run kube-scheduler (s2, s3 run without it); current "
                    + "leader: s1. Leader election has no one to fail over to: if s1 stops, pods stop being "
                    + "scheduled.");
            assertThat(f.evidence()).containsEntry("notCandidates", List.of("s2", "s3"));
        });
    }

    @Test
    void schedulerDisabledOnOneOfThreeIsNoFinding() {
        ClusterState state = state()
                .node(node("s1").roles("control-plane").ip("10.0.0.1").k3sArgs("[\"server\"]"))
                .node(node("s2").roles("control-plane").ip("10.0.0.2").k3sArgs("[\"server\"]"))
                .node(node("s3").roles("control-plane").ip("10.0.0.3")
                        .k3sArgs("[\"server\",\"--disable-scheduler\",\"true\"]"))
                .apiEndpoints("10.0.0.1", "10.0.0.2", "10.0.0.3").build();
        assertThat(run(state)).isEmpty();
    }

    @Test
    void singleControlPlaneNodeGetsEveryRedundancyFinding() {
        ClusterState state = state()
                .node(node("only").roles("control-plane", "etcd", "master").ip("10.0.0.1").k3sArgs("[\"server\"]"))
                .node(node("w1").ip("10.0.0.2").k3sArgs("[\"agent\"]"))
                .apiEndpoints("10.0.0.1").build();

        assertThat(run(state)).extracting(Finding::code).containsExactly("NG211", "NG212", "NG212");
    }

    @Test
    void noServerNodesMeansNoCandidateFinding() {
        ClusterState state = state().node(node("w1").ip("10.0.0.2")).apiEndpoints("10.0.0.9", "10.0.0.8").build();
        assertThat(run(state)).isEmpty();
    }

    @Test
    void rke2ArgsDisableTheControllerManagerToo() {
        String noCm = "[\"server\",\"--disable-controller-manager=true\"]";
        ClusterState state = state().serverVersion("v1.34.1+rke2r1")
                .node(node("r1").roles("control-plane", "etcd").ip("10.0.0.1").rke2Args("[\"server\"]"))
                .node(node("r2").roles("control-plane", "etcd").ip("10.0.0.2").rke2Args(noCm))
                .node(node("r3").roles("control-plane", "etcd").ip("10.0.0.3").rke2Args(noCm))
                .apiEndpoints("10.0.0.1", "10.0.0.2", "10.0.0.3").build();

        assertThat(run(state)).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG212");
            assertThat(f.message()).contains("Only r1 can run kube-controller-manager");
            assertThat(f.hint()).contains("--disable-controller-manager");
        });
    }
}
