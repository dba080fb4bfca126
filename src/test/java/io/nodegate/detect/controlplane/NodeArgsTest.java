package io.nodegate.detect.controlplane;

import org.junit.jupiter.api.Test;

import static io.nodegate.detect.controlplane.ControlPlaneComponent.APISERVER;
import static io.nodegate.detect.controlplane.ControlPlaneComponent.CONTROLLER_MANAGER;
import static io.nodegate.detect.controlplane.ControlPlaneComponent.ETCD;
import static io.nodegate.detect.controlplane.ControlPlaneComponent.SCHEDULER;
import static org.assertj.core.api.Assertions.assertThat;

class NodeArgsTest {

    @Test
    void flagFollowedByTrueDisablesAndConsumesTheValue() {
        NodeArgs args = NodeArgs.parse("[\"server\",\"--disable-apiserver\",\"true\",\"--disable-scheduler\",\"true\"]");
        assertThat(args.server()).isTrue();
        assertThat(args.disabled()).containsExactlyInAnyOrder(APISERVER, SCHEDULER);
    }

    @Test
    void equalsFormAndBareFlagBothCount() {
        NodeArgs args = NodeArgs.parse("[\"server\",\"--disable-etcd=true\",\"--disable-controller-manager\","
                + "\"--node-name\",\"x\"]");
        assertThat(args.disabled()).containsExactlyInAnyOrder(ETCD, CONTROLLER_MANAGER);
    }

    @Test
    void falseValueAndLaterOccurrenceWin() {
        assertThat(NodeArgs.parse("[\"server\",\"--disable-apiserver\",\"false\"]").disabled()).isEmpty();
        assertThat(NodeArgs.parse("[\"server\",\"--disable-scheduler=false\"]").disabled()).isEmpty();
        assertThat(NodeArgs.parse("[\"server\",\"--disable-scheduler\",\"true\",\"--disable-scheduler=false\"]")
                .disabled()).isEmpty();
    }

    @Test
    void similarFlagsDoNotCount() {
        NodeArgs args = NodeArgs.parse("[\"server\",\"--disable\",\"traefik\",\"--disable-network-policy\","
                + "\"true\",\"--disable-cloud-controller\",\"true\",\"--kube-apiserver-arg\",\"disable-apiserver\"]");
        assertThat(args.disabled()).isEmpty();
    }

    @Test
    void agentIsNotServer() {
        NodeArgs args = NodeArgs.parse("[\"agent\",\"--server\",\"https://10.0.0.1:9345\"]");
        assertThat(args.readable()).isTrue();
        assertThat(args.server()).isFalse();
    }

    @Test
    void absentAndMalformedAnnotationsDisableNothingAndSaySo() {
        assertThat(NodeArgs.parse(null).present()).isFalse();
        NodeArgs broken = NodeArgs.parse("server --disable-apiserver");
        assertThat(broken.present()).isTrue();
        assertThat(broken.readable()).isFalse();
        assertThat(broken.error()).contains("JSON");
        assertThat(broken.disabled()).isEmpty();
        assertThat(NodeArgs.parse("{\"a\":1}").error()).isEqualTo("not a JSON array");
        assertThat(NodeArgs.parse("[\"server\",1]").error()).contains("not a string");
    }
}
