package io.nodegate.handover.run;

import io.nodegate.handover.StepRecord;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CordonReasonsTest {

    private static StepRecord step1(String by) {
        return new StepRecord(1, by, Instant.parse("2026-10-08T01:40:00Z"), null, null, List.of());
    }

    @Test
    void theReasonNamesTheHandOverTheStepWhoAndWhen() {
        assertThat(CordonReasons.reason("a-to-b", step1("kim")))
                .isEqualTo("hand-over a-to-b, step 1 (empty) recorded by kim at 2026-10-08T01:40:00Z");
    }

    @Test
    void theReasonIsOneShortLineWhateverWasTypedAsBy() {
        String r = CordonReasons.reason("a-to-b", step1("kim\n\u001b[31mred" + "x".repeat(400)));
        assertThat(r).doesNotContain("\n", "\u001b").hasSize(CordonReasons.MAX_LENGTH).endsWith("…");
    }

    @Test
    void theKeyIsEscapedAsAJsonPointer() {
        assertThat(NodeAnnotationPatch.pointer("nodegate.io/cordon-reason")).isEqualTo("nodegate.io~1cordon-reason");
        assertThat(NodeAnnotationPatch.pointer("a~b/c")).isEqualTo("a~0b~1c");
    }
}
