package io.nodegate.lifecycle.evidence;

import io.nodegate.time.TimeFlags;
import io.nodegate.testing.CliRun;
import io.nodegate.InputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EvidenceAndInputTest {

    @TempDir
    Path tmp;

    @Test
    void durableWriteLeavesExactlyTheFileAndNoTemporaries() throws Exception {
        EvidenceStore store = new EvidenceStore(tmp.resolve("e"));
        Path p = store.writeJson("remove-x/node.json", Map.of("b", 2, "a", 1));
        assertThat(Files.readString(p)).isEqualTo("{\n  \"a\" : 1,\n  \"b\" : 2\n}\n");
        try (var s = Files.list(p.getParent())) {
            assertThat(s.map(f -> f.getFileName().toString()).toList()).containsExactly("node.json");
        }
        assertThat(EvidenceStore.sha256(p)).hasSize(64).isEqualTo(EvidenceStore.sha256(Files.readAllBytes(p)));
    }

    @Test
    void writesThatCannotHappenFailLoudlyAndEscapesAreRefused() throws Exception {
        Path file = Files.writeString(tmp.resolve("plain"), "x");
        EvidenceStore blocked = new EvidenceStore(file.resolve("sub"));
        assertThatThrownBy(blocked::ensureWritable).isInstanceOf(InputException.class).hasMessageContaining("not writable");
        assertThatThrownBy(() -> blocked.writeJson("a.json", Map.of())).isInstanceOf(InputException.class);
        EvidenceStore store = new EvidenceStore(tmp.resolve("e"));
        assertThatThrownBy(() -> store.writeJson("../outside.json", Map.of())).isInstanceOf(IllegalArgumentException.class);
        assertThat(tmp.resolve("outside.json")).doesNotExist();
    }

    @Test
    void defaultDirectoryIsPerCluster() {
        assertThat(EvidenceStore.clusterKey("https://cp-vip:6443/")).isEqualTo("cp-vip_6443");
        assertThat(EvidenceStore.clusterKey("https://10.0.0.1:6443")).isNotEqualTo(EvidenceStore.clusterKey("https://10.0.0.2:6443"));
        assertThat(EvidenceStore.defaultDir("https://cp-vip:6443").toString()).endsWith("nodegate/cp-vip_6443");
    }

    @Test
    void removalTimeNeedsAnOffsetOrAZone() {
        Instant expected = Instant.parse("2026-10-19T06:09:00Z");
        assertThat(TimeFlags.parseTime("2026-10-19T15:09:00+09:00", null, "--removed-at")).isEqualTo(expected);
        assertThat(TimeFlags.parseTime("2026-10-19T06:09Z", null, "--removed-at")).isEqualTo(expected);
        assertThat(TimeFlags.parseTime("2026-10-19 15:09", "Asia/Seoul", "--removed-at")).isEqualTo(expected);
        assertThat(TimeFlags.parseTime("2026-10-19T15:09", "+09:00", "--removed-at")).isEqualTo(expected);
        assertThatThrownBy(() -> TimeFlags.parseTime("2026-10-19 15:09", null, "--removed-at"))
                .isInstanceOf(InputException.class).hasMessageContaining("no UTC offset");
        assertThatThrownBy(() -> TimeFlags.parseTime("15:09", "Asia/Seoul", "--removed-at"))
                .isInstanceOf(InputException.class).hasMessageContaining("--removed-at '15:09'");
        assertThatThrownBy(() -> TimeFlags.parseTime("2026-10-19 15:09", "Mars/Base", "--removed-at"))
                .isInstanceOf(InputException.class).hasMessageContaining("--tz");
    }

    @Test
    void commandsRejectBadInputWithExit2AndNameTheFlag() {
        CliRun noBaseline = CliRun.run("gate", "gpu-a11", "--baseline", tmp.resolve("missing.json").toString());
        assertThat(noBaseline.exitCode()).isEqualTo(2);
        assertThat(noBaseline.err()).contains("--baseline", "no such file");
        CliRun help = CliRun.run("gate", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("--removed-at", "HOLD", "Examples:", "default: 5m");
    }
}
