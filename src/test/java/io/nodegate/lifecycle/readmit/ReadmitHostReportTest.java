package io.nodegate.lifecycle.readmit;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.HostReports;
import io.nodegate.testing.SeedCluster;
import io.fabric8.kubernetes.api.model.Node;
import io.nodegate.model.host.HostReport;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * readmit --verify --host-report: gpu-a10 plays a host returned from cluster B and reinstalled. The cluster side
 * passes (Ready, new bootID, new node-password Secret); the host report decides whether the agent really points
 * here, registers under the Node's name and survives a reboot.
 */
class ReadmitHostReportTest extends SeededClusterTest {

    Path running;

    @BeforeEach
    void setUp() throws Exception {
        assertThat(seedAndSaveBaseline().exitCode()).isZero();
        clock.set(Instant.now());
        assertThat(cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--yes").exitCode()).isZero();
        while (Instant.now().isBefore(clock.instant().plusSeconds(1))) {
            Thread.sleep(50); // creation timestamps have whole seconds
        }
        Node n = api.client().nodes().withName("gpu-a10").get();
        n.getStatus().getConditions().get(0).setStatus("True");
        n.getStatus().getConditions().get(0).setReason("KubeletReady");
        n.getStatus().getNodeInfo().setBootID("boot-a10-reinstalled");
        api.client().nodes().resource(n).updateStatus();
        Node spec = api.client().nodes().withName("gpu-a10").get();
        spec.getSpec().getTaints().removeIf(t -> t.getKey().equals("node.kubernetes.io/unreachable"));
        api.client().nodes().resource(spec).update();
        api.create(SeedCluster.secret("gpu-a10"));
        // the renamed-running tree is a host whose rke2-agent is enabled and active against cluster A's VIP
        running = HostReports.inspect(this::cli, tmp, "renamed-running");
    }

    CliRun verify(Path report) {
        return cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--verify", "--host-report",
                report.toString(), "--cluster-address", "192.0.2.10");
    }

    @Test
    void reinstalledAgentPointingHereEnabledAndActivePasses() throws Exception {
        Path report = HostReports.rewrite(running, tmp.resolve("a10.json"),
                HostReports.identity("gpu-a10", "machine-gpu-a10", "uuid-a10"));
        CliRun v = verify(report);
        assertThat(v.exitCode()).as(v.all()).isZero();
        assertThat(v.out()).contains("PASS     the reinstalled agent points here, enabled and active (host report)");
        try (Stream<Path> s = Files.list(evidence)) {
            assertThat(s.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("readmit-verify-gpu-a10-")
                    && n.endsWith(".host-report.json"));
        }
    }

    @Test
    void activeButNotEnabledOrUnderAnotherNameFails() throws Exception {
        Path notEnabled = HostReports.rewrite(running, tmp.resolve("a10-disabled.json"), r -> HostReports.services(
                s -> s.unit().equals("rke2-agent") ? new HostReport.Service(s.unit(), s.loadState(), s.activeState(),
                        s.subState(), "disabled", s.inactiveSince()) : s)
                .apply(HostReports.identity("gpu-a10", "machine-gpu-a10", "uuid-a10").apply(r)));
        CliRun v = verify(notEnabled);
        assertThat(v.exitCode()).as(v.all()).isEqualTo(5);
        assertThat(v.out()).contains("rke2-agent is not enabled (disabled): it will not come back after a reboot");

        Path renamed = HostReports.rewrite(running, tmp.resolve("a10-renamed.json"),
                HostReports.identity(null, "machine-gpu-a10", "uuid-a10"));
        CliRun r = verify(renamed);
        assertThat(r.exitCode()).as(r.all()).isEqualTo(5);
        assertThat(r.out()).contains("the agent registers as new-01, not gpu-a10");
    }

    @Test
    void agentStillPointingAtClusterBFails() throws Exception {
        Path b = HostReports.rewrite(HostReports.inspect(this::cli, tmp, "points-elsewhere"), tmp.resolve("a10-b.json"),
                HostReports.identity("gpu-a10", "machine-gpu-a10", "uuid-a10"));
        CliRun v = verify(b);
        assertThat(v.exitCode()).as(v.all()).isEqualTo(5);
        assertThat(v.out()).contains("the agent points at https://198.51.100.50:9345, not this cluster",
                "rke2-agent is not enabled", "rke2-agent is not active (failed)");
        CliRun withoutVerify = cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--host-report", b.toString());
        assertThat(withoutVerify.exitCode()).isEqualTo(2);
        assertThat(withoutVerify.err()).contains("--host-report goes with --verify");
    }
}
