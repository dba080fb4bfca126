package io.nodegate.lifecycle.gate;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.HostReports;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NodeAddressBuilder;
import io.nodegate.source.host.HostReportJson;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.KubeletTlsServer;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate reading host-side evidence on seed 000's cluster A: gpu-a11's reply and Lease agree (PASS on time
 * match), and a host report or a kubelet probe says what the Node object cannot. Host reports are written by
 * `host inspect` on the fake host trees, carrying gpu-a11's machine-id and product UUID as its host would.
 */
class GateHostEvidenceTest extends SeededClusterTest {

    @BeforeEach
    void setUp() {
        CliRun saved = seedAndSaveBaseline();
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        clock.set(seed.gateTime);
    }

    /** `host inspect` on a tree at {@code at}, then the report as gpu-a11's host would have written it. */
    Path hostReport(String treeCase, Instant at, boolean asGpuA11, String... extra) throws IOException {
        Instant gateTime = clock.instant();
        clock.set(at);
        Path raw = HostReports.inspect(this::cli, tmp, treeCase, extra);
        clock.set(gateTime);
        if (!asGpuA11) {
            return raw;
        }
        return HostReports.rewrite(raw, tmp.resolve(treeCase + "-gpu-a11.json"),
                HostReports.identity(null, "machine-gpu-a11", "UUID-A11"));
    }

    CliRun gate(String... extra) {
        List<String> args = new ArrayList<>(List.of("gate", "gpu-a11", "--baseline", baseline.toString()));
        args.addAll(List.of(extra));
        return cli(args.toArray(String[]::new));
    }

    Instant afterTheLease() {
        return seed.a11Lease.plus(Duration.ofMinutes(3));
    }

    @Test
    void passOnTimeMatchTurnsIntoFailWhenTheReportPointsElsewhere() throws IOException {
        CliRun replyOnly = gate("--removed-at", seed.a11Reply);
        assertThat(replyOnly.exitCode()).as(replyOnly.all()).isZero();
        // no line says PASS for host evidence that was not given
        assertThat(replyOnly.out()).startsWith("gate gpu-a11: PASS (not checked: host, bmc, fleet)\n")
                .contains("[host]       not checked host evidence (host report, kubelet port)",
                        "no --host-report or --probe-kubelet given: the cleanup (b) rests on the reply's text alone")
                .doesNotContainPattern("\\[host\\]\\s+PASS");

        Path report = hostReport("points-elsewhere", afterTheLease(), true);
        CliRun withReport = gate("--removed-at", seed.a11Reply, "--host-report", report.toString());
        assertThat(withReport.exitCode()).as(withReport.all()).isEqualTo(5);
        assertThat(withReport.out()).containsIgnoringWhitespaces("gate gpu-a11: FAIL")
                .containsIgnoringWhitespaces("[c]          PASS")
                .containsIgnoringWhitespaces("host report: points-elsewhere")
                .containsIgnoringWhitespaces("the agent points at https://198.51.100.50:9345, not this cluster")
                .containsIgnoringWhitespaces("198.51.100.51:9345")
                .doesNotContain("not checked host evidence");

        // the evidence keeps the report byte for byte (its sha256 still holds), and no token or password
        Path kept;
        try (Stream<Path> s = Files.list(evidence)) {
            kept = s.filter(p -> p.getFileName().toString().endsWith(".host-report.json")).findFirst().orElseThrow();
        }
        assertThat(HostReportJson.read(kept).sha256()).isEqualTo(HostReportJson.read(report).sha256());
        try (Stream<Path> s = Files.walk(evidence)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                assertThat(Files.readString(p)).as(p.toString()).doesNotContain("s3cr3t").doesNotContain("9f2b7c1d4e5a6b8c");
            }
        }
    }

    @Test
    void aCleanReportNeverStandsInForTheReply() throws IOException {
        // the host owner gave host inspect the removal time; the gate still wants it from the reply (--removed-at)
        Path report = hostReport("clean", afterTheLease(), true, "--removed-at", seed.a11Reply);
        CliRun run = gate("--host-report", report.toString());
        assertThat(run.exitCode()).as(run.all()).isEqualTo(4);
        assertThat(run.out()).containsIgnoringWhitespaces("gate gpu-a11: HOLD", "[b]          HOLD", "no --removed-at",
                "[host]       PASS     host report: clean");

        CliRun withReply = gate("--removed-at", seed.a11Reply, "--host-report", report.toString());
        assertThat(withReply.exitCode()).as(withReply.all()).isZero();
        assertThat(withReply.out()).containsIgnoringWhitespaces("gate gpu-a11: PASS", "host report: clean");
    }

    @Test
    void aCleanReportWhoseStopTimeDisagreesWithTheReplyHolds() throws IOException {
        Path report = hostReport("clean", afterTheLease(), true, "--removed-at",
                seed.a11Lease.plus(Duration.ofHours(2)).toString());
        CliRun run = gate("--removed-at", seed.a11Reply, "--host-report", report.toString());
        assertThat(run.exitCode()).as(run.all()).isEqualTo(4);
        assertThat(run.out()).containsIgnoringWhitespaces("[host]       HOLD", "the report records the agent stopping at",
                "but the host owner's --removed-at is");
    }

    @Test
    void aReportWrittenBeforeTheLeaseStoppedOrInTheFutureIsRejected() throws IOException {
        Path early = hostReport("clean", seed.a11Lease.minus(Duration.ofMinutes(30)), true);
        CliRun run = gate("--removed-at", seed.a11Reply, "--host-report", early.toString());
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.out()).containsIgnoringWhitespaces("gate gpu-a11: INVALID", "before the Lease's last renewal",
                "it shows the host before the agent stopped");

        Path future = hostReport("clean", seed.gateTime.plus(Duration.ofMinutes(10)), true);
        CliRun ahead = gate("--removed-at", seed.a11Reply, "--host-report", future.toString());
        assertThat(ahead.exitCode()).as(ahead.all()).isEqualTo(3);
        assertThat(ahead.out()).containsIgnoringWhitespaces("gate gpu-a11: INVALID", "after this run's time",
                "more than the 2 minutes a clock may be off");

        // a host clock a minute ahead is within the skew allowed
        Path skewed = hostReport("clean", seed.gateTime.plus(Duration.ofMinutes(1)), true);
        CliRun ok = gate("--removed-at", seed.a11Reply, "--host-report", skewed.toString());
        assertThat(ok.exitCode()).as(ok.all()).isZero();
    }

    /**
     * The trust rule, over the gate's cases: anyone who can write a file can write a clean report (it is bound only
     * to IDs `kubectl get node` shows), so adding one never makes a verdict better.
     */
    @Test
    void aCleanReportNeverMakesAVerdictBetter() throws IOException {
        Path clean = hostReport("clean", afterTheLease(), true, "--removed-at", seed.a11Reply);
        String[][] cases = {
                {},
                {"--removed-at", seed.a11Reply},
                {"--removed-at", seed.a11Lease.plus(Duration.ofHours(3)).toString()},
                {"--removed-at", seed.a11Reply, "--match-window", "1s"},
        };
        List<Integer> rank = List.of(0, 4, 5, 3); // PASS < HOLD < FAIL < INVALID, by exit code
        for (String[] c : cases) {
            CliRun without = gate(c);
            List<String> args = new ArrayList<>(List.of(c));
            args.addAll(List.of("--host-report", clean.toString()));
            CliRun with = gate(args.toArray(String[]::new));
            assertThat(rank.indexOf(with.exitCode())).as(String.join(" ", c) + "\n" + with.all())
                    .isGreaterThanOrEqualTo(rank.indexOf(without.exitCode()));
            if (without.exitCode() != 0) {
                assertThat(with.exitCode()).as(with.all()).isNotZero();
            }
        }
    }

    @Test
    void aReportWrittenWithoutSystemdHolds() throws IOException {
        Instant gateTime = clock.instant();
        clock.set(afterTheLease());
        Path raw = tmp.resolve("no-systemd.json");
        CliRun inspect = cli("host", "inspect", "--root", HostReports.TREES.resolve("clean/tree").toString(),
                "--out", raw.toString());
        assertThat(inspect.exitCode()).as(inspect.all()).isEqualTo(1);
        clock.set(gateTime);
        Path report = HostReports.rewrite(raw, tmp.resolve("no-systemd-gpu-a11.json"),
                HostReports.identity(null, "machine-gpu-a11", "UUID-A11"));
        CliRun run = gate("--removed-at", seed.a11Reply, "--host-report", report.toString());
        assertThat(run.exitCode()).as(run.all()).isEqualTo(4);
        assertThat(run.out()).containsIgnoringWhitespaces("[host]       HOLD     host report: incomplete",
                "could not tell whether an agent runs");
    }

    @Test
    void aFifoAsTheHostReportIsRefusedAtOnce() throws Exception {
        Path pipe = tmp.resolve("report.fifo");
        assertThat(new ProcessBuilder("mkfifo", pipe.toString()).start().waitFor()).isZero();
        long start = System.nanoTime();
        CliRun run = gate("--removed-at", seed.a11Reply, "--host-report", pipe.toString());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
        assertThat(run.exitCode()).as(run.all()).isEqualTo(2);
        assertThat(run.err()).containsIgnoringWhitespaces("host report " + pipe + " is a FIFO (named pipe), not a regular file");
    }

    @Test
    void stoppedAgentHolds() throws IOException {
        // cluster A's agents register through the VIP 192.0.2.10, which no Node or kubeconfig names
        CliRun run = gate("--removed-at", seed.a11Reply, "--host-report",
                hostReport("stopped", afterTheLease(), true).toString(), "--cluster-address", "192.0.2.10");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(4);
        assertThat(run.out()).containsIgnoringWhitespaces("gate gpu-a11: HOLD",
                "the agent is stopped, not removed; it rejoins on start (KillMode=process leaves 5 containers)");
    }

    @Test
    void runningRenamedHostFailsNamingItsNewName() throws IOException {
        CliRun run = gate("--removed-at", seed.a11Reply, "--host-report",
                hostReport("renamed-running", afterTheLease(), true).toString(), "--cluster-address", "192.0.2.10");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(5);
        assertThat(run.out()).containsIgnoringWhitespaces("host report: running", "registers as new-01 (not gpu-a11");
    }

    @Test
    void reportFromAnotherMachineOrEditedIsInvalid() throws IOException {
        Path other = hostReport("points-elsewhere", afterTheLease(), false);
        CliRun run = gate("--removed-at", seed.a11Reply, "--host-report", other.toString());
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.out()).containsIgnoringWhitespaces("gate gpu-a11: INVALID",
                "the report is from another machine: its machine-id 3e1f5a7c9b2d4f6a8c0e1a3b5d7f9a07");

        Path edited = tmp.resolve("edited.json");
        Files.writeString(edited, Files.readString(hostReport("stopped", afterTheLease(), true))
                .replace("\"verdict\" : \"stopped\"", "\"verdict\" : \"clean\""));
        CliRun e = gate("--removed-at", seed.a11Reply, "--host-report", edited.toString());
        assertThat(e.exitCode()).as(e.all()).isEqualTo(3);
        assertThat(e.out()).containsIgnoringWhitespaces("does not match its body");

        CliRun missing = gate("--host-report", tmp.resolve("nope.json").toString());
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).containsIgnoringWhitespaces("host report " + tmp.resolve("nope.json") + ": no such file");
    }

    @Test
    void kubeletProbeTellsDepartedFromSilentBySignature() throws Exception {
        TestCerts certs = TestCerts.create(Files.createDirectories(tmp.resolve("certs")));
        // cluster A and cluster B are both RKE2: their server CAs carry the same kind of name
        TestCerts.Authority clusterA = certs.authority("a-server-ca", "rke2-server-ca@1760000000");
        TestCerts.Authority clusterB = certs.authority("b-server-ca", "rke2-server-ca@1760003600");
        api.create(new ConfigMapBuilder().withNewMetadata().withName("kube-root-ca.crt").withNamespace("kube-system")
                .endMetadata().addToData("ca.crt", Files.readString(clusterA.cert())).build());
        TestCerts.Serving inB = certs.kubeletServing(clusterB, "kubelet-b", "gpu-a11", "127.0.0.3");
        TestCerts.Serving self = certs.kubeletSelfSigned("kubelet-self", "gpu-a11", 1760000123L);
        try (KubeletTlsServer clusterBKubelet = KubeletTlsServer.start("127.0.0.3", 0, inB.chain(), inB.key());
             KubeletTlsServer selfSigned = KubeletTlsServer.start("127.0.0.7", clusterBKubelet.port(), self.chain(),
                     self.key())) {
            String port = String.valueOf(clusterBKubelet.port());
            moveGpuA11To("127.0.0.3");
            CliRun departed = gate("--removed-at", seed.a11Reply, "--probe-kubelet",
                    "--kubelet-port", port, "--probe-timeout", "2s");
            assertThat(departed.exitCode()).as(departed.all()).isEqualTo(5);
            assertThat(departed.out()).containsIgnoringWhitespaces("kubelet port: another cluster's CA", "CN=rke2-server-ca@1760003600",
                    "does not chain to this cluster's CA", "the host runs a kubelet for another cluster");

            // the near miss: the kubelet's own self-signed pair is alive-but-unknown (HOLD), never another cluster
            moveGpuA11To("127.0.0.7");
            CliRun selfRun = gate("--removed-at", seed.a11Reply, "--probe-kubelet",
                    "--kubelet-port", port, "--probe-timeout", "2s");
            assertThat(selfRun.exitCode()).as(selfRun.all()).isEqualTo(4);
            assertThat(selfRun.out()).containsIgnoringWhitespaces("kubelet port: self-signed by this node's kubelet",
                    "CN=gpu-a11-ca@1760000123").doesNotContain("another cluster's CA", "NG303");

            moveGpuA11To("127.0.0.4");
            CliRun silent = gate("--removed-at", seed.a11Reply, "--probe-kubelet",
                    "--kubelet-port", port, "--probe-timeout", "2s");
            assertThat(silent.exitCode()).as(silent.all()).isZero();
            assertThat(silent.out()).containsIgnoringWhitespaces("kubelet port: refused (nothing listens) (consistent with cleanup)");
        }
        try (KubeletTlsServer reset = KubeletTlsServer.resetting("127.0.0.10", 0)) {
            moveGpuA11To("127.0.0.10");
            CliRun resetRun = gate("--removed-at", seed.a11Reply, "--probe-kubelet",
                    "--kubelet-port", String.valueOf(reset.port()), "--probe-timeout", "2s");
            assertThat(resetRun.exitCode()).as(resetRun.all()).isEqualTo(4);
            assertThat(resetRun.out()).containsIgnoringWhitespaces("kubelet port: accepted, then reset").doesNotContain("consistent with cleanup");
        }
        api.failOn("GET", "/api/v1/namespaces/kube-system/configmaps/kube-root-ca.crt", 500);
        CliRun broken = gate("--removed-at", seed.a11Reply, "--probe-kubelet", "--kubelet-port", "1");
        assertThat(broken.exitCode()).as(broken.all()).isEqualTo(3);
        assertThat(broken.out()).containsIgnoringWhitespaces("INVALID", "kube-root-ca.crt");
    }

    private void moveGpuA11To(String ip) {
        var node = api.client().nodes().withName("gpu-a11").get();
        node.getStatus().setAddresses(List.of(new NodeAddressBuilder().withType("InternalIP").withAddress(ip).build(),
                new NodeAddressBuilder().withType("Hostname").withAddress("gpu-a11").build()));
        api.client().nodes().resource(node).update();
    }
}
