package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import org.junit.jupiter.api.Test;

import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class DuplicateInternalIpDetectorTest {

    @Test
    void seedLabWhereEveryVmReportsTheFirstNicFires() {
        var state = cluster()
                .healthy(node("controlplane").internalIp("10.0.2.2"))
                .healthy(node("node01").internalIp("10.0.2.2"))
                .healthy(node("node02").internalIp("10.0.2.2"))
                .healthy(node("node03").internalIp("192.168.56.13"))
                .build();

        assertThat(new DuplicateInternalIpDetector().detect(state, AuditSettings.DEFAULTS)).singleElement()
                .satisfies(f -> {
                    assertThat(f.code()).isEqualTo("NG120");
                    assertThat(f.nodes()).containsExactly("controlplane", "node01", "node02");
                    assertThat(f.evidence()).containsEntry("internalIP", "10.0.2.2");
                    assertThat(f.hint()).contains("node-ip");
                });
    }

    @Test
    void distinctAddressesAndExternalIpsDoNotFire() {
        var state = cluster()
                .healthy(node("a").internalIp("192.168.56.11"))
                .healthy(node("b").internalIp("192.168.56.12"))
                .healthy(node("c"))
                .healthy(node("d"))
                .build();
        assertThat(new DuplicateInternalIpDetector().detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }
}
