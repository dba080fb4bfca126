package io.nodegate.watch;

import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Flags the watch used to accept (and then drop every Event) or fail on as "unexpected". */
class WatchCommandFlagsTest {

    @TempDir
    Path tmp;

    @Test
    void anEventRateThatIsNotAPositiveNumberIsAUsageError() {
        for (String rate : new String[] {"NaN", "Infinity", "-Infinity", "-1", "0"}) {
            CliRun run = CliRun.run("watch", "--event-rate", rate, "--kubeconfig", "/nonexistent");
            assertThat(run.exitCode()).as(rate).isEqualTo(2);
            assertThat(run.err()).as(rate).contains("--event-rate must be a number of Events per second above 0");
        }
        CliRun burst = CliRun.run("watch", "--event-burst", "0", "--kubeconfig", "/nonexistent");
        assertThat(burst.exitCode()).isEqualTo(2);
        assertThat(burst.err()).contains("--event-burst must be at least 1");
    }

    @Test
    void aLeaseDurationTooShortForARoundTripIsAUsageError() {
        CliRun run = CliRun.run("watch", "--lease-duration", "1ms", "--kubeconfig", "/nonexistent");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--lease-duration must be at least 1s").contains("got 1ms");
    }

    @Test
    void aListenPortInUseIsAUsageErrorNamingIt() throws Exception {
        try (ApiTestServer api = ApiTestServer.start();
             ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Path kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));
            CliRun run = CliRun.run("watch", "--kubeconfig", kubeconfig.toString(), "--namespace", "nodegate-system",
                    "--listen", "127.0.0.1:" + taken.getLocalPort());
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err()).contains("--listen 127.0.0.1:" + taken.getLocalPort() + ": cannot listen there")
                    .doesNotContain("failed unexpectedly");
        }
    }

    @Test
    void outsideAClusterItListensOnLoopbackUnlessToldOtherwise() {
        CliRun help = CliRun.run("watch", "--help");
        assertThat(help.out()).contains("(default: 127.0.0.1:9470: this").contains("--listen=:9470");
    }
}
