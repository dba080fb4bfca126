package io.nodegate.handover.run;

import io.nodegate.testing.SeedCluster;
import io.nodegate.source.kube.ApiReader;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.nodegate.cli.Environment;
import io.nodegate.deploy.CrdRules;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.NodeHandover;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 000's case 2 replayed live: cluster A and cluster B of examples/fleet-departure each on an API test server.
 * The hand-over of gpu-a07..a10 is open with steps 0 and 1 recorded when gpu-a07..a09 register in cluster B (their
 * agents restarted against it, before step 3). The first look after their arrival shows the violation, naming the
 * Node in B and when it was created; the look before shows none; the gate stays non-PASS and step 3 cannot be
 * recorded.
 */
class HandoverCase2Test {

    private static final Path A = Path.of("examples/fleet-departure/cluster-a");
    private static final Path B = Path.of("examples/fleet-departure/cluster-b");
    private static final Set<String> ARRIVALS = Set.of("b-gpu-07", "b-gpu-08", "b-gpu-09");
    // the batch stopped 05:23:40-05:23:52Z on D+15; a reply "14:24 KST" is 05:24Z, and covers the four
    private static final String[] REPLY = {"--removed-at", "2026-10-22 14:24", "--tz", "Asia/Seoul",
            "--reply-covers", "gpu-a07,gpu-a08,gpu-a09,gpu-a10"};

    @TempDir
    Path tmp;
    private ApiTestServer clusterA;
    private ApiTestServer clusterB;
    private KubernetesClient client;
    private Path kubeconfigB;
    private List<HasMetadata> arrivals;

    private static List<HasMetadata> objects(Path dir, String file) throws IOException {
        try (InputStream in = Files.newInputStream(dir.resolve(file))) {
            return new ArrayList<>(Serialization.unmarshal(in, KubernetesList.class).getItems());
        }
    }

    @BeforeEach
    void serveBothClusters() throws IOException {
        clusterA = ApiTestServer.start();
        for (String file : new String[]{"nodes.json", "node-leases.json", "node-password-secrets.json",
                "daemonsets.json", "csinodes.json"}) {
            clusterA.create(objects(A, file).toArray(HasMetadata[]::new));
        }
        // the positive control needs a pod on keep-1, as every real node has (its CNI DaemonSet pod at least)
        clusterA.create(SeedCluster.dsPod("kube-system", "rke2-canal", "keep-1"));
        CrdRules.install(clusterA);
        client = SeedCluster.client(clusterA.url(), 5000);

        clusterB = ApiTestServer.start();
        kubeconfigB = clusterB.writeKubeconfig(tmp.resolve("b.yaml"), "cluster-b");
        List<HasMetadata> nodesB = objects(B, "nodes.json");
        arrivals = nodesB.stream().filter(n -> ARRIVALS.contains(n.getMetadata().getName())).toList();
        nodesB.removeAll(arrivals);
        clusterB.create(nodesB.toArray(HasMetadata[]::new));
    }

    @AfterEach
    void tearDown() {
        client.close();
        clusterA.close();
        clusterB.close();
    }

    private CliRun cli(String... args) {
        return CliRun.run(Environment.system().withClient(client), args);
    }

    private NodeHandover read() {
        return new HandoverApi(new ApiReader(client)).get("a07-a10").orElseThrow();
    }

    @Test
    void theHostsJoiningClusterBBeforeStep3AreAViolationFromTheFirstLookAfter() {
        CliRun open = cli("handover", "open", "a07-a10", "--nodes", "gpu-a07,gpu-a08,gpu-a09,gpu-a10", "--type",
                "move", "--to", "recv-cluster", "--due", java.time.LocalDate.now(java.time.ZoneOffset.UTC).plusDays(30).toString(), "--requester", "lee",
                "--fleet-kubeconfig", kubeconfigB.toString());
        assertThat(open.exitCode()).as(open.all()).isZero();
        CliRun one = cli("handover", "step", "a07-a10", "1", "--by", "kim", "--fleet-kubeconfig", kubeconfigB.toString());
        assertThat(one.exitCode()).as(one.all()).isZero();

        CliRun before = cli("handover", "status", "a07-a10", "--fleet-kubeconfig", kubeconfigB.toString());
        assertThat(before.exitCode()).as(before.all()).isZero();
        assertThat(read().status().violations()).isEmpty();

        // D+15 05:23:4xZ: the three agents, restarted against cluster B, register there under new names
        clusterB.create(arrivals.toArray(HasMetadata[]::new));

        CliRun after = cli("handover", "status", "a07-a10", "--fleet-kubeconfig", kubeconfigB.toString());

        assertThat(after.exitCode()).as(after.all()).isEqualTo(1);
        HandoverStatus st = read().status();
        assertThat(st.violations()).extracting(HandoverStatus.Violation::kind).containsOnly("host-in-another-cluster");
        assertThat(st.violations()).extracting(HandoverStatus.Violation::node)
                .containsExactlyInAnyOrder("gpu-a07", "gpu-a08", "gpu-a09");
        for (HandoverStatus.Violation v : st.violations()) {
            assertThat(v.firstSeenAt()).as("first seen at the first look after the arrival").isEqualTo(st.observedAt());
            String inB = "b-gpu-" + v.node().substring("gpu-a".length());
            assertThat(v.message()).contains(v.node() + "'s host is " + inB + " in cluster-b (same systemUUID and "
                    + "machineID", "before step 3");
            assertThat(v.happenedAt()).isEqualTo(clusterB.client().nodes().withName(inB).get().getMetadata()
                    .getCreationTimestamp() == null ? null : java.time.Instant.parse(clusterB.client().nodes()
                    .withName(inB).get().getMetadata().getCreationTimestamp()));
        }
        assertThat(after.out()).contains("host-in-another-cluster gpu-a07: happened ");

        // the gate stays non-PASS: the host serves cluster B
        Path baseline = tmp.resolve("baseline.json");
        CliRun saved = cli("baseline", "save", "--targets", "gpu-a07,gpu-a08,gpu-a09,gpu-a10", "--control", "keep-1",
                "--evidence-dir", tmp.resolve("evidence").toString(), "--out", baseline.toString());
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        List<String> gate = new ArrayList<>(List.of("gate", "gpu-a07", "--baseline", baseline.toString()));
        gate.addAll(List.of(REPLY));
        gate.addAll(List.of("--fleet-kubeconfig", kubeconfigB.toString()));
        CliRun g = cli(gate.toArray(String[]::new));
        assertThat(g.exitCode()).as(g.all()).isEqualTo(5);
        assertThat(g.out()).contains("host now serves cluster-b as b-gpu-07");

        // and step 3 cannot be recorded on it (step 2 recorded first, as the infra team would)
        CliRun two = cli("handover", "step", "a07-a10", "2", "--by", "infra-kim", "--removed-at", "2026-10-22 14:24",
                "--tz", "Asia/Seoul", "--fleet-kubeconfig", kubeconfigB.toString());
        assertThat(two.exitCode()).as(two.all()).isZero();
        CliRun three = cli("handover", "step", "a07-a10", "3", "--by", "kim", "--baseline", baseline.toString(),
                "--fleet-kubeconfig", kubeconfigB.toString());
        assertThat(three.exitCode()).as(three.all()).isEqualTo(5);
        assertThat(three.err()).contains("gpu-a07: the newest gate record for gpu-a07 is FAIL");
        assertThat(read().recorded(3)).isFalse();
        // the violation stays on the record, with the time it was first seen
        assertThat(read().status().violations()).filteredOn(v -> "gpu-a07".equals(v.node())).singleElement()
                .satisfies(v -> assertThat(v.firstSeenAt()).isEqualTo(st.observedAt()));
    }
}
