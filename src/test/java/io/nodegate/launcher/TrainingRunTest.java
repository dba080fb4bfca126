package io.nodegate.launcher;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The launcher's class-data archive holds only the classes its training run loaded. If a training step fails
 * early (a path the loopback server does not serve, a changed flag), the archive silently misses that path's
 * classes and live commands get slower with nothing failing. This test pins that every step really ran its path.
 */
class TrainingRunTest {

    @Test
    void everyTrainingStepRunsItsPathToTheEnd() throws Exception {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        Map<String, Integer> exits;
        try (PrintStream capture = new PrintStream(sink, true, StandardCharsets.UTF_8)) {
            System.setOut(capture);
            System.setErr(capture);
            exits = TrainingRun.run(Path.of("examples/healthy"));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        String printed = sink.toString(StandardCharsets.UTF_8);
        // a live audit that could not read a list exits 3; one that read them all exits 0 or 1 (ages are taken
        // against the real clock live, so the example's Leases look stale and findings are expected)
        assertThat(exits.get("live audit -o json")).isIn(0, 1);
        assertThat(exits.get("live audit")).isIn(0, 1);
        assertThat(exits).containsEntry("offline audit -o json", 0).containsEntry("offline audit", 0);
        assertThat(exits).containsEntry("baseline save", 0);
        assertThat(exits).containsKey("gate");
        // the gate reads the baseline it was given and reaches a verdict (exit 0, 3, 4 or 5), not a usage error
        assertThat(exits.get("gate")).isIn(0, 3, 4, 5);
        assertThat(printed).contains("gate ").doesNotContain("Unknown option");
    }
}
