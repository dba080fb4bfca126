package io.nodegate.source;

import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The one reader of input files: a FIFO made nodegate wait for a writer until the 30-minute
 * overall deadline, and /dev/zero as a config or a report grew to 4.3 GB before it failed. Only regular files are
 * read, their size is capped before reading, and the read has a deadline.
 */
class InputFilesTest {

    @TempDir
    Path tmp;

    static Path fifo(Path at) throws Exception {
        Process p = new ProcessBuilder("mkfifo", at.toString()).redirectErrorStream(true).start();
        assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes())).isZero();
        return at;
    }

    @Test
    void aFifoIsRefusedAtOnceWithoutWaitingForAWriter() throws Exception {
        Path pipe = fifo(tmp.resolve("config.yaml"));
        long start = System.nanoTime();
        assertThatThrownBy(() -> InputFiles.read(pipe, "host report", InputFiles.RECORD))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("host report " + pipe + " is a FIFO (named pipe), not a regular file");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void devicesAndLinksToThemAreRefusedBeforeAByteIsRead() throws IOException {
        assertThatThrownBy(() -> InputFiles.read(Path.of("/dev/zero"), "-f", InputFiles.DUMP_STREAM))
                .isInstanceOf(InputException.class).hasMessageContaining("/dev/zero is a character device");
        Path link = Files.createSymbolicLink(tmp.resolve("config.yaml"), Path.of("/dev/zero"));
        assertThatThrownBy(() -> InputFiles.open(link, "-f", InputFiles.DUMP_STREAM))
                .isInstanceOf(InputException.class).hasMessageContaining("is a character device");
        assertThatThrownBy(() -> InputFiles.read(tmp, "--baseline", InputFiles.RECORD))
                .isInstanceOf(InputException.class).hasMessageContaining("is a directory");
        assertThatThrownBy(() -> InputFiles.read(tmp.resolve("absent"), "--baseline", InputFiles.RECORD))
                .isInstanceOf(InputException.class).hasMessageContaining("no such file");
    }

    @Test
    void theSizeIsCappedBeforeReadingAndWhileReading() throws IOException {
        Path big = tmp.resolve("big.json");
        Files.write(big, new byte[4096]);
        InputFiles.Limit small = new InputFiles.Limit(1024, Duration.ofSeconds(5));
        assertThatThrownBy(() -> InputFiles.read(big, "host report", small))
                .isInstanceOf(InputException.class).hasMessageContaining("is 4096 bytes; nodegate reads at most 1024 bytes");
        // a /proc file says size 0 and is still read to its end, within the cap
        assertThat(InputFiles.readString(Path.of("/proc/self/status"), "proc", InputFiles.SMALL)).contains("Name:");
        try (InputStream in = InputFiles.open(big, "-f", new InputFiles.Limit(8192, Duration.ofSeconds(5)))) {
            assertThat(in.readAllBytes()).hasSize(4096);
        }
    }

    @Test
    void standardInputIsCopiedWithACap() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        InputFiles.copy(new ByteArrayInputStream(new byte[100]), out, "-f - (standard input)",
                new InputFiles.Limit(1000, Duration.ofSeconds(5)));
        assertThat(out.size()).isEqualTo(100);
        assertThatThrownBy(() -> InputFiles.copy(new ByteArrayInputStream(new byte[2000]), new ByteArrayOutputStream(),
                "-f - (standard input)", new InputFiles.Limit(1000, Duration.ofSeconds(5))))
                .isInstanceOf(InputException.class).hasMessageContaining("-f - (standard input): more than 1000 bytes");
    }

    @Test
    void aStreamThatNeverEndsMeetsItsDeadlineNamingWhatHung() {
        InputStream endless = new InputStream() {
            @Override
            public int read() throws IOException {
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
                return -1;
            }
        };
        long start = System.nanoTime();
        assertThatThrownBy(() -> InputFiles.copy(endless, new ByteArrayOutputStream(), "-f - (standard input)",
                new InputFiles.Limit(1000, Duration.ofMillis(300))))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("reading -f - (standard input) did not finish within 300ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void theCliRefusesDevicesFifosAndStandardInputWhereItCannotReadIt() throws Exception {
        CliRun zero = CliRun.run("audit", "-f", "/dev/zero");
        assertThat(zero.exitCode()).as(zero.all()).isEqualTo(2);
        assertThat(zero.err()).contains("-f /dev/zero is a character device, not a regular file")
                .doesNotContain("no such file");

        Path pipe = fifo(tmp.resolve("nodes.json"));
        CliRun fromFifo = CliRun.run("audit", "-f", pipe.toString());
        assertThat(fromFifo.exitCode()).as(fromFifo.all()).isEqualTo(2);
        assertThat(fromFifo.err()).contains("is a FIFO (named pipe)");

        CliRun inDirectory = CliRun.run("audit", "-f", tmp.toString());
        assertThat(inDirectory.exitCode()).as(inDirectory.all()).isEqualTo(2);
        assertThat(inDirectory.err()).contains(pipe + " is a FIFO (named pipe), not a regular file");

        CliRun fleet = CliRun.run("fleet", "-f", "-", "-f", "examples/healthy");
        assertThat(fleet.exitCode()).as(fleet.all()).isEqualTo(2);
        assertThat(fleet.err()).contains("-f -: this command does not read standard input")
                .doesNotContain("no such file");

        CliRun kubeconfig = CliRun.run("audit", "--kubeconfig", "/dev/zero");
        assertThat(kubeconfig.exitCode()).as(kubeconfig.all()).isEqualTo(2);
        assertThat(kubeconfig.err()).contains("kubeconfig /dev/zero", "not a file");
    }
}
