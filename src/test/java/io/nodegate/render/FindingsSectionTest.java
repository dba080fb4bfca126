package io.nodegate.render;

import io.nodegate.render.output.Style;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class FindingsSectionTest {

    private static final String LONG = "etcd endpoints answer with 2 different cluster IDs, each its own database "
            + "accepting writes: side 1 = cluster 2ba24d7733cccb3d at https://192.0.2.32:2379, https://192.0.2.31:2379 "
            + "and side 2 = cluster 89e49d7f81553f67 at https://192.0.2.33:2379.";

    private static Finding finding(String message, String hint, List<String> nodes) {
        return new Finding("NG201", "etcd-split-brain", Severity.CRITICAL, nodes, message, Map.of(), hint);
    }

    @Test
    void headlineThenIndentedMessageAndHint() {
        String text = FindingsSection.render(List.of(finding("Short message.", "Do this.", List.of("a", "b"))),
                Style.PLAIN);
        assertThat(text).isEqualTo("""
                FINDINGS (1)
                  NG201 critical  etcd-split-brain  a, b
                    Short message.
                    hint: Do this.
                """);
    }

    @Test
    void noNodesNoHintLeaveNoTrailingSeparators() {
        String text = FindingsSection.render(List.of(finding("Short message.", null, List.of())), Style.PLAIN);
        assertThat(text).isEqualTo("FINDINGS (1)\n  NG201 critical  etcd-split-brain\n    Short message.\n");
    }

    @Test
    void longMessagesWrapAtTheWidthWithIndentAndLoseNoWord() {
        String text = FindingsSection.render(List.of(finding(LONG, LONG, List.of("cp-node-c"))), Style.PLAIN);
        List<String> lines = text.lines().toList();
        assertThat(lines.size()).isGreaterThan(4);
        assertThat(lines).allMatch(l -> l.length() <= FindingsSection.WIDTH);
        assertThat(lines.subList(2, lines.size())).allMatch(l -> l.startsWith("    ") && !l.startsWith("     "));
        assertThat(text.replaceAll("\\s+", " ")).contains(LONG).contains("hint: " + LONG);
    }

    @Test
    void aWordLongerThanALineStaysWhole() {
        String url = "https://" + "x".repeat(130) + ".example";
        List<String> lines = FindingsSection.wrap("see " + url + " now", "    ", "    ");
        assertThat(lines).containsExactly("    see", "    " + url, "    now");
    }

    @Test
    void notesFollowAfterABlankLineAndWrapUnderTheirDash() {
        String text = FindingsSection.block(List.of(), List.of("short note", LONG), Style.PLAIN);
        assertThat(text).startsWith("FINDINGS (0)\n  none\n\nNOTES\n  - short note\n  - etcd endpoints");
        assertThat(text.lines().filter(l -> l.startsWith("    "))).isNotEmpty();
        assertThat(FindingsSection.block(List.of(), List.of(), Style.PLAIN)).isEqualTo("FINDINGS (0)\n  none\n");
    }

    @Test
    void colourWrapsEachHintLineSoNoEscapeSpansALineBreak() {
        String text = FindingsSection.render(List.of(finding("m", LONG, List.of())), new Style(true));
        assertThat(text.lines().filter(l -> l.contains("hint:") || l.startsWith("\u001b[2m")))
                .allMatch(l -> l.startsWith("\u001b[2m") && l.endsWith("\u001b[0m"));
    }
}
