package io.nodegate.watch.informer;

import io.nodegate.model.Condition;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeSystemInfo;
import io.nodegate.model.Taint;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watch's cache holds one copy of the texts many Nodes repeat: the Node it holds is equal to the one mapped, field
 * by field, so every check reads the same input, and two Nodes share their repeated texts.
 */
class SharedStringsTest {

    /** Each text built anew, as a JSON parser gives it for each Node it reads. */
    private static String text(String s) {
        return new String(s.toCharArray());
    }

    private static NodeInfo node(String name) {
        Instant t = Instant.parse("2026-12-01T09:00:00Z");
        return new NodeInfo(name, text("uid-" + name), text("41"), t,
                Map.of(text("node-role.kubernetes.io/worker"), text("true"), text("kubernetes.io/hostname"), name),
                Map.of(text("rke2.io/node-args"), text("[\"agent\"]")),
                List.of(new Taint(text("node.kubernetes.io/unreachable"), null, text("NoExecute"), t)), true,
                text("10.42.0.0/24"), List.of(new NodeInfo.NodeAddress(text("InternalIP"), text("10.0.0.1"))),
                List.of(new Condition(text("Ready"), text("True"), text("KubeletReady"),
                        text("kubelet is posting ready status"), t, t)),
                new NodeSystemInfo(text("boot"), text("uuid"), text("machine"), text("5.15.0-91-generic"),
                        text("Ubuntu 22.04.3 LTS"), text("v1.30.4+rke2r1"), text("containerd://1.7.17-k3s1")),
                Map.of(text("cpu"), text("64"), text("nvidia.com/gpu"), text("4")), null);
    }

    @Test
    void aSharedNodeIsEqualToTheMappedOneAndTwoNodesShareTheirRepeatedTexts() {
        SharedStrings shared = new SharedStrings();
        NodeInfo a = node("w1");
        NodeInfo b = node("w2");
        NodeInfo heldA = shared.node(a);
        NodeInfo heldB = shared.node(b);

        assertThat(heldA).isEqualTo(a);
        assertThat(heldB).isEqualTo(b);
        assertThat(heldB.systemInfo().kubeletVersion()).isSameAs(heldA.systemInfo().kubeletVersion());
        assertThat(heldB.systemInfo().osImage()).isSameAs(heldA.systemInfo().osImage());
        assertThat(heldB.conditions().get(0).message()).isSameAs(heldA.conditions().get(0).message());
        assertThat(heldB.taints().get(0).key()).isSameAs(heldA.taints().get(0).key());
        assertThat(heldB.labels().get("node-role.kubernetes.io/worker"))
                .isSameAs(heldA.labels().get("node-role.kubernetes.io/worker"));
        assertThat(heldB.capacity().get("cpu")).isSameAs(heldA.capacity().get("cpu"));
        // what is each Node's own is left as it was
        assertThat(heldB.systemInfo().bootId()).isSameAs(b.systemInfo().bootId());
    }

    @Test
    void aTextThatMeetsAnotherInItsSlotReplacesItAndEqualTextsStayEqual() {
        SharedStrings shared = new SharedStrings();
        // "Aa" and "BB" have the same hash: the same slot
        String aa = shared.shared(text("Aa"));
        assertThat(shared.shared(text("BB"))).isEqualTo("BB");
        String again = shared.shared(text("Aa"));
        assertThat(again).isEqualTo("Aa").isNotSameAs(aa);
        assertThat(shared.shared(text("Aa"))).isSameAs(again);
        assertThat(shared.shared(null)).isNull();
    }
}
