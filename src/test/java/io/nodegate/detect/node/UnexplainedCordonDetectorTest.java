package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.model.OpenHandovers;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.nodegate.testing.NodeFixtures.NOW;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class UnexplainedCordonDetectorTest {

    private final UnexplainedCordonDetector detector = new UnexplainedCordonDetector();
    private static final OpenHandovers NONE_OPEN = OpenHandovers.of(Map.of());

    @Test
    void aCordonOlderThanADayWithNoReasonAndNoOpenHandoverNamesWhoSetIt() {
        var state = cluster().handovers(NONE_OPEN)
                .healthy(node("gpu-a06").cordonedBy("kubectl", NOW.minus(Duration.ofDays(3))))
                .build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG171");
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.nodes()).containsExactly("gpu-a06");
            assertThat(f.message()).contains("cordoned by kubectl (Update) for 3d", "no nodegate.io/cordon-reason",
                    "no open hand-over names it");
            assertThat(f.evidence()).containsEntry("cordonedBy", "kubectl").containsEntry("ageFrom", "managedFields")
                    .containsEntry("cordonedSeconds", 3L * 86_400).containsEntry("handoversRead", true);
            assertThat(f.hint()).contains("nodegate.io/cordon-reason");
        });
    }

    @Test
    void aReasonOrAnOpenHandoverExplainsIt() {
        var since = NOW.minus(Duration.ofDays(5));
        var state = cluster()
                .handovers(OpenHandovers.of(Map.of("gpu-a07", List.of("a06-a10-to-recv"))))
                .healthy(node("gpu-a06").cordonedBy("rancher", since)
                        .annotation("nodegate.io/cordon-reason", "RMA 4411: bad DIMM"))
                .healthy(node("gpu-a07").cordonedBy("kubectl", since))
                .healthy(node("gpu-a08").cordonedBy("kubectl", since).annotation("nodegate.io/cordon-reason", "  "))
                .build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).as("a blank reason is none")
                .extracting(f -> f.nodes().get(0)).containsExactly("gpu-a08");
    }

    @Test
    void aDayOrLessUncordonedOrOfUnknownAgeDoesNotFire() {
        var state = cluster().handovers(NONE_OPEN)
                .healthy(node("fresh").cordonedBy("kubectl", NOW.minus(Duration.ofHours(23))))
                .healthy(node("exactly-a-day").cordonedBy("kubectl", NOW.minus(Duration.ofDays(1))))
                .healthy(node("uncordoned").annotation("nodegate.io/cordon-reason", "stale"))
                .healthy(node("no-age").cordoned(null))
                .build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }

    @Test
    void withoutManagedFieldsTheTaintAgesItAndTheWriterIsUnknown() {
        var state = cluster().handovers(NONE_OPEN)
                .healthy(node("gpu-a06").cordoned(NOW.minus(Duration.ofDays(18)))).build();
        Finding f = detector.detect(state, AuditSettings.DEFAULTS).get(0);
        assertThat(f.message()).contains("by an unknown writer", "for 18d");
        assertThat(f.evidence()).containsEntry("ageFrom", "taint").containsEntry("cordonedBy", null);
    }

    @Test
    void handoversNotReadCannotBeRuledOutSoItIsOnlyInfo() {
        var state = cluster()
                .healthy(node("gpu-a06").cordonedBy("kubectl", NOW.minus(Duration.ofDays(3)))).build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.INFO);
            assertThat(f.message()).contains("NodeHandovers were not read", "cannot be ruled out")
                    .doesNotContain("no open hand-over");
            assertThat(f.evidence()).containsEntry("handoversRead", false);
        });
    }
}
