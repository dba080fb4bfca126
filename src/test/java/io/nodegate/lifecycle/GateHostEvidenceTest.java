package io.nodegate.lifecycle;

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
        assertThat(replyOnly.out()).startsWith("gate gpu-a11: PASS (not checked: host, fleet)\n")
                .contains("[host]       not checked host evidence (host report, kubelet port)",
                        "no --host-report or --probe-kubelet given: the cleanup (b) rests on the reply's text alone")
                .doesNotContainPattern("\\[host\\]\\s+PASS");

        Path report = hostReport("points-elsewhere", afterTheLease(), true);
        CliRun withReport = gate("--removed-at", seed.a11Reply, "--host-report", report.toString());
        assertThat(withReport.exitCode()).as(withReport.all()).isEqualTo(5);
        assertThat(withReport.out()).contains("gate gpu-a11: FAIL")
                .contains("[c]          PASS")
                .contains("host report: points-elsewhere")
                .contains("the agent points at https://198.51.100.50:9345, not this cluster")
                .contains("198.51.100.51:9345")
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
    void cleanReportIsStepBAndItsRemovalTimeStandsInForTheReply() throws IOException {
        Path report = hostReport("clean", afterTheLease(), true, "--removed-at", seed.a11Reply);
        CliRun run = gate("--host-report", report.toString());
        assertThat(run.exitCode()).as(run.all()).isZero();
        assertThat(run.out()).contains("gate gpu-a11: PASS", "host report: clean",
                "removedAt: " + java.time.OffsetDateTime.parse(seed.a11Reply).toInstant());
    }

    @Test
    void cleanReportWrittenBeforeTheLastHeartbeatHolds() throws IOException {
        Path report = hostReport("clean", seed.a11Lease.minus(Duration.ofMinutes(30)), true);
        CliRun run = gate("--removed-at", seed.a11Reply, "--host-report", report.toString());
        assertThat(run.exitCode()).as(run.all()).isEqualTo(4);
        assertThat(run.out()).contains("before the Lease's last renewal");
    }

    @Test
    void stoppedAgentHolds() throws IOException {
        // cluster A's agents register through the VIP 192.0.2.10, which no Node or kubeconfig names
        CliRun run = gate("--removed-at", seed.a11Reply, "--host-report",
                hostReport("stopped", afterTheLease(), true).toString(), "--cluster-address", "192.0.2.10");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(4);
        assertThat(run.out()).contains("gate gpu-a11: HOLD",
                "the agent is stopped, not removed; it rejoins on start (KillMode=process leaves 5 containers)");
    }

    @Test
    void runningRenamedHostFailsNamingItsNewName() throws IOException {
        CliRun run = gate("--removed-at", seed.a11Reply, "--host-report",
                hostReport("renamed-running", afterTheLease(), true).toString(), "--cluster-address", "192.0.2.10");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(5);
        assertThat(run.out()).contains("host report: running", "registers as new-01 (not gpu-a11");
    }

    @Test
    void reportFromAnotherMachineOrEditedIsInvalid() throws IOException {
        Path other = hostReport("points-elsewhere", afterTheLease(), false);
        CliRun run = gate("--removed-at", seed.a11Reply, "--host-report", other.toString());
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.out()).contains("gate gpu-a11: INVALID",
                "the report is from another machine: its machine-id 3e1f5a7c9b2d4f6a8c0e1a3b5d7f9a07");

        Path edited = tmp.resolve("edited.json");
        Files.writeString(edited, Files.readString(hostReport("stopped", afterTheLease(), true))
                .replace("\"verdict\" : \"stopped\"", "\"verdict\" : \"clean\""));
        CliRun e = gate("--removed-at", seed.a11Reply, "--host-report", edited.toString());
        assertThat(e.exitCode()).as(e.all()).isEqualTo(3);
        assertThat(e.out()).contains("does not match its body");

        CliRun missing = gate("--host-report", tmp.resolve("nope.json").toString());
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("cannot read host report");
    }

    @Test
    void kubeletProbeTellsDepartedFromSilent() throws Exception {
        TestCerts certs = TestCerts.create(Files.createDirectories(tmp.resolve("certs")));
        api.create(new ConfigMapBuilder().withNewMetadata().withName("kube-root-ca.crt").withNamespace("kube-system")
                .endMetadata().addToData("ca.crt", Files.readString(certs.caCert)).build());
        try (KubeletTlsServer clusterB = KubeletTlsServer.start("127.0.0.3", 0,
                certs.otherCaServerCertificate("kubelet-b", "/CN=gpu-a11", "DNS:gpu-a11,IP:127.0.0.3"),
                certs.dir.resolve("kubelet-b.key"))) {
            moveGpuA11To("127.0.0.3");
            CliRun departed = gate("--removed-at", seed.a11Reply, "--probe-kubelet",
                    "--kubelet-port", String.valueOf(clusterB.port()), "--probe-timeout", "2s");
            assertThat(departed.exitCode()).as(departed.all()).isEqualTo(5);
            assertThat(departed.out()).contains("kubelet port: another CA", "CN=someone-else",
                    "the host runs a kubelet for another cluster");

            moveGpuA11To("127.0.0.4");
            CliRun silent = gate("--removed-at", seed.a11Reply, "--probe-kubelet",
                    "--kubelet-port", String.valueOf(clusterB.port()), "--probe-timeout", "2s");
            assertThat(silent.exitCode()).as(silent.all()).isZero();
            assertThat(silent.out()).contains("kubelet port: no answer (consistent with cleanup)");
        }
        api.failOn("GET", "/api/v1/namespaces/kube-system/configmaps/kube-root-ca.crt", 500);
        CliRun broken = gate("--removed-at", seed.a11Reply, "--probe-kubelet", "--kubelet-port", "1");
        assertThat(broken.exitCode()).as(broken.all()).isEqualTo(3);
        assertThat(broken.out()).contains("INVALID", "kube-root-ca.crt");
    }

    private void moveGpuA11To(String ip) {
        var node = api.client().nodes().withName("gpu-a11").get();
        node.getStatus().setAddresses(List.of(new NodeAddressBuilder().withType("InternalIP").withAddress(ip).build(),
                new NodeAddressBuilder().withType("Hostname").withAddress("gpu-a11").build()));
        api.client().nodes().resource(node).update();
    }
}
