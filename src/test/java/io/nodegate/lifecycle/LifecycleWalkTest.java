package io.nodegate.lifecycle;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.WalkPlayer;
import io.nodegate.testing.DocWalk;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.Await;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.EtcdCluster;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/lifecycle.md's walk ("The walk in one block"), run as written and in order: every command line of the block,
 * with the exit code the page shows for it, against seed 000's cluster A on the test API server (with gpu-a07..a09,
 * whose Leases stopped in gpu-a10's batch) and a real three-member etcd cluster over TLS, as the page's baseline asks
 * every etcd server. The gate runs at 15:55 KST; the host of gpu-a07 comes back where the page says it does.
 * {@link WalkPlayer} says how each line is mapped onto this machine.
 */
class LifecycleWalkTest extends SeededClusterTest {

    static final String HEADING = "## The walk in one block";
    /** k3s/RKE2 name etcd members {@code <node>-<8 hex>} (k3s pkg/etcd/etcd.go). */
    static final String[] MEMBERS = {"ctl-1-0a1b2c3d", "ctl-2-4e5f6a7b", "ctl-3-8c9d0e1f"};

    private EtcdCluster etcd;
    private WalkPlayer player;

    @BeforeEach
    void setUp() throws java.io.IOException {
        EtcdCluster.requireEtcd();
        pollInterval = Duration.ofSeconds(5);
        TestCerts certs = TestCerts.create(java.nio.file.Files.createDirectories(tmp.resolve("certs")));
        etcd = EtcdCluster.start(new EtcdCluster.Tls(certs.caCert, certs.serverCert, certs.serverKey, certs.ecCert,
                certs.ecSec1Key), MEMBERS);
        CliRun saved = seedAndSaveBaseline();
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        // gpu-a07..a09: cordoned GPU workers whose Leases stopped with gpu-a10's on D+15
        for (String n : List.of("gpu-a07", "gpu-a08", "gpu-a09")) {
            String id = n.replace("gpu-", "");
            api.create(SeedCluster.node(n, "192.0.2." + Integer.parseInt(id.substring(1)), "Unknown", true,
                            Map.of("node-role.kubernetes.io/burnin", "true"), "boot-" + id, "uuid-" + id, 8,
                            seed.a10Lease.minusSeconds(18), seed.a10Lease.plusSeconds(53)),
                    SeedCluster.secret(n), SeedCluster.csiNode(n), SeedCluster.lease(n, seed.a10Lease));
        }
        // the walk's baseline takes its time from the server's Date header, in whole seconds, and the test server
        // stamps creationTimestamp with real time: let the second these Nodes were created in pass (as
        // SeedCluster.populate does), or on a quick machine they read as created at the baseline, i.e. after it
        Instant createdIn = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        Await.until("the second gpu-a07..a09 were created in has passed", Duration.ofSeconds(5),
                () -> Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).isAfter(createdIn));
        player = new WalkPlayer(this, tmp);
        for (int i = 0; i < MEMBERS.length; i++) {
            player.files.put("https://192.0.2.1" + (i + 1) + ":2379", etcd.clientUrls().get(i));
        }
        player.files.put("ca.crt", certs.caCert.toString());
        player.files.put("client.crt", certs.ecCert.toString());
        player.files.put("client.key", certs.ecSec1Key.toString());
    }

    @AfterEach
    void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void theWalkRunsAsWritten() throws Exception {
        DocWalk walk = DocWalk.read(java.nio.file.Path.of("docs/lifecycle.md"), HEADING);
        Instant[] readmitted = new Instant[1];
        player.beforeCommand.put("nodegate gate gpu-a11", () -> clock.set(seed.gateTime));
        player.beforeCommand.put("nodegate verify-gone", () -> clock.advance(Duration.ofHours(20)));
        // days later, gpu-a07 comes back: its new node-password Secret is stamped by the test server's real clock,
        // so from here the commands' clock is the real one again
        player.beforeCommand.put("nodegate baseline save --targets gpu-a07", () -> clock.set(Instant.now()));
        player.beforeCommand.put("nodegate readmit gpu-a07 --baseline base-a07.json --yes",
                () -> readmitted[0] = Instant.now());
        player.beforeCommand.put("nodegate readmit gpu-a07 --baseline base-a07.json --verify", () -> {
            // the new node-password Secret is created a whole second after readmit deleted the old one (creation
            // timestamps have whole seconds)
            Await.until("a second after readmit", Duration.ofSeconds(5),
                    () -> Instant.now().isAfter(readmitted[0].plusSeconds(1)));
            SeedCluster.rejoin(api, "gpu-a07", "uuid-a07");
        });

        player.run(walk);

        assertThat(client.nodes().withName("gpu-a11").get()).isNull();
        assertThat(client.nodes().withName("gpu-a10").get()).isNull();
        assertThat(client.nodes().withName("gpu-a07").get().getStatus().getConditions().get(0).getStatus())
                .isEqualTo("True");
    }
}
