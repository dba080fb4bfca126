package io.nodegate.lifecycle.gate;

import io.nodegate.testing.TestClock;
import io.nodegate.testing.SeedCluster;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.cli.Environment;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.EtcdCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * "Server nodes: removing the etcd member comes first", against a real etcd cluster (Debian etcd-server on
 * loopback) and the API test server. Three RKE2 servers ctl-1..3 whose etcd members are named as k3s names them
 * ({@code <node>-<8 hex>}); ctl-3's host is cleaned up (its etcd stops, its Lease stops, its apiserver leaves the
 * default/kubernetes endpoints). The gate asks the remaining two etcd endpoints: while they list ctl-3 the gate
 * FAILs and names the member; after the real {@code etcdctl member remove} it passes, saying what is left.
 */
class ServerNodeEtcdScenarioTest {

    @TempDir
    Path tmp;
    ApiTestServer api;
    KubernetesClient client;
    EtcdCluster etcd;
    TestClock clock;
    Path baseline;
    Instant t0;

    static final String[] MEMBERS = {"ctl-1-0a1b2c3d", "ctl-2-4e5f6a7b", "ctl-3-8c9d0e1f"};

    @BeforeEach
    void setUp() {
        etcd = EtcdCluster.start(null, MEMBERS);
        api = ApiTestServer.start();
        client = SeedCluster.client(api.url());
        t0 = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        for (int i = 1; i <= 3; i++) {
            String name = "ctl-" + i;
            Node n = SeedCluster.node(name, "10.0.0." + i, i == 3 ? "Unknown" : "True", false,
                    Map.of("node-role.kubernetes.io/control-plane", "true", "node-role.kubernetes.io/etcd", "true",
                            "node-role.kubernetes.io/master", "true"),
                    "boot-" + name, "uuid-" + name, 0, i == 3 ? a3Heartbeat() : t0, i == 3 ? a3Unknown() : null);
            Map<String, String> ann = new LinkedHashMap<>();
            ann.put("rke2.io/node-args", "[\"server\",\"--node-name\",\"" + name + "\"]");
            // RKE2's etcd member annotations: "etcd." + version.Program + ".cattle.io/node-name" (k3s pkg/etcd/etcd.go)
            ann.put("etcd.rke2.cattle.io/node-name", MEMBERS[i - 1]);
            ann.put("etcd.rke2.cattle.io/node-address", "10.0.0." + i);
            n.getMetadata().setAnnotations(ann);
            api.create(n, SeedCluster.secret(name), SeedCluster.csiNode(name),
                    SeedCluster.lease(name, i == 3 ? a3Lease() : t0));
        }
        api.create(SeedCluster.node("keep-1", "192.0.2.50", "True", false, Map.of("node-role.kubernetes.io/worker",
                "true"), "boot-keep-1", "uuid-keep-1", 0, t0, null), SeedCluster.secret("keep-1"),
                SeedCluster.csiNode("keep-1"), SeedCluster.lease("keep-1", t0));
        api.create(new PodBuilder().withNewMetadata().withName("web-1").withNamespace("default").withUid("uid-web-1")
                .endMetadata().withNewSpec().withNodeName("keep-1").endSpec().build());
        // ctl-3's apiserver stopped with its host: the lease endpoint reconciler dropped its address
        api.create(apiEndpoints("10.0.0.1", "10.0.0.2"));
        while (Instant.now().isBefore(t0)) {
            sleep(20);
        }
        clock = new TestClock(t0);
        baseline = tmp.resolve("evidence").resolve("baseline.json");
        List<String> args = new ArrayList<>(List.of("baseline", "save", "--targets", "ctl-3", "--control", "keep-1",
                "--evidence-dir", tmp.resolve("evidence").toString(), "--out", baseline.toString()));
        etcd.clientUrls().forEach(u -> args.addAll(List.of("--etcd-endpoint", u)));
        CliRun saved = cli(args.toArray(String[]::new));
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        // the host owner runs rke2-uninstall.sh on ctl-3: its etcd stops, still a registered member
        etcd.stop(MEMBERS[2]);
        clock.set(t0.plus(Duration.ofMinutes(115)));
    }

    @AfterEach
    void tearDown() {
        if (client != null) {
            client.close();
        }
        if (api != null) {
            api.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    Instant a3Heartbeat() {
        return t0.plus(Duration.ofMinutes(65));
    }

    Instant a3Lease() {
        return t0.plus(Duration.ofMinutes(67));
    }

    Instant a3Unknown() {
        return t0.plus(Duration.ofMinutes(68));
    }

    String reply() {
        return OffsetDateTime.ofInstant(t0.plus(Duration.ofMinutes(69)), ZoneOffset.ofHours(9)).toString();
    }

    static EndpointSlice apiEndpoints(String... ips) {
        EndpointSliceBuilder b = new EndpointSliceBuilder().withNewMetadata().withName("kubernetes")
                .withNamespace("default").withLabels(Map.of("kubernetes.io/service-name", "kubernetes"))
                .endMetadata().withAddressType("IPv4");
        for (String ip : ips) {
            b.addNewEndpoint().withAddresses(ip).endEndpoint();
        }
        return b.addNewPort().withName("https").withPort(6443).withProtocol("TCP").endPort().build();
    }

    CliRun cli(String... args) {
        return CliRun.run(Environment.system().withClient(client).withClock(clock).withSleeper(clock), args);
    }

    CliRun gate(boolean withEtcd) {
        List<String> args = new ArrayList<>(List.of("gate", "ctl-3", "--baseline", baseline.toString(),
                "--removed-at", reply()));
        if (withEtcd) {
            // the endpoints of the servers that stay: ctl-3's own no longer answers
            args.addAll(List.of("--etcd-endpoint", etcd.member(MEMBERS[0]).clientUrl(),
                    "--etcd-endpoint", etcd.member(MEMBERS[1]).clientUrl()));
        }
        return cli(args.toArray(String[]::new));
    }

    @Test
    void aServerStillListedByEtcdFailsAndPassesAfterEtcdctlMemberRemove() throws Exception {
        CliRun listed = gate(true);

        assertThat(listed.exitCode()).as(listed.all()).isEqualTo(5);
        assertThat(listed.out()).contains("gate ctl-3: FAIL", "[etcd]       FAIL     etcd member removed",
                "ctl-3 is still etcd member ");
        Matcher command = Pattern.compile("etcdctl member remove ([0-9a-f]+)").matcher(listed.out());
        assertThat(command.find()).as(listed.out()).isTrue();
        String memberId = command.group(1);

        // the operator checks the servers that stay are healthy (etcd refuses a reconfiguration that would leave the
        // cluster unhealthy, --strict-reconfig-check), then runs the command the gate printed, with the real etcdctl
        String stay = etcd.member(MEMBERS[0]).clientUrl() + "," + etcd.member(MEMBERS[1]).clientUrl();
        io.nodegate.testing.Await.until("the staying etcd members report healthy", Duration.ofSeconds(60),
                () -> healthy(stay));
        Etcdctl removal = etcdctl("--endpoints", etcd.member(MEMBERS[0]).clientUrl(), "member", "remove", memberId);
        assertThat(removal.exit()).as(removal.said()).isZero();
        // etcdctl pads the ID to 16 columns with spaces: parsed, never matched as text
        assertThat(io.nodegate.testing.EtcdCluster.removedMemberId(removal.said())).as(removal.said())
                .isEqualTo(Long.parseUnsignedLong(memberId, 16));

        CliRun afterRemoval = gate(true);

        assertThat(afterRemoval.exitCode()).as(afterRemoval.all()).isZero();
        assertThat(afterRemoval.out()).contains("gate ctl-3: PASS", "[etcd]       PASS     etcd member removed",
                "[redundancy] PASS     what removing it leaves",
                "etcd voters: 2 -> 2 (quorum 2, tolerates 0 failures) [ctl-1, ctl-2]",
                "kube-apiserver: 2 -> 2 [ctl-1, ctl-2]", "supervisors (servers): 3 -> 2 [ctl-1, ctl-2]");
        assertThat(afterRemoval.out()).contains("[d]          PASS");
    }

    @Test
    void withoutEtcdEndpointsAServerIsNotCheckedAndNeverPasses() {
        CliRun g = gate(false);

        assertThat(g.exitCode()).as(g.all()).isEqualTo(5);
        assertThat(g.out()).contains("[etcd]       not checked etcd member removed", "no --etcd-endpoint given",
                "has server role(s) [control-plane, etcd, master]");
    }

    @Test
    void anEndpointThatDoesNotAnswerMakesTheRunInvalid() {
        // ctl-3's own endpoint, stopped with its host, given by mistake
        CliRun g = cli("gate", "ctl-3", "--baseline", baseline.toString(), "--removed-at", reply(),
                "--etcd-endpoint", etcd.member(MEMBERS[0]).clientUrl(),
                "--etcd-endpoint", etcd.member(MEMBERS[2]).clientUrl(), "--etcd-timeout", "1s");

        assertThat(g.exitCode()).as(g.all()).isEqualTo(3);
        assertThat(g.all()).contains(etcd.member(MEMBERS[2]).clientUrl());
    }

    record Etcdctl(int exit, String said) {
    }

    private static boolean healthy(String endpoints) {
        try {
            return etcdctl("--endpoints", endpoints, "endpoint", "health").exit() == 0;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static Etcdctl etcdctl(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(EtcdCluster.findOnPath("etcdctl")));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Etcdctl(p.waitFor(), said);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
