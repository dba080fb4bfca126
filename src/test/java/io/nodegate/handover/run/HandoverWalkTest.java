package io.nodegate.handover.run;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.HostReports;
import io.nodegate.testing.WalkPlayer;
import io.nodegate.testing.DocWalk;
import io.nodegate.testing.SeedCluster;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.nodegate.deploy.CrdRules;
import io.nodegate.handover.NodeHandover;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.testing.AlertmanagerReplicas;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/handover.md's walk, run as written and in order: every command line of the block, with the exit code the page
 * shows for it, against a test API server for the giving cluster (seed 000's cluster A), another for cluster-b, and
 * two real Alertmanager replicas clustered over gossip. What the page leaves to the world happens where its step
 * comments say: the hosts are cleaned up before step 2, the garbage collector follows each DELETE, the hosts join
 * cluster-b before step 5. {@link WalkPlayer} says how each line is mapped onto this machine.
 */
class HandoverWalkTest extends SeededClusterTest {

    static final Path PAGE = Path.of("docs/handover.md");
    static final String HEADING = "## The walk (seed 000's procedure)";

    private ApiTestServer clusterB;
    private AlertmanagerReplicas am;
    private WalkPlayer player;

    @BeforeEach
    void setUp() throws Exception {
        AlertmanagerReplicas.require();
        pollInterval = Duration.ofSeconds(5);
        CliRun saved = seedAndSaveBaseline();
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        clusterB = ApiTestServer.start();
        clusterB.create(SeedCluster.node("b-ctl-1", "198.51.100.50", "True", false,
                Map.of("node-role.kubernetes.io/control-plane", "true"), "boot-b-ctl-1", "uuid-b-ctl-1", 0,
                clock.instant(), null));
        am = AlertmanagerReplicas.start(tmp.resolve("am"), 2);
        player = new WalkPlayer(this, tmp);
        // the workstation's kubeconfig, as $KUBECONFIG would hold it: the context cluster-b names the destination
        player.kubeconfig = clusterB.writeKubeconfig(tmp.resolve("kubeconfig"), "cluster-b");
        player.alertmanagers = am.urls();
    }

    @AfterEach
    void stop() throws Exception {
        if (am != null) {
            am.close();
        }
        if (clusterB != null) {
            clusterB.close();
        }
    }

    @Test
    void theWalkRunsAsWritten() throws Exception {
        DocWalk walk = DocWalk.read(PAGE, HEADING);
        player.onApply = () -> CrdRules.install(api);
        player.onStep = step -> {
            switch (step) {
                case 2 -> {
                    // the owner's cleanup: gpu-a11's host report, written on the host a few minutes after its Lease
                    clock.set(seed.a11Lease.plus(Duration.ofMinutes(3)));
                    Path raw = HostReports.inspect(this::cli, tmp, "clean");
                    try {
                        player.files.put("gpu-a11-host-report.json", HostReports.rewrite(raw,
                                tmp.resolve("gpu-a11-host-report.json"),
                                HostReports.identity(null, "machine-gpu-a11", "UUID-A11")).toString());
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    clock.set(seed.t0.plus(Duration.ofMinutes(75)));
                }
                case 3 -> clock.set(seed.gateTime);
                case 5 -> {
                    clock.advance(Duration.ofHours(20));
                    joinsClusterB("gpu-a11", "b-gpu-11", "198.51.100.71");
                    joinsClusterB("gpu-a10", "b-gpu-10", "198.51.100.70");
                    clock.advance(Duration.ofHours(1));
                }
                default -> {
                }
            }
        };

        player.run(walk);

        NodeHandover h = new HandoverApi(new ApiReader(client)).get("a-to-b").orElseThrow();
        assertThat(h.closed()).isTrue();
        assertThat(h.spec().steps()).extracting(s -> s.step()).containsExactly(0, 1, 2, 3, 4, 5, 6);
        assertThat(h.spec().steps()).allSatisfy(s -> assertThat(s.override()).isNull());
        assertThat(Files.readString(tmp.resolve("a-to-b.html"))).contains("b-gpu-11", "b-gpu-10");
    }

    /** The host, reinstalled, registers in cluster-b under its new name, with cluster-b's role and GPU taint. */
    private void joinsClusterB(String target, String name, String ip) {
        Node n = SeedCluster.node(name, ip, "True", false, Map.of("node-role.kubernetes.io/gpu", "true"),
                "boot-" + name, "uuid-" + target.replace("gpu-", ""), 8, clock.instant(), null);
        n.getStatus().getNodeInfo().setMachineID("machine-" + target);
        n.getSpec().setTaints(List.of(new TaintBuilder().withKey("nvidia.com/gpu").withEffect("NoSchedule").build()));
        clusterB.create(n);
    }
}
