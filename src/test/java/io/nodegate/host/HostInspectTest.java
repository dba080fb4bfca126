package io.nodegate.host;

import io.nodegate.model.host.HostReport;
import io.nodegate.model.host.HostVerdict;
import io.nodegate.InputException;
import io.nodegate.source.host.HostReportJson;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * `nodegate host inspect` on the fake host trees of src/test/resources/host-trees (written by generate.py there),
 * one per host state of seeds 000 and 002, with a stub systemctl that answers as systemd did on such a host.
 */
class HostInspectTest {

    static final Path TREES = Path.of("src/test/resources/host-trees");
    static final String CLUSTER_A = "https://192.0.2.10:9345";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    static CliRun inspect(String treeCase, String... extra) {
        String[] base = {"host", "inspect", "--root", TREES.resolve(treeCase).resolve("tree").toString(),
                "--systemctl", TREES.resolve(treeCase).resolve("systemctl").toString()};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return CliRun.run(args);
    }

    static JsonNode json(CliRun run) {
        return JSON.readTree(run.out());
    }

    @Test
    void uninstalledHostIsClean() {
        CliRun run = inspect("clean", "-o", "json", "--expect-server", CLUSTER_A);
        assertThat(run.exitCode()).as(run.all()).isEqualTo(0);
        JsonNode r = json(run);
        assertThat(r.path("verdict").asString()).isEqualTo("clean");
        assertThat(r.path("distribution").asString()).isEqualTo("none");
        assertThat(r.path("identity").path("machineId").asString()).isEqualTo("3e1f5a7c9b2d4f6a8c0e1a3b5d7f9a11");
        assertThat(r.path("identity").path("productUuid").asString()).isEqualTo("4C4C4544-0047-3310-8035-C4C04F4A3131");
        assertThat(r.path("identity").path("bootId").asString()).isEqualTo("0b7e9a52-6c1d-4e8f-9a3b-2d4c6e8f0a11");
        assertThat(r.path("schemaVersion").asInt()).isEqualTo(1);
        assertThat(r.path("sha256").asString()).hasSize(64);
        assertThat(r.path("warnings")).isEmpty();
    }

    @Test
    void stoppedAgentLeavesConfigAndWhatKillModeProcessKeeps() {
        CliRun run = inspect("stopped", "-o", "json", "--expect-server", CLUSTER_A);
        assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
        JsonNode r = json(run);
        assertThat(r.path("verdict").asString()).isEqualTo("stopped");
        assertThat(r.path("leftovers").path("containerdShims").asInt()).isEqualTo(5);
        assertThat(r.path("leftovers").path("podVolumeMounts").asInt()).isEqualTo(6);
        assertThat(r.path("leftovers").path("cniInterfaces")).hasSize(5);
        // config.yaml.d/50-node-ip.yaml adds node-ip on top of config.yaml
        assertThat(r.path("config").path("nodeIp").asString()).isEqualTo("192.0.2.26");
        assertThat(r.path("config").path("files")).hasSize(2);
        // systemd's monotonic stop time (52200 s after boot) plus /proc/stat's btime
        assertThat(r.path("removal").path("at").asString())
                .isEqualTo(Instant.ofEpochSecond(1792396800L + 52200).toString());
        assertThat(r.path("warnings").toString()).contains("rke2-agent is stopped but enabled");
    }

    @Test
    void serverSwitchedToClusterBPointsElsewhere() {
        CliRun run = inspect("points-elsewhere", "-o", "json", "--expect-server", CLUSTER_A);
        assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
        JsonNode r = json(run);
        assertThat(r.path("verdict").asString()).isEqualTo("points-elsewhere");
        assertThat(r.path("verdictReasons").get(0).asString()).contains("https://198.51.100.50:9345")
                .contains("198.51.100.51:9345");
        assertThat(r.path("leftovers").path("containerdShims").asInt()).isEqualTo(13);
        assertThat(r.path("leftovers").path("podVolumeMounts").asInt()).isEqualTo(17);
        assertThat(r.path("leftovers").path("cniInterfaces").toString().split("cali", -1)).hasSize(9);
        assertThat(r.path("services").toString()).contains("\"unit\":\"rancher-system-agent\",\"loadState\":\"loaded\","
                + "\"activeState\":\"active\"");
        // without a cluster to compare with, the same host is only "stopped": the config could be anyone's
        assertThat(json(inspect("points-elsewhere", "-o", "json")).path("verdict").asString()).isEqualTo("stopped");
    }

    @Test
    void renamedHostWithOldConfigIsRunningUnderItsNewName() {
        CliRun run = inspect("renamed-running", "-o", "json", "--expect-server", CLUSTER_A);
        assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
        JsonNode r = json(run);
        assertThat(r.path("verdict").asString()).isEqualTo("running");
        assertThat(r.path("identity").path("hostname").asString()).isEqualTo("new-01");
        assertThat(r.path("config").path("nodeName").isNull()).isTrue();
        assertThat(r.path("config").path("server").asString()).isEqualTo(CLUSTER_A);
    }

    @Test
    void kubeletActiveButNotEnabledAndWrongNicAreWarned() {
        CliRun run = inspect("kubelet-not-enabled");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
        assertThat(run.out()).contains("host node02: running")
                .contains("kubelet is active but not enabled (disabled)")
                .contains("node-ip is not set, so the kubelet registers the address of eth0 [10.0.2.2/24]")
                .contains("reached through eth1 [192.168.56.22/24]");
        JsonNode r = json(inspect("kubelet-not-enabled", "-o", "json"));
        assertThat(r.path("network").path("defaultRouteInterface").asString()).isEqualTo("eth0");
        assertThat(r.path("network").path("serverInterface").asString()).isEqualTo("eth1");
        assertThat(r.path("distribution").asString()).isEqualTo("kubeadm");
    }

    @Test
    void neitherTokenNorPasswordReachTheReport(@TempDir Path dir) {
        for (String c : new String[]{"stopped", "points-elsewhere", "renamed-running"}) {
            Path out = dir.resolve(c + ".json");
            CliRun run = inspect(c, "--out", out.toString());
            assertThat(run.all()).doesNotContain("s3cr3t").doesNotContain("K10c0ffee").doesNotContain("9f2b7c1d4e5a6b8c");
            assertThat(run.out()).contains("token          set (value not read into this report)");
            assertThat(out).content().doesNotContain("s3cr3t").doesNotContain("9f2b7c1d4e5a6b8c")
                    .contains("\"tokenSet\" : true");
        }
    }

    @Test
    void writtenReportReadsBackAndAnEditIsCaught(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("gpu-a07.json");
        CliRun run = inspect("points-elsewhere", "--out", out.toString(), "--expect-server", CLUSTER_A);
        assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
        HostReport report = HostReportJson.read(out);
        assertThat(report.verdict()).isEqualTo(HostVerdict.POINTS_ELSEWHERE);
        assertThat(report.leftovers().containerdShims()).isEqualTo(13);
        assertThat(report.sha256()).isEqualTo(HostReportJson.seal(report).sha256());

        Path edited = dir.resolve("edited.json");
        Files.writeString(edited, Files.readString(out).replace("\"points-elsewhere\"", "\"clean\""));
        assertThatThrownBy(() -> HostReportJson.read(edited)).isInstanceOf(InputException.class)
                .hasMessageContaining("sha256").hasMessageContaining("changed after");

        Path notReport = dir.resolve("baseline.json");
        Files.writeString(notReport, "{\"kind\":\"nodegate.io/baseline\"}");
        assertThatThrownBy(() -> HostReportJson.read(notReport)).isInstanceOf(InputException.class)
                .hasMessageContaining("is not a host report");
    }

    @Test
    void systemctlThatCannotReachSystemdFailsTheInspection() {
        CliRun run = CliRun.run("host", "inspect", "--root", TREES.resolve("stopped/tree").toString(),
                "--systemctl", TREES.resolve("failing-systemctl.sh").toString());
        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(run.err()).contains("failing-systemctl.sh show").contains("exited 1").contains("Failed to connect to bus");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void rootWithoutSystemctlIsNeverClean() {
        CliRun run = CliRun.run("host", "inspect", "--root", TREES.resolve("clean/tree").toString(), "-o", "json");
        JsonNode r = json(run);
        assertThat(r.path("services")).isEmpty();
        // it could not tell: never "stopped" (nor clean) without asking systemd
        assertThat(r.path("verdict").asString()).isEqualTo("incomplete");
        assertThat(r.path("verdictReasons").get(0).asString()).startsWith("incomplete: services not read");
        assertThat(r.path("warnings").toString()).contains("services not read");
    }

    @Test
    void badInputIsAUsageError() {
        CliRun missing = CliRun.run("host", "inspect", "--root", "/nonexistent/host-tree");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("--root /nonexistent/host-tree is not a directory");
        CliRun badTime = inspect("clean", "--removed-at", "yesterday");
        assertThat(badTime.exitCode()).isEqualTo(2);
        assertThat(badTime.err()).contains("--removed-at 'yesterday'");
        assertThat(CliRun.run("host", "inspect", "--help").exitCode()).isZero();
        assertThat(CliRun.run("host", "-h").exitCode()).isZero();
    }
}
