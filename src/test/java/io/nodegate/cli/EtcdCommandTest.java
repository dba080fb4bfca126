package io.nodegate.cli;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EtcdCommandTest {

    @Test
    void withoutEndpointOrFilesItIsAUsageError() {
        CliRun run = CliRun.run("etcd");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--etcd-endpoint");
    }

    @Test
    void badEndpointAndTimeoutAreUsageErrors() {
        assertThat(CliRun.run("etcd", "--etcd-endpoint", "10.0.0.1:2379").exitCode()).isEqualTo(2);
        CliRun run = CliRun.run("etcd", "--etcd-endpoint", "http://127.0.0.1:1", "--etcd-timeout", "soon");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--etcd-timeout").contains("'soon' is not a duration");
    }

    @Test
    void certificateWithoutKeyIsAnInputErrorBeforeAnyQuery() {
        CliRun run = CliRun.run("etcd", "--etcd-endpoint", "https://127.0.0.1:1", "--etcd-cert", "/nonexistent.crt");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("without --etcd-key");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void nothingAnsweringIsCollectionFailureWithTheErrorsShown() {
        CliRun run = CliRun.run("etcd", "--etcd-endpoint", "http://127.0.0.1:1", "--etcd-timeout", "1s");
        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(run.out()).contains("http://127.0.0.1:1").contains("connection refused").contains("NG203");
        assertThat(run.err()).contains("no etcd endpoint answered");
    }

    @Test
    void helpTeachesWithExamples() {
        CliRun run = CliRun.run("etcd", "--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("--etcd-endpoint=URL").contains("--etcd-timeout").contains("default: 5s")
                .contains("server-client.key").contains("Exit codes");
    }

    /** `etcd --help` says Nodes come from $KUBECONFIG too: with only KUBECONFIG exported, the Nodes are read. */
    @Test
    void anExportedKubeconfigIsReadForTheMemberAndNodeChecks(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        assertThat(CliRun.run("etcd", "--help").out()).contains("$KUBECONFIG");
        try (io.nodegate.testing.ApiTestServer api = io.nodegate.testing.ApiTestServer.start()) {
            api.create(io.nodegate.source.Fixtures.cluster(2, false).toArray(io.fabric8.kubernetes.api.model.HasMetadata[]::new));
            java.nio.file.Path kc = api.writeKubeconfig(dir.resolve("kc"), "lab");
            CliRun[] run = new CliRun[1];
            io.nodegate.testing.SystemProperties.with(java.util.Map.of("kubeconfig", kc.toString()), () ->
                    run[0] = CliRun.run("etcd", "--etcd-endpoint", "http://127.0.0.1:1", "--etcd-timeout", "1s", "-o", "json"));
            assertThat(run[0].out()).doesNotContain("no Nodes read").contains("context lab");
            // (the negative half needs a process without KUBECONFIG of its own)
            org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("KUBECONFIG") == null, "KUBECONFIG is exported here");
            CliRun without = CliRun.run("etcd", "--etcd-endpoint", "http://127.0.0.1:1", "--etcd-timeout", "1s", "-o", "json");
            assertThat(without.out()).contains("NG204/NG205 skipped: no Nodes read", "export KUBECONFIG");
        }
    }
}
