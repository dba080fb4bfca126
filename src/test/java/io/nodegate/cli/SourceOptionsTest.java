package io.nodegate.cli;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.model.ClusterState;
import io.nodegate.source.Fixtures;
import io.nodegate.InputException;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SourceOptionsTest {

    @TempDir
    Path dir;

    @Command(name = "probe")
    static final class Probe {
        @Mixin
        SourceOptions source = new SourceOptions();
    }

    private static SourceOptions parse(String... args) {
        Probe p = new Probe();
        new CommandLine(p).parseArgs(args);
        return p.source;
    }

    @Test
    void dumpsAndALiveContextCannotBeMixed() throws IOException {
        Path f = Files.writeString(dir.resolve("n.json"), "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\"}}");
        assertThatThrownBy(() -> parse("-f", f.toString(), "--context", "prod").load(false))
                .isInstanceOf(InputException.class).hasMessageContaining("-f cannot be combined with --context");
        assertThatThrownBy(() -> parse("--now", "2026-10-19T06:10:00Z").load(false))
                .isInstanceOf(InputException.class).hasMessageContaining("--now applies to -f");
        ClusterState s = parse("-f", f.toString(), "--now", "2026-10-19T06:10:00Z").load(false);
        assertThat(s.nodes()).hasSize(1);
    }

    @Test
    void liveLoadAndConnectHonourKubeconfigAndContext() {
        try (ApiTestServer api = ApiTestServer.start()) {
            api.create(Fixtures.cluster(2, false).toArray(HasMetadata[]::new));
            Path kc = api.writeKubeconfig(dir.resolve("kc"), "lab");
            ClusterState s = parse("--kubeconfig", kc.toString(), "--context", "lab").load(true);
            assertThat(s.nodes()).hasSize(5);
            assertThat(s.context()).isEqualTo("lab");
            assertThat(s.pods().present()).isTrue();
            // the connection's fabric8 client (for writes) is built from the same kubeconfig, on first use
            try (io.nodegate.source.kube.KubeConnection connection = parse("--kubeconfig", kc.toString()).live.connect()) {
                assertThat(connection.clientBuilt()).isFalse();
                assertThat(connection.client().nodes().list().getItems()).hasSize(5);
            }
            assertThatThrownBy(() -> parse("--kubeconfig", kc.toString(), "--context", "prod").load(false))
                    .isInstanceOf(InputException.class).hasMessageContaining("available contexts: lab");
        }
    }

    @Test
    void dashReadsTheDumpFromStandardInput() throws Exception {
        SourceOptions o = new SourceOptions();
        o.files = new java.util.ArrayList<>(java.util.List.of(java.nio.file.Path.of("-")));
        o.now = "2026-10-22T06:10:00Z";
        o.stdin = new java.io.ByteArrayInputStream(
                java.nio.file.Files.readAllBytes(java.nio.file.Path.of("examples/cluster-a-batch-stop/nodes.json")));
        io.nodegate.model.ClusterState state = o.load(false);
        org.assertj.core.api.Assertions.assertThat(state.nodes()).hasSize(34);
        org.assertj.core.api.Assertions.assertThat(state.nodes()).anyMatch(n -> n.name().equals("gpu-a08"));
    }

    /** 'kubectl get nodes -o json | nodegate audit -f -' (README, audit --help): the pipe was read now, so now is its clock. */
    @Test
    void aDumpPipedInWithoutNowIsJudgedAtTheMomentItWasRead() throws Exception {
        SourceOptions o = parse("-f", "-");
        java.time.Instant readAt = java.time.Instant.parse("2026-10-19T06:10:00Z");
        o.clock = java.time.Clock.fixed(readAt, java.time.ZoneOffset.UTC);
        o.stdin = new java.io.ByteArrayInputStream(Files.readAllBytes(Path.of("examples/cluster-a-batch-stop/nodes.json")));
        ClusterState state = o.load(false);
        assertThat(state.now()).isEqualTo(readAt);
        // the source line names standard input, never the temporary copy nodegate parsed
        assertThat(state.source()).isEqualTo("offline: - (standard input, read at 2026-10-19T06:10:00Z)")
                .doesNotContain("nodegate-stdin");
    }

    @Test
    void standardInputBesideAFileGivesNoClockAndErrorsNameStandardInput() throws Exception {
        Path f = Files.writeString(dir.resolve("n.json"), "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\"}}");
        SourceOptions mixed = parse("-f", f.toString(), "-f", "-");
        mixed.stdin = new java.io.ByteArrayInputStream(Files.readAllBytes(Path.of("examples/cluster-a-batch-stop/nodes.json")));
        assertThatThrownBy(() -> mixed.load(false)).isInstanceOf(InputException.class)
                .hasMessageContaining("no clock for the dump").hasMessageContaining("the files may be older");

        SourceOptions broken = parse("-f", "-");
        broken.stdin = new java.io.ByteArrayInputStream("{\"kind\": \"NodeList\", \"items\": [".getBytes());
        assertThatThrownBy(() -> broken.load(false)).isInstanceOf(InputException.class)
                .hasMessageStartingWith("-f - (standard input): truncated JSON").hasMessageNotContaining("nodegate-stdin");
    }
}
