package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import org.junit.jupiter.api.Test;

import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.job;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class FailedPlanJobDetectorTest {

    @Test
    void failedUpgraderJobFiresWithTheNodeNameExtracted() {
        var state = cluster()
                .healthy(node("gpu-a07"))
                .healthy(node("with-with-node"))
                .jobs(job("cattle-system", "apply-system-agent-upgrader-on-gpu-a07-with-3f9c2a1b", true),
                        job("cattle-system", "apply-system-agent-upgrader-on-with-with-node-with-ab12", true))
                .build();

        var findings = new FailedPlanJobDetector().detect(state, AuditSettings.DEFAULTS);

        assertThat(findings).extracting(f -> f.nodes().get(0)).containsExactly("gpu-a07", "with-with-node");
        assertThat(findings.get(0).code()).isEqualTo("NG150");
        assertThat(findings.get(0).evidence()).containsEntry("planHash", "3f9c2a1b").containsEntry("nodeExists", true)
                .containsEntry("failedReason", "BackoffLimitExceeded");
        assertThat(findings.get(0).hint())
                .contains("kubectl -n cattle-system delete job apply-system-agent-upgrader-on-gpu-a07-with-3f9c2a1b");
    }

    @Test
    void jobNamesWithTheControllersShortHashSuffixStillNameTheNode() {
        // system-upgrade-controller's SafeConcatName appends "-<5 chars>" to long names
        var state = cluster().healthy(node("gpu-a07"))
                .jobs(job("cattle-system", "apply-system-agent-upgrader-on-gpu-a07-with-b2aa63709d83b-ba143", true))
                .build();
        assertThat(new FailedPlanJobDetector().detect(state, AuditSettings.DEFAULTS)).singleElement()
                .satisfies(f -> {
                    assertThat(f.nodes()).containsExactly("gpu-a07");
                    assertThat(f.evidence()).containsEntry("nodeExists", true);
                });
    }

    @Test
    void saysWhenTheNodeDoesNotExist() {
        var state = cluster().healthy(node("keep-1"))
                .jobs(job("cattle-system", "apply-system-agent-upgrader-on-gone-1-with-ff00", true)).build();
        assertThat(new FailedPlanJobDetector().detect(state, AuditSettings.DEFAULTS)).singleElement()
                .satisfies(f -> {
                    assertThat(f.evidence()).containsEntry("nodeExists", false);
                    assertThat(f.message()).contains("no Node of that name");
                });
    }

    @Test
    void succeededOtherNamespaceOrOtherJobsDoNotFire() {
        var state = cluster().healthy(node("gpu-a07"))
                .jobs(job("cattle-system", "apply-system-agent-upgrader-on-gpu-a07-with-3f9c2a1b", false),
                        job("default", "apply-system-agent-upgrader-on-gpu-a07-with-3f9c2a1b", true),
                        job("cattle-system", "helm-operation-xyz", true))
                .build();
        assertThat(new FailedPlanJobDetector().detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }
}
