package io.nodegate.detect.controlplane;

import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdStatus;
import io.nodegate.model.LeaseInfo;
import io.nodegate.testing.ControlPlaneFixtures;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.nodegate.testing.ControlPlaneFixtures.ILWON_IP;
import static io.nodegate.testing.ControlPlaneFixtures.LEMUEL_IP;
import static io.nodegate.testing.ControlPlaneFixtures.SOLOMON_IP;
import static io.nodegate.testing.ControlPlaneFixtures.learner;
import static io.nodegate.testing.ControlPlaneFixtures.member;
import static io.nodegate.testing.ControlPlaneFixtures.node;
import static io.nodegate.testing.ControlPlaneFixtures.state;
import static org.assertj.core.api.Assertions.assertThat;

class RoleLayersTest {

    @Test
    void seed003CountsThreeEtcdTwoApiserversTwoFailoverTargets() {
        RoleLayers layers = RoleLayers.of(ControlPlaneFixtures.seed003WithEtcd().build());

        assertThat(layers.distribution()).isEqualTo("k3s");
        assertThat(layers.etcdVoters().count()).isEqualTo(3);
        assertThat(layers.etcdVoters().tolerates()).isEqualTo(1);
        assertThat(layers.etcdVoters().members()).containsExactly("ilwon", "lemuel", "solomon");
        assertThat(layers.etcdVoters().basis()).startsWith("etcd member list (3 of 3");
        assertThat(layers.apiservers().count()).isEqualTo(2);
        assertThat(layers.apiservers().members()).containsExactly("ilwon", "lemuel");
        assertThat(layers.agentFailover().count()).isEqualTo(2);
        assertThat(layers.agentFailover().basis()).contains("derived from the default/kubernetes endpoints")
                .contains("k3s-agent-load-balancer.json");
        assertThat(layers.scheduler().members()).containsExactly("ilwon", "lemuel");
        assertThat(layers.scheduler().holder()).isEqualTo("ilwon");
        assertThat(layers.controllerManager().members()).containsExactly("ilwon", "lemuel");
        assertThat(layers.controllerManager().holder()).isEqualTo("lemuel");
        assertThat(layers.notes()).isEmpty();
    }

    @Test
    void seed003ServerRowsShowTaintsAndRunningPodsSixVersusThirtyFour() {
        RoleLayers layers = RoleLayers.of(ControlPlaneFixtures.seed003WithEtcd().build());

        assertThat(layers.serverNodes()).extracting(RoleLayers.ServerNode::name)
                .containsExactly("ilwon", "lemuel", "solomon");
        RoleLayers.ServerNode ilwon = layers.serverNodes().get(0);
        RoleLayers.ServerNode lemuel = layers.serverNodes().get(1);
        RoleLayers.ServerNode solomon = layers.serverNodes().get(2);
        assertThat(lemuel.taints()).containsExactly("node-role.kubernetes.io/control-plane:NoSchedule");
        assertThat(lemuel.runningPods()).isEqualTo(6);
        assertThat(ilwon.taints()).containsExactly("dedicated=management:PreferNoSchedule");
        assertThat(ilwon.runningPods()).isEqualTo(34);
        assertThat(solomon.taints()).containsExactly("dedicated=storage:NoSchedule");
        assertThat(solomon.runningPods()).isEqualTo(6);
        assertThat(solomon.etcdVoter()).isTrue();
        assertThat(solomon.apiserver()).isFalse();
        assertThat(solomon.schedulerCandidate()).isFalse();
        assertThat(solomon.disabled()).containsExactly("apiserver", "scheduler", "controller-manager");
        assertThat(lemuel.apiserver()).isTrue();
    }

    @Test
    void withoutEtcdEndpointsVotersAreInferredFromRoleLabelsAndSaySo() {
        RoleLayers layers = RoleLayers.of(ControlPlaneFixtures.seed003().build());

        assertThat(layers.etcdVoters().members()).containsExactly("ilwon", "lemuel", "solomon");
        assertThat(layers.etcdVoters().basis()).isEqualTo(RoleLayers.BASIS_ETCD_INFERRED);
    }

    @Test
    void noEtcdRoleAnywhereMeansUnknownVotersNotZero() {
        RoleLayers layers = RoleLayers.of(state().serverVersion("v1.34.1")
                .node(node("cp1").roles("control-plane").ip("10.0.0.1"))
                .node(node("cp2").roles("control-plane").ip("10.0.0.2"))
                .apiEndpoints("10.0.0.1", "10.0.0.2").build());

        assertThat(layers.etcdVoters().known()).isFalse();
        assertThat(layers.notes()).contains("no Node has the etcd role and etcd endpoints were not read: etcd voter "
                + "count unknown");
        assertThat(new ApiserverLayersBelowEtcdDetector().detect(layers)).isEmpty();
    }

    @Test
    void etcdRoleWithDisableEtcdIsNotAnInferredVoter() {
        RoleLayers layers = RoleLayers.of(state()
                .node(node("a").roles("control-plane", "etcd").k3sArgs("[\"server\"]"))
                .node(node("b").roles("control-plane", "etcd").k3sArgs("[\"server\",\"--disable-etcd\",\"true\"]"))
                .build());
        assertThat(layers.etcdVoters().members()).containsExactly("a");
    }

    @Test
    void learnersAreNotVotersAndMembersMapToNodesByPeerAddress() {
        RoleLayers layers = RoleLayers.of(ControlPlaneFixtures.seed003().etcdCluster(7L,
                member(1L, "node-one", LEMUEL_IP), member(2L, "ilwon-0badcafe", "10.9.9.9"),
                learner(3L, "solomon-12345678", SOLOMON_IP)).build());

        assertThat(layers.etcdVoters().members()).containsExactly("ilwon", "lemuel");
        assertThat(layers.notes()).contains("1 etcd learner(s) not counted as voters");
    }

    @Test
    void memberWithoutANodeKeepsItsEtcdName() {
        RoleLayers layers = RoleLayers.of(ControlPlaneFixtures.seed003().etcdCluster(7L,
                member(1L, "lemuel-64066392", LEMUEL_IP), member(2L, "ghost-aaaaaaaa", "10.9.9.9")).build());
        assertThat(layers.etcdVoters().members()).containsExactly("ghost-aaaaaaaa", "lemuel");
    }

    @Test
    void failedEtcdEndpointsFallBackToRoleLabelsWithANote() {
        RoleLayers layers = RoleLayers.of(ControlPlaneFixtures.seed003()
                .etcd(EtcdEndpointReport.failed("https://" + LEMUEL_IP + ":2379", "connection refused")).build());

        assertThat(layers.etcdVoters().basis()).contains("no etcd endpoint answered");
        assertThat(layers.notes()).anyMatch(n -> n.contains("none answered"));
    }

    @Test
    void endpointsOfTwoEtcdClustersAreNotedAndTheLargerListCounts() {
        RoleLayers layers = RoleLayers.of(ControlPlaneFixtures.seed003()
                .etcd(new EtcdEndpointReport("https://" + LEMUEL_IP + ":2379",
                        new EtcdStatus(1L, 10L, 10L, 2, 5, "3.5", 1, false), 1L,
                        List.of(member(10L, "lemuel-64066392", LEMUEL_IP), member(11L, "ilwon-f3f37c02", ILWON_IP)),
                        null))
                .etcd(new EtcdEndpointReport("https://" + SOLOMON_IP + ":2379",
                        new EtcdStatus(2L, 12L, 12L, 2, 5, "3.5", 1, false), 2L,
                        List.of(member(12L, "solomon-0012157a", SOLOMON_IP)), null))
                .build());

        assertThat(layers.etcdVoters().members()).containsExactly("ilwon", "lemuel");
        assertThat(layers.notes()).anyMatch(n -> n.contains("2 different clusters"));
    }

    @Test
    void emptyEndpointsMeanUnknownNotZero() {
        RoleLayers layers = RoleLayers.of(state().node(node("a").roles("control-plane", "etcd")).build());

        assertThat(layers.apiservers().known()).isFalse();
        assertThat(layers.apiservers().tolerates()).isNull();
        assertThat(layers.notes()).anyMatch(n -> n.contains("kube-apiserver count unknown"));
    }

    /**
     * Without endpoints (on one machine the Endpoints API refuses the apiservers' loopback addresses), the
     * apiservers are counted from their identity Leases, as kube-apiserver v1.34 labels them; one not renewed for
     * more than 30 s (three of its 10-second renewals) is a stopped apiserver, whose Lease lingers for an hour.
     */
    @Test
    void withoutEndpointsApiserversAreCountedFromIdentityLeasesRenewedInTheLast30Seconds() {
        java.time.Instant now = ControlPlaneFixtures.NOW;
        RoleLayers layers = RoleLayers.of(state()
                .node(node("ha-server-1").roles("control-plane", "etcd"))
                .node(node("ha-server-2").roles("control-plane", "etcd"))
                .node(node("ha-server-3").roles("control-plane", "etcd"))
                .lease(new LeaseInfo("kube-system", "apiserver-a3py2prjxpi74mncr6uschdzfm", "u1", now.minusSeconds(600),
                        "apiserver-a3py2prjxpi74mncr6uschdzfm_50604070", now.minusSeconds(4), 3600, "ha-server-1"))
                .lease(new LeaseInfo("kube-system", "apiserver-5qakt5mwoy2ul7yp4jnym5ifrm", "u2", now.minusSeconds(600),
                        "apiserver-5qakt5mwoy2ul7yp4jnym5ifrm_e23f7618", now.minusSeconds(30), 3600, "ha-server-2"))
                .lease(new LeaseInfo("kube-system", "apiserver-u6mo2zh4dzw6jqhtj72hqo635e", "u3", now.minusSeconds(600),
                        "apiserver-u6mo2zh4dzw6jqhtj72hqo635e_879f3fd8", now.minusSeconds(31), 3600, "ha-server-3"))
                .build());

        assertThat(layers.apiservers().count()).isEqualTo(2);
        assertThat(layers.apiservers().members()).containsExactly("ha-server-1", "ha-server-2");
        assertThat(layers.apiservers().basis()).contains("identity Leases");
        assertThat(layers.notes()).anyMatch(n -> n.contains("ha-server-3") && n.contains("has not renewed"));
        assertThat(layers.notes()).noneMatch(n -> n.contains("count unknown"));
    }

    @Test
    void apiserverAddressWithoutNodeIsCountedByAddress() {
        RoleLayers layers = RoleLayers.of(ControlPlaneFixtures.seed003().apiEndpoints(LEMUEL_IP, "10.50.0.1")
                .build());
        assertThat(layers.apiservers().members()).containsExactly("10.50.0.1", "lemuel");
        assertThat(layers.notes()).anyMatch(n -> n.contains("10.50.0.1 belongs to no Node"));
    }

    @Test
    void nonK3sClusterHasNoAgentFailoverLayer() {
        RoleLayers layers = RoleLayers.of(state().serverVersion("v1.34.1")
                .node(node("cp1").roles("control-plane").ip("10.0.0.1").kubelet("v1.34.1"))
                .apiEndpoints("10.0.0.1").build());
        assertThat(layers.distribution()).isNull();
        assertThat(layers.agentFailover().known()).isFalse();
        assertThat(layers.agentFailover().basis()).startsWith("not applicable");
        assertThat(layers.scheduler().members()).containsExactly("cp1");
    }

    @Test
    void missingLeaseAndExpiredLeaseAreNoted() {
        var state = ControlPlaneFixtures.seed003WithEtcd().build();
        var withoutScheduler = io.nodegate.model.ClusterState.builder(state.now(), state.source())
                .serverVersion(state.serverVersion()).nodes(state.nodes()).apiEndpoints(state.apiEndpoints())
                .controlPlaneLeases(List.of(new LeaseInfo("kube-system", "kube-controller-manager", "u", null,
                        "lemuel_x", state.now().minusSeconds(60), 15)))
                .pods(state.pods()).etcd(state.etcd()).build();

        RoleLayers layers = RoleLayers.of(withoutScheduler);

        assertThat(layers.scheduler().holder()).isNull();
        assertThat(layers.notes()).contains("Lease kube-system/kube-scheduler not found: current kube-scheduler "
                + "leader unknown");
        assertThat(layers.notes()).anyMatch(n -> n.contains("kube-controller-manager expired 45s ago"));
    }

    @Test
    void podsNotReadLeaveCountsUnknown() {
        RoleLayers layers = RoleLayers.of(ControlPlaneFixtures.seed003().noPodsRead().build());
        assertThat(layers.serverNodes()).allSatisfy(n -> assertThat(n.runningPods()).isNull());
        assertThat(layers.notes()).contains("Pods were not read: running pod counts unknown");
    }

    @Test
    void unreadableNodeArgsAreNotedAndCountAsRunningEverything() {
        RoleLayers layers = RoleLayers.of(state()
                .node(node("a").roles("control-plane").k3sArgs("[\"server\",\"--disable-scheduler\""))
                .node(node("b").roles("control-plane"))
                .build());
        assertThat(layers.scheduler().members()).containsExactly("a", "b");
        assertThat(layers.notes()).anyMatch(n -> n.startsWith("Node a: node-args annotation unreadable"));
    }

    @Test
    void holderIdentityIsTheNodeBeforeTheFirstUnderscore() {
        assertThat(RoleLayers.holderNode("lemuel_5c1d7f0a-2b1e-4a0e-9c79-0a1b2c3d4e5f")).isEqualTo("lemuel");
        assertThat(RoleLayers.holderNode("cp-1")).isEqualTo("cp-1");
        assertThat(RoleLayers.holderNode("")).isNull();
    }
}
