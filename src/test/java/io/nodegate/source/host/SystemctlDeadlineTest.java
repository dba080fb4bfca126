package io.nodegate.source.host;

import io.nodegate.CollectionException;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * `host inspect --systemctl` with a command that never answers: the output was read to its end
 * before the 10 s wait began, so a sleeping script kept nodegate waiting, and outlived it. Now the whole run has a
 * deadline that names the command, and the command goes with its process group: its children, and the children
 * that left their parent.
 */
class SystemctlDeadlineTest {

    @TempDir
    Path tmp;

    /** A stand-in for systemctl that starts an orphan and a background child, then sleeps; each sleep is marked. */
    Path sleepingSystemctl(long marker) throws IOException {
        Path script = tmp.resolve("systemctl-" + marker);
        Files.writeString(script, """
                #!/bin/sh
                sh -c 'sleep %d1 &'
                sleep %d2 &
                echo LoadState=loaded
                sleep %d3
                """.formatted(marker, marker, marker));
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    static List<String> alive(long marker) {
        return ProcessHandle.allProcesses()
                .filter(ph -> ph.info().commandLine().orElse("").contains("sleep " + marker))
                .map(ph -> ph.pid() + " " + ph.info().commandLine().orElse(""))
                .toList();
    }

    static List<String> aliveAfterAWhile(long marker) throws InterruptedException {
        List<String> left = alive(marker);
        for (int i = 0; i < 40 && !left.isEmpty(); i++) {
            Thread.sleep(50);
            left = alive(marker);
        }
        return left;
    }

    static long marker() {
        return 90000 + ThreadLocalRandom.current().nextLong(9000);
    }

    @Test
    void aSleepingSystemctlMeetsItsDeadlineAndTakesItsProcessGroupAlong() throws Exception {
        long marker = marker();
        SystemctlServices services = new SystemctlServices(sleepingSystemctl(marker).toString(), Duration.ofSeconds(1));
        long start = System.nanoTime();
        assertThatThrownBy(() -> services.show("rke2-agent", 0)).isInstanceOf(CollectionException.class)
                .hasMessageContaining("systemctl-" + marker + " show --no-pager")
                .hasMessageContaining("rke2-agent` did not finish within 1s; it was killed with its process group");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(8));
        assertThat(aliveAfterAWhile(marker)).as("the command, its child and its orphan").isEmpty();
    }

    @Test
    void aCommandThatAnswersButLeavesAChildHoldingItsOutputIsNotWaitedFor() throws Exception {
        long marker = marker();
        Path script = tmp.resolve("systemctl-quick");
        Files.writeString(script, """
                #!/bin/sh
                sleep %d4 &
                printf 'LoadState=loaded\\nActiveState=inactive\\nSubState=dead\\nUnitFileState=enabled\\n'
                """.formatted(marker));
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        long start = System.nanoTime();
        var s = new SystemctlServices(script.toString(), Duration.ofSeconds(5)).show("rke2-agent", 0);
        assertThat(s.activeState()).isEqualTo("inactive");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
        assertThat(aliveAfterAWhile(marker)).isEmpty();
    }

    @Test
    void hostInspectEndsWithAnErrorNamingTheCommand() throws Exception {
        long marker = marker();
        Path script = sleepingSystemctl(marker);
        long start = System.nanoTime();
        CliRun run = CliRun.run("host", "inspect", "--root", "src/test/resources/host-trees/stopped/tree",
                "--systemctl", script.toString());
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.err()).contains(script + " show --no-pager").contains("did not finish within 10s");
        assertThat(run.out()).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(25));
        assertThat(aliveAfterAWhile(marker)).isEmpty();
    }
}
