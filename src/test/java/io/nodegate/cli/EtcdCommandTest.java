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
}
