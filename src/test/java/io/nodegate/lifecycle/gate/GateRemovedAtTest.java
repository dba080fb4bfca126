package io.nodegate.lifecycle.gate;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The host owner's removal time (check [b]) is a report of something that happened: a time ahead of the clock is a
 * typo (a wrong day, a wrong zone) and is refused before anything is read, except for a few minutes of clock skew.
 */
class GateRemovedAtTest extends SeededClusterTest {

    @BeforeEach
    void setUp() {
        seedAtGateTime();
    }

    private CliRun gate(String removedAt) {
        return cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", removedAt);
    }

    private long gateRecords() throws IOException {
        try (Stream<Path> files = Files.list(evidence)) {
            return files.filter(p -> p.getFileName().toString().startsWith("gate-")).count();
        }
    }

    @Test
    void aRemovalTimeInTheFutureIsAUsageErrorAndNothingIsRecorded() throws IOException {
        // the reply's own wall-clock time, a day late: "2026-10-27 15:09" typed for "2026-10-26 15:09"
        String tomorrow = seed.gateTime.plus(Duration.ofDays(1)).atOffset(ZoneOffset.ofHours(9)).toString();
        CliRun g = gate(tomorrow);

        assertThat(g.exitCode()).as(g.all()).isEqualTo(2);
        assertThat(g.err()).contains("--removed-at '" + tomorrow + "'", "1440 min after this machine's clock",
                "a removal cannot be reported before it happens", "up to 5 min ahead is accepted as clock skew");
        assertThat(g.out()).doesNotContain("PASS");
        assertThat(gateRecords()).isZero();
    }

    @Test
    void aFewMinutesAheadIsClockSkewAndIsJudgedNotRefused() {
        String skewed = seed.gateTime.plus(Duration.ofMinutes(4)).atOffset(ZoneOffset.ofHours(9)).toString();
        CliRun g = gate(skewed);

        // judged: the Lease stopped 51 minutes before that time, so [c] holds it, and no usage error
        assertThat(g.exitCode()).as(g.all()).isEqualTo(4);
        assertThat(g.out()).contains("gate gpu-a11: HOLD", "[b]          PASS");
    }
}
