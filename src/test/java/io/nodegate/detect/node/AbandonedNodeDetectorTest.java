package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.nodegate.testing.NodeFixtures.NOW;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class AbandonedNodeDetectorTest {

    private final AbandonedNodeDetector detector = new AbandonedNodeDetector();

    @Test
    void cordonedLongerThanTheThresholdFiresFromTheTaintTime() {
        var state = cluster()
                .healthy(node("gpu-a06").cordoned(NOW.minus(Duration.ofDays(18))))
                .build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG170");
            assertThat(f.message()).contains("cordoned for 18d");
            assertThat(f.evidence()).containsEntry("cordonedSeconds", 18L * 86_400)
                    .doesNotContainKey("notReadySince");
        });
    }

    @Test
    void notReadyLongerThanTheThresholdFiresFromTheReadyTransition() {
        var since = NOW.minus(Duration.ofDays(4));
        var state = cluster()
                .node(node("gpu-a07").unknownSince(since.minusSeconds(70), since))
                .build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).singleElement().satisfies(f -> {
            assertThat(f.message()).contains("Ready=Unknown for 4d");
            assertThat(f.evidence()).containsEntry("notReadySince", since.toString());
        });
    }

    @Test
    void youngerThanTheThresholdOrReadyAndUncordonedDoesNotFire() {
        var state = cluster()
                .healthy(node("recently-cordoned").cordoned(NOW.minus(Duration.ofHours(71))))
                .node(node("recently-unknown").unknownSince(NOW.minusSeconds(7200), NOW.minusSeconds(7100)))
                .healthy(node("old-and-fine").created(NOW.minus(Duration.ofDays(400))))
                .build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }

    @Test
    void thresholdComesFromSettings() {
        var state = cluster().healthy(node("a").cordoned(NOW.minus(Duration.ofHours(25)))).build();
        var day = new AuditSettings(Duration.ofSeconds(30), Duration.ofHours(72), Duration.ofHours(24), null);
        assertThat(detector.detect(state, day)).hasSize(1);
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }
}
