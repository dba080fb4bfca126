package io.nodegate.cli;

import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The overall deadline names the API server its own command asked last. That server is kept per invocation (in the
 * command's Environment), never process-wide: two commands in one JVM, each against its own API server, each see
 * their own, whichever way the command opens its connection (through the Environment, or from its
 * --kubeconfig options: audit, collect, views, fleet, redundancy, probe, policy), and whether the command then
 * succeeds or fails.
 */
class LastServerAskedTest {

    private static ApiTestServer east;
    private static ApiTestServer west;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        east = ApiTestServer.start();
        west = ApiTestServer.start();
    }

    @AfterAll
    static void stop() {
        east.close();
        west.close();
    }

    private static String withoutSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "audit --kubeconfig KC",
            "collect --kubeconfig KC --dir OUT",
            "views --kubeconfig KC --kubeconfig KC",
            "fleet --kubeconfig KC --kubeconfig KC2",
            "redundancy --kubeconfig KC",
            "probe apiservers --kubeconfig KC --count 1",
            "policy --apply --kubeconfig KC",
            "baseline save --kubeconfig KC --targets worker-01 --control cp-01 --out OUT/baseline.json",
    })
    void twoCommandsInOneJvmEachSeeTheirOwnServer(String line) {
        Path eastKc = east.writeKubeconfig(dir.resolve("east.kubeconfig"));
        Path westKc = west.writeKubeconfig(dir.resolve("west.kubeconfig"));
        east.writeKubeconfig(dir.resolve("east.kubeconfig.copy"), "east-copy");
        west.writeKubeconfig(dir.resolve("west.kubeconfig.copy"), "west-copy");
        Environment eastEnv = Environment.system();
        Environment westEnv = Environment.system();
        assertThat(eastEnv.lastAsked().server()).isNull();

        CliRun.run(eastEnv, args(line, eastKc, dir.resolve("east-" + line.hashCode())));
        CliRun.run(westEnv, args(line, westKc, dir.resolve("west-" + line.hashCode())));

        assertThat(eastEnv.lastAsked().server()).as(line).isEqualTo(withoutSlash(east.url()));
        assertThat(westEnv.lastAsked().server()).as(line).isEqualTo(withoutSlash(west.url()));
    }

    @Test
    void aTestClientsEnvironmentRecordsItsServerToo() {
        Environment env = Environment.system().withClient(east.client());
        CliRun.run(env, "baseline", "save", "--targets", "worker-01", "--control", "cp-01", "--out",
                dir.resolve("client-baseline.json").toString());
        assertThat(env.lastAsked().server()).isEqualTo(withoutSlash(east.url()));
    }

    @Test
    void theDeadlineMessageNamesTheServerWhenOneWasAsked() {
        assertThat(Nodegate.deadlineMessage("audit", Duration.ofMinutes(30), "https://10.0.1.1:6443"))
                .isEqualTo("nodegate: audit did not finish within its overall deadline of 30m (last API server asked: "
                        + "https://10.0.1.1:6443); the result is INVALID. NODEGATE_DEADLINE sets the deadline");
        assertThat(Nodegate.deadlineMessage("etcd", Duration.ofMinutes(45), null))
                .isEqualTo("nodegate: etcd did not finish within its overall deadline of 45m; the result is INVALID. "
                        + "NODEGATE_DEADLINE sets the deadline");
    }

    private static String[] args(String line, Path kubeconfig, Path out) {
        return line.replace("KC2", kubeconfig + ".copy").replace("KC", kubeconfig.toString()).replace("OUT", out.toString()).split(" ");
    }
}
