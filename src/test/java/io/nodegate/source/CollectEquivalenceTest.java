package io.nodegate.source;

import io.nodegate.source.kube.RawSnapshot;
import io.nodegate.source.kube.StateAssembler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.nodegate.ExitCode;
import io.nodegate.model.ClusterState;
import io.nodegate.source.dump.CollectionWriter;
import io.nodegate.source.dump.DumpSource;
import io.nodegate.source.kube.LiveSource;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** What `collect` wrote, read back offline, is the state the live read saw (only `source` differs). */
class CollectEquivalenceTest {

    @TempDir
    Path dir;
    private ApiTestServer api;
    private Path kubeconfig;

    @BeforeEach
    void start() {
        api = ApiTestServer.start();
        kubeconfig = api.writeKubeconfig(dir.resolve("kubeconfig"));
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private static ClusterState withSource(ClusterState s, String source) {
        return s.toBuilder().source(source).bmc(null).build();
    }

    private void assertOfflineEqualsLive(boolean withPods) {
        RawSnapshot raw;
        try (LiveSource live = LiveSource.open(kubeconfig, null, java.time.Duration.ofSeconds(10))) {
            raw = live.read(withPods);
        }
        ClusterState liveState = StateAssembler.assemble(raw);
        Path out = dir.resolve("collection-" + withPods);
        CollectionWriter.write(raw, out);
        ClusterState offline = DumpSource.load(List.of(out), null);
        assertThat(offline.source()).startsWith("offline: ").isNotEqualTo(liveState.source());
        assertThat(withSource(offline, liveState.source())).isEqualTo(liveState);
    }

    @Test
    void rancherClusterRoundTrips() {
        api.create(Fixtures.cluster(6, true).toArray(HasMetadata[]::new));
        api.create(Fixtures.pod("default", "web-1", "wrk-0001"));
        assertOfflineEqualsLive(false);
        assertOfflineEqualsLive(true);
    }

    @Test
    void clusterWithoutOptionalApisRoundTripsWithTheSameNotes() {
        api.create(Fixtures.cluster(3, false).toArray(HasMetadata[]::new));
        api.unserve("/apis/storage.k8s.io/v1/csinodes");
        assertOfflineEqualsLive(false);
    }

    @Test
    void collectCommandWritesEveryFileAndNoSecretOrCredential() throws IOException {
        api.create(Fixtures.cluster(4, true).toArray(HasMetadata[]::new));
        Path out = dir.resolve("evidence");
        CliRun run = CliRun.run("collect", "--kubeconfig", kubeconfig.toString(), "--dir", out.toString());
        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.out()).contains("nodes.json").contains("wrote " + out.toAbsolutePath());
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactlyInAnyOrder(
                    "collected.json", "nodes.json", "node-leases.json", "node-password-secrets.json", "csinodes.json",
                    "kubernetes-endpointslices.json", "daemonsets.json", "cattle-system-jobs.json",
                    "kube-system-leases.json", "tombstones.json");
        }
        String everything;
        try (Stream<Path> files = Files.list(out)) {
            everything = String.join("\n", files.map(p -> {
                try {
                    return Files.readString(p);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }).toList());
        }
        assertThat(everything).doesNotContain("TOPSECRET").doesNotContain("VE9QU0VDUkVU")
                .doesNotContain("test-token-not-a-secret").doesNotContain("rke2-serving");
        assertThat(Files.readString(out.resolve("node-password-secrets.json"))).contains("wrk-0003.node-password.rke2");
        assertThat(Files.readString(out.resolve("collected.json"))).contains("\"kind\" : \"NodegateCollection\"")
                .contains("\"context\" : \"" + ApiTestServer.CONTEXT + "\"").contains("\"absent\" : [ ]");

        ClusterState offline = DumpSource.load(List.of(out), null);
        ClusterState liveNow;
        try (LiveSource live = LiveSource.open(kubeconfig, null, java.time.Duration.ofSeconds(10))) {
            liveNow = live.load(false);
        }
        assertThat(withSource(offline, liveNow.source()).withNow(liveNow.now())).isEqualTo(liveNow.withNow(liveNow.now()));
    }

    @Test
    void aFailedCallWritesNothing() {
        api.create(Fixtures.cluster(2, true).toArray(HasMetadata[]::new));
        api.failOn("GET", "/apis/apps/v1/daemonsets", 403);
        Path out = dir.resolve("never");
        CliRun run = CliRun.run("collect", "--kubeconfig", kubeconfig.toString(), "--dir", out.toString());
        assertThat(run.exitCode()).isEqualTo(ExitCode.COLLECTION);
        assertThat(run.err()).contains("LIST daemonsets in all namespaces: 403 Forbidden");
        assertThat(out).doesNotExist();
        assertThat(dir.toFile().list()).allMatch(n -> !n.contains("partial"));
    }

    @Test
    void refusesANonEmptyDirectoryAndDumpInput() throws IOException {
        Path out = Files.createDirectories(dir.resolve("used"));
        Files.writeString(out.resolve("nodes.json"), "{}");
        CliRun nonEmpty = CliRun.run("collect", "--kubeconfig", kubeconfig.toString(), "-o", out.toString());
        assertThat(nonEmpty.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(nonEmpty.err()).contains("not an empty directory")
                // -o DIR still works for one release, with a note that names its replacement
                .contains("collect -o DIR and --output-dir DIR are deprecated").contains("--dir " + out);
        assertThat(Files.readString(out.resolve("nodes.json"))).isEqualTo("{}");
        CliRun dumpInput = CliRun.run("collect", "-f", out.toString(), "--dir", dir.resolve("x").toString());
        assertThat(dumpInput.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(dumpInput.err()).contains("Unknown options: '-f'");
    }
}
