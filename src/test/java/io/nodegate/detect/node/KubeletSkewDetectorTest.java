package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.KubeVersion;
import org.junit.jupiter.api.Test;

import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class KubeletSkewDetectorTest {

    private final KubeletSkewDetector detector = new KubeletSkewDetector();

    @Test
    void parsesDistributionSuffixes() {
        assertThat(KubeVersion.parse("v1.34.3+rke2r3")).contains(new KubeVersion(1, 34, 3));
        assertThat(KubeVersion.parse("v1.30.11+k3s1")).contains(new KubeVersion(1, 30, 11));
        assertThat(KubeVersion.parse("v1.35.0-rc.1")).contains(new KubeVersion(1, 35, 0));
        assertThat(KubeVersion.parse("garbage")).isEmpty();
        assertThat(KubeVersion.parse(null)).isEmpty();
    }

    @Test
    void exactlyThreeMinorsOlderDoesNotFireFourDoes() {
        var state = cluster().serverVersion("v1.34.3+rke2r3")
                .healthy(node("three").kubelet("v1.31.9+rke2r1"))
                .healthy(node("four").kubelet("v1.30.11+rke2r1"))
                .healthy(node("same").kubelet("v1.34.1+rke2r1"))
                .build();

        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG130");
            assertThat(f.nodes()).containsExactly("four");
            assertThat(f.message()).contains("4 minors older");
            assertThat(f.evidence()).containsEntry("minorsOlder", 4);
        });
    }

    @Test
    void newerKubeletFiresAndNodesAreGroupedByVersion() {
        var state = cluster().serverVersion("v1.34.3+k3s1")
                .healthy(node("gpu-a07").kubelet("v1.36.5+rke2r1"))
                .healthy(node("gpu-a08").kubelet("v1.36.5+rke2r1"))
                .healthy(node("patch-newer").kubelet("v1.34.9+k3s1"))
                .build();

        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).singleElement().satisfies(f -> {
            assertThat(f.nodes()).containsExactly("gpu-a07", "gpu-a08");
            assertThat(f.message()).contains("newer");
        });
    }

    @Test
    void unknownServerVersionGivesNoFinding() {
        var state = cluster().serverVersion(null).healthy(node("four").kubelet("v1.20.0")).build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).isEmpty();
        var unparsable = cluster().serverVersion("unknown").healthy(node("four").kubelet("v1.20.0")).build();
        assertThat(detector.detect(unparsable, AuditSettings.DEFAULTS)).isEmpty();
    }
}
