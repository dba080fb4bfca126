package io.nodegate.host;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `host inspect` on hostile host trees (a red-team pass): malformed configs whose parse errors printed
 * the join token, a FIFO or /dev/zero where a config should be, YAML aliases read as their names, links that led
 * out of --root onto the inspecting machine's own files, a root without systemd.
 */
class HostInspectHardeningTest {

    static final Path TREES = Path.of("src/test/resources/host-trees");
    /** Answers for units as the clean host's systemd did (no agent unit installed). */
    static final Path CLEAN_SYSTEMCTL = TREES.resolve("clean/systemctl");
    /** A join token shaped as RKE2 writes them (K10<ca hash>::server:<secret>), used as a marker no output may hold. */
    static final String SECRET = "s3cr3tMARKERq7z";
    static final String TOKEN = "K10feedface0123456789abcdef0123456789abcdef0123456789abcdef01234567::server:" + SECRET;

    @TempDir
    Path tmp;

    /** A copy of a fake host tree that the test can change. */
    Path tree(String treeCase) throws IOException {
        Path from = TREES.resolve(treeCase).resolve("tree");
        Path to = tmp.resolve(treeCase + "-" + System.nanoTime());
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, LinkOption.NOFOLLOW_LINKS, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return to;
    }

    /** Every file a test wrote that holds the secret on purpose. */
    final List<Path> inputs = new ArrayList<>();

    Path write(Path root, String rel, String text) throws IOException {
        Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        if (text.contains(SECRET)) {
            inputs.add(p);
        }
        return p;
    }

    static CliRun inspect(Path root, String... extra) {
        List<String> args = new ArrayList<>(List.of("host", "inspect", "--root", root.toString(),
                "--systemctl", CLEAN_SYSTEMCTL.toString()));
        args.addAll(List.of(extra));
        return CliRun.run(args.toArray(String[]::new));
    }

    /** No output stream and no file under the test's directory except the inputs holds the secret. */
    void assertSecretNowhere(CliRun run) throws IOException {
        assertThat(run.out()).as(run.all()).doesNotContain(SECRET);
        assertThat(run.err()).as(run.all()).doesNotContain(SECRET);
        try (Stream<Path> walk = Files.walk(tmp)) {
            for (Path p : walk.filter(Files::isRegularFile).filter(p -> !inputs.contains(p)).toList()) {
                assertThat(Files.readString(p)).as(p.toString()).doesNotContain(SECRET);
            }
        }
    }

    @Test
    void malformedConfigsNameFileAndLineButNeverTheToken() throws IOException {
        // unclosed quote, a colon inside an unquoted token, and the same in a drop-in
        String[][] configs = {
                {"etc/rancher/rke2/config.yaml", "server: https://192.0.2.10:9345\ntoken: \"" + TOKEN + "\nnode-label:\n  - gpu=true\n", "2"},
                {"etc/rancher/rke2/config.yaml", "server: https://192.0.2.10:9345\ntoken: " + TOKEN + ": x: y\n", "2"},
                {"etc/rancher/rke2/config.yaml.d/10-token.yaml", "token: '" + TOKEN + "\n", "1"},
        };
        for (String[] c : configs) {
            Path root = tree("stopped");
            Path config = write(root, c[0], c[1]);
            Path out = tmp.resolve("report-" + System.nanoTime() + ".json");
            CliRun run = inspect(root, "--out", out.toString());
            assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
            assertThat(run.err()).contains("/" + c[0] + " is not valid YAML at line " + c[2])
                    .contains("the line is not shown");
            assertThat(out).doesNotExist();
            assertSecretNowhere(run);
        }
    }

    @Test
    void kubeletConfLoadBalancerFileHostReportKubeconfigAndDumpNeverQuoteTheSecret() throws IOException {
        // kubeadm host: kubelet.conf with an unclosed quoted token
        Path kubeadm = tree("kubelet-not-enabled");
        Path kubeletConf = write(kubeadm, "etc/kubernetes/kubelet.conf", """
                apiVersion: v1
                clusters:
                - cluster:
                    server: https://192.168.56.10:6443
                  name: default
                users:
                - name: default
                  user:
                    token: "%s
                """.formatted(TOKEN));
        CliRun conf = inspect(kubeadm);
        assertThat(conf.exitCode()).as(conf.all()).isEqualTo(3);
        assertThat(conf.err()).contains("/etc/kubernetes/kubelet.conf is not valid YAML at line");
        assertSecretNowhere(conf);

        // the agent load-balancer file with the token where a JSON value should be
        Path stopped = tree("stopped");
        Path lb = write(stopped, "var/lib/rancher/rke2/agent/etc/rke2-agent-load-balancer.json",
                "{\"ServerURL\": " + TOKEN + "}");
        CliRun lbRun = inspect(stopped);
        assertThat(lbRun.exitCode()).as(lbRun.all()).isEqualTo(3);
        assertThat(lbRun.err()).contains("rke2-agent-load-balancer.json is not valid JSON at line 1");
        assertSecretNowhere(lbRun);

        // a host report the gate is given, and a kubeconfig, and a dump: the same rule
        Path report = write(tmp, "report.json", "{\"kind\":\"nodegate.io/host-report\",\"x\": " + TOKEN + "}");
        CliRun gate = CliRun.run("gate", "gpu-a11", "--baseline", "/nonexistent-baseline.json", "--host-report",
                report.toString());
        assertThat(gate.exitCode()).as(gate.all()).isEqualTo(2);
        Path kubeconfig = write(tmp, "kubeconfig", "apiVersion: v1\nusers:\n- name: u\n  user:\n    token: \"" + TOKEN
                + "\n");
        CliRun live = CliRun.run("audit", "--kubeconfig", kubeconfig.toString());
        assertThat(live.exitCode()).as(live.all()).isEqualTo(2);
        assertThat(live.err()).contains("not valid YAML at line");
        Path dump = write(tmp, "secrets.json", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":{\"token\": " + TOKEN
                + "}}");
        CliRun audit = CliRun.run("audit", "-f", dump.toString());
        assertThat(audit.exitCode()).as(audit.all()).isEqualTo(2);
        assertThat(audit.err()).contains("malformed JSON at line 1");
        Path yamlDump = write(tmp, "secrets.yaml", "apiVersion: v1\nkind: Secret\ndata:\n  token: \"" + TOKEN + "\n");
        CliRun yamlAudit = CliRun.run("audit", "-f", yamlDump.toString());
        assertThat(yamlAudit.exitCode()).as(yamlAudit.all()).isEqualTo(2);
        assertThat(yamlAudit.err()).contains("malformed YAML at line");
        for (CliRun r : List.of(gate, live, audit, yamlAudit)) {
            assertSecretNowhere(r);
        }
        // the host report's own parse error names the file and line too
        CliRun reportOnly = CliRun.run("readmit", "gpu-a11", "--verify", "--host-report", report.toString());
        assertThat(reportOnly.all()).doesNotContain(SECRET);
    }

    @Test
    void aFifoOrADeviceWhereAConfigShouldBeIsRefusedAtOnce() throws Exception {
        Path root = tree("stopped");
        Path config = root.resolve("etc/rancher/rke2/config.yaml");
        Files.delete(config);
        Process mkfifo = new ProcessBuilder("mkfifo", config.toString()).start();
        assertThat(mkfifo.waitFor()).isZero();
        long start = System.nanoTime();
        CliRun run = inspect(root);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.err()).contains("config.yaml is a FIFO (named pipe), not a regular file");

        Files.delete(config);
        Files.createSymbolicLink(config, Path.of("/dev/zero"));
        // inside the root, /dev/zero is the tree's own /dev/zero: absent here, so the link leads nowhere
        CliRun dangling = inspect(root);
        assertThat(dangling.exitCode()).as(dangling.all()).isEqualTo(3);
        assertThat(dangling.err()).contains("no such file");
        // climbing out with ".." stops at the root, as in a chroot
        Files.delete(config);
        Files.createSymbolicLink(config, Path.of("../../../../../../../../../../../dev/zero"));
        CliRun zero = inspect(root);
        assertThat(zero.exitCode()).as(zero.all()).isEqualTo(3);
        assertThat(zero.err()).doesNotContain("is a character device").contains("no such file");
        // and a link that names itself inside the root is a loop, not a hang
        Files.createDirectories(root.resolve("dev"));
        Files.createSymbolicLink(root.resolve("dev/zero"), Path.of("/../../dev/zero"));
        CliRun loop = inspect(root);
        assertThat(loop.exitCode()).as(loop.all()).isEqualTo(3);
        assertThat(loop.err()).contains("more than 40 symbolic links");
    }

    @Test
    void yamlAliasesAreRefusedNamingFileAndLine() throws IOException {
        Path root = tree("stopped");
        write(root, "etc/rancher/rke2/config.yaml", "x: &t https://198.51.100.50:9345\nserver: *t\n");
        CliRun run = inspect(root);
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.err()).contains("/etc/rancher/rke2/config.yaml: YAML alias *t at line 2");
        assertThat(run.out()).doesNotContain("\"server\" : \"t\"");
    }

    @Test
    void linksAreFollowedInsideTheRootNeverOntoTheInspectingMachine() throws IOException {
        // files of "another machine" outside the root: what an absolute link would name on the inspecting machine
        Path outside = write(tmp, "outside/etc/hostname", "inspector-host\n");
        write(tmp, "outside/etc/machine-id", "0123456789abcdef0123456789abcdef\n");
        Path root = tree("clean");
        Files.delete(root.resolve("etc/hostname"));
        Files.deleteIfExists(root.resolve("proc/sys/kernel/hostname"));
        Files.createSymbolicLink(root.resolve("etc/hostname"), outside.toAbsolutePath());
        // a relative link that climbs out with ".." is clamped at the root, as in a chroot
        Files.delete(root.resolve("etc/machine-id"));
        Files.createSymbolicLink(root.resolve("etc/machine-id"),
                Path.of("../../../../../../../../../../" + tmp.toAbsolutePath() + "/outside/etc/machine-id"));
        // an absolute link that stays inside the tree is followed there
        write(root, "var/lib/dbus/product_uuid", "4C4C4544-0047-3310-8035-C4C04F4A3131\n");
        Files.delete(root.resolve("sys/class/dmi/id/product_uuid"));
        Files.createSymbolicLink(root.resolve("sys/class/dmi/id/product_uuid"), Path.of("/var/lib/dbus/product_uuid"));

        CliRun run = inspect(root, "-o", "json");
        assertThat(run.err()).doesNotContain("inspector-host");
        JsonNode r = JsonMapper.builder().build().readTree(run.out());
        assertThat(r.path("identity").path("hostname").asString()).isEqualTo("(unknown: no /proc/sys/kernel/hostname "
                + "or /etc/hostname)");
        assertThat(r.path("identity").path("machineId").isNull()).as(run.out()).isTrue();
        assertThat(r.path("identity").path("productUuid").asString()).isEqualTo("4C4C4544-0047-3310-8035-C4C04F4A3131");
        assertThat(run.out()).doesNotContain("inspector-host").doesNotContain("0123456789abcdef0123456789abcdef");
        assertThat(r.path("warnings").toString()).contains("hostname unknown");
    }

    @Test
    void aRootWithoutSystemdIsIncompleteNeverStoppedAndTheHostnameIsNeverNull() throws IOException {
        Path root = tree("stopped");
        CliRun run = CliRun.run("host", "inspect", "--root", root.toString(), "-o", "json");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
        JsonNode r = JsonMapper.builder().build().readTree(run.out());
        assertThat(r.path("verdict").asString()).isEqualTo("incomplete");
        assertThat(r.path("verdictReasons").toString()).contains("incomplete: services not read");
        assertThat(r.path("identity").path("hostname").isNull()).isFalse();

        Files.delete(root.resolve("etc/hostname"));
        Files.delete(root.resolve("proc/sys/kernel/hostname"));
        CliRun table = CliRun.run("host", "inspect", "--root", root.toString());
        assertThat(table.out()).startsWith("host (unknown: no /proc/sys/kernel/hostname or /etc/hostname): incomplete")
                .doesNotContain("null");
    }
}
