package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.nodegate.testing.NodeFixtures.NOW;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class SameHostTwoNamesDetectorTest {

    private static final String UUID = "4c4c4544-0042-3510-8051-b4c04f4e3332";
    private static final String MACHINE = "0f2d7c4e5b6a49d1a3c2b1e0f9d8c7b6";

    @Test
    void sameHostUnderTwoNamesSaysWhichIsOlderAndWhatTheNewerLacks() {
        var state = cluster()
                .node(node("gpu-a02").created(NOW.minusSeconds(180L * 86_400)).role("burnin")
                        .cordoned(NOW.minusSeconds(16L * 86_400))
                        .taint("nvidia.com/gpu", null, "NoSchedule", null)
                        .taint("node.kubernetes.io/unreachable", null, "NoExecute", NOW.minusSeconds(86_400))
                        .systemUuid(UUID).machineId(MACHINE))
                .healthy(node("new-01").created(NOW.minusSeconds(3_600)).systemUuid(UUID).machineId(MACHINE))
                .healthy(node("keep-1").role("burnin"))
                .build();

        List<Finding> findings = new SameHostTwoNamesDetector().detect(state, AuditSettings.DEFAULTS);

        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG110");
            assertThat(f.nodes()).containsExactly("gpu-a02", "new-01");
            assertThat(f.message()).contains("Older object: gpu-a02").contains("same machineID")
                    .contains("new-01 lacks cordon, role label node-role.kubernetes.io/burnin, taint nvidia.com/gpu:NoSchedule")
                    .doesNotContain("unreachable");
            assertThat(f.evidence()).containsEntry("olderNode", "gpu-a02").containsEntry("machineIDsMatch", true);
            assertThat((Map<Object, Object>) f.evidence().get("newerLacks")).containsOnlyKeys("new-01");
        });
    }

    @Test
    void onlySystemUuidMatchingMeansRenamedHostOrClonedVm() {
        var state = cluster()
                .healthy(node("vm-a").systemUuid(UUID).machineId("aaaa1111"))
                .healthy(node("vm-b").created(NOW.minusSeconds(60)).systemUuid(UUID.toUpperCase()).machineId("bbbb2222"))
                .build();

        assertThat(new SameHostTwoNamesDetector().detect(state, AuditSettings.DEFAULTS)).singleElement()
                .satisfies(f -> {
                    assertThat(f.message()).contains("renamed host or a cloned VM");
                    assertThat(f.evidence()).containsEntry("machineIDsMatch", false);
                });
    }

    @Test
    void allZeroAndEmptyUuidsAreIgnored() {
        var state = cluster()
                .healthy(node("a").systemUuid("00000000-0000-0000-0000-000000000000").machineId(MACHINE))
                .healthy(node("b").systemUuid("00000000-0000-0000-0000-000000000000").machineId(MACHINE))
                .healthy(node("c").systemUuid(""))
                .healthy(node("d").systemUuid(""))
                .healthy(node("e").systemUuid(null))
                .healthy(node("f").systemUuid(null))
                .build();

        assertThat(new SameHostTwoNamesDetector().detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }

    @Test
    void distinctHostsDoNotFire() {
        var state = cluster().healthy(node("a")).healthy(node("b")).healthy(node("c")).build();
        assertThat(new SameHostTwoNamesDetector().detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }
}
