package io.nodegate.lifecycle.gate;

import io.nodegate.testing.TestClock;
import io.nodegate.testing.SeedCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.nodegate.cli.Environment;
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
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate and a batch stop, on examples/cluster-a-batch-stop served by the test API server: gpu-a07..a10's Leases
 * stopped within 12 s of each other (05:23:40-05:23:52Z). Three of those hosts had been restarted against another
 * cluster 3 s later, so a reply time matching gpu-a08's stop must not be enough.
 */
class BatchStopGateTest {

    static final Path EXAMPLE = Path.of("examples/cluster-a-batch-stop");
    // 2026-10-22 14:24 in Seoul is 05:24Z: 13 s after gpu-a08's Lease stopped, well inside the 5m match window
    static final String[] REPLY = {"--removed-at", "2026-10-22 14:24", "--tz", "Asia/Seoul"};

    ApiTestServer api;
    KubernetesClient client;
    @TempDir
    Path tmp;

    @BeforeEach
    void serveTheExample() throws IOException {
        api = ApiTestServer.start();
        for (String file : new String[]{"nodes.json", "node-leases.json", "node-password-secrets.json",
                "daemonsets.json", "csinodes.json"}) {
            try (InputStream in = Files.newInputStream(EXAMPLE.resolve(file))) {
                KubernetesList list = Serialization.unmarshal(in, KubernetesList.class);
                api.create(list.getItems().toArray(HasMetadata[]::new));
            }
        }
        // the positive control needs a pod on keep-1, as every real node has (its CNI DaemonSet pod at least)
        api.create(SeedCluster.dsPod("kube-system", "rke2-canal", "keep-1"));
        client = SeedCluster.client(api.url());
    }

    private CliRun cli(String... args) {
        TestClock clock = new TestClock(Instant.parse("2026-10-22T06:10:00Z"));
        return CliRun.run(Environment.system().withClient(client).withClock(clock).withSleeper(clock), args);
    }

    @AfterEach
    void tearDown() {
        client.close();
        api.close();
    }

    private Path baseline(String targets) {
        Path file = tmp.resolve("baseline-" + targets.replace(',', '_') + ".json");
        CliRun saved = cli("baseline", "save", "--targets", targets, "--control", "keep-1",
                "--evidence-dir", tmp.resolve("evidence").toString(), "--out", file.toString());
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        return file;
    }

    private CliRun gate(Path baseline, String... extra) {
        String[] args = new String[4 + REPLY.length + extra.length];
        args[0] = "gate";
        args[1] = "gpu-a08";
        args[2] = "--baseline";
        args[3] = baseline.toString();
        System.arraycopy(REPLY, 0, args, 4, REPLY.length);
        System.arraycopy(extra, 0, args, 4 + REPLY.length, extra.length);
        return cli(args);
    }

    @Test
    void aTimeMatchInsideABatchIsHoldNamingTheOtherMembersAndTheirStops() {
        CliRun g = gate(baseline("gpu-a07,gpu-a08,gpu-a09,gpu-a10"));
        assertThat(g.exitCode()).as(g.all()).isEqualTo(4);
        assertThat(g.out()).containsIgnoringWhitespaces("[c]").containsIgnoringWhitespaces("[f]")
                .containsIgnoringWhitespaces("gpu-a07 at 2026-10-22T05:23:42.676430Z")
                .containsIgnoringWhitespaces("gpu-a09 at 2026-10-22T05:23:40.912384Z")
                .containsIgnoringWhitespaces("gpu-a10 at 2026-10-22T05:23:52.318906Z")
                .containsIgnoringWhitespaces("--reply-covers gpu-a07,gpu-a08,gpu-a09,gpu-a10");
        // check (c) on its own still matches: it is the batch, not the time, that holds the gate
        assertThat(g.out()).containsPattern("\\[c\\]\\s+PASS");
    }

    @Test
    void aLeaseListThatLiesOnceIsInvalidNotAPass() throws IOException {
        // the field case: HOLD (batch) became PASS, exit 0, when the Lease LIST answered an empty 200 once
        try (io.nodegate.testing.FaultProxy proxy = new io.nodegate.testing.FaultProxy(api.url());
             KubernetesClient viaProxy = SeedCluster.client(proxy.url(), 5000)) {
            TestClock clock = new TestClock(Instant.parse("2026-10-22T06:10:00Z"));
            Environment env = Environment.system().withClient(viaProxy).withClock(clock).withSleeper(clock);
            Path baseline = tmp.resolve("baseline-via-proxy.json");
            CliRun saved = CliRun.run(env, "baseline", "save", "--targets", "gpu-a07,gpu-a08,gpu-a09,gpu-a10",
                    "--control", "keep-1", "--evidence-dir", tmp.resolve("evidence").toString(), "--out",
                    baseline.toString());
            assertThat(saved.exitCode()).as(saved.all()).isZero();
            CliRun held = CliRun.run(env, "gate", "gpu-a08", "--baseline", baseline.toString(), REPLY[0], REPLY[1],
                    REPLY[2], REPLY[3]);
            assertThat(held.exitCode()).as(held.all()).isEqualTo(4);
            for (io.nodegate.testing.FaultProxy.Fault lie : io.nodegate.testing.FaultProxy.Fault.lyingListFaults("")) {
                proxy.breakCall(call -> call.startsWith("GET /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/"
                        + "leases?"), lie);
                CliRun g = CliRun.run(env, "gate", "gpu-a08", "--baseline", baseline.toString(), REPLY[0], REPLY[1],
                        REPLY[2], REPLY[3]);
                assertThat(g.exitCode()).as(lie + ": " + g.all()).isEqualTo(3);
                assertThat(g.out()).as(lie + ": " + g.all()).containsIgnoringWhitespaces("gate gpu-a08: INVALID",
                        "LIST leases in kube-node-lease at " + proxy.url() + ": broken answer");
                assertThat(proxy.log()).as(lie.toString()).anyMatch(c -> c.startsWith("GET /apis/coordination.k8s.io/v1/"
                        + "namespaces/kube-node-lease/leases?"));
            }
        }
    }

    @Test
    void aWellFormedLeaseListWithoutTheTargetsLeaseIsInvalid() {
        // a proxy or cache that serves an old list, well formed: the GET of gpu-a08's Lease finds it, the LIST not
        Path baseline = baseline("gpu-a07,gpu-a08,gpu-a09,gpu-a10");
        String onlyKeep = "{\"kind\":\"LeaseList\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":"
                + "{\"resourceVersion\":\"5\"},\"items\":[" + Serialization.asJson(SeedCluster.lease("keep-1",
                Instant.parse("2026-10-22T06:09:55Z"))) + "]}";
        api.mock().expect().get().withPath("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases")
                .andReturn(200, onlyKeep).always();
        CliRun g = gate(baseline);
        assertThat(g.exitCode()).as(g.all()).isEqualTo(3);
        assertThat(g.out()).containsIgnoringWhitespaces("gate gpu-a08: INVALID", "LIST leases in kube-node-lease at ",
                "lacks Lease gpu-a08, which GET found a moment before (1 listed)");
    }

    @Test
    void aReplyCoveringABatchOfTargetsPasses() {
        CliRun g = gate(baseline("gpu-a07,gpu-a08,gpu-a09,gpu-a10"), "--reply-covers", "gpu-a07,gpu-a09,gpu-a10");
        assertThat(g.exitCode()).as(g.all()).isZero();
    }

    @Test
    void aReplyCannotCoverBatchMembersThatAreNotTargets() {
        CliRun g = gate(baseline("gpu-a08"), "--reply-covers", "gpu-a07,gpu-a08,gpu-a09,gpu-a10");
        assertThat(g.exitCode()).as(g.all()).isEqualTo(4);
        assertThat(g.out()).containsIgnoringWhitespaces("[gpu-a07, gpu-a09, gpu-a10] are not targets of this baseline");
    }

    @Test
    void aNarrowerBatchWindowSplitsTheBatch() {
        // a08 stopped 4.4 s after a07 and 5.2 s before a10: with a 1s window it stands alone
        CliRun g = gate(baseline("gpu-a08"), "--batch-window", "1s");
        assertThat(g.exitCode()).as(g.all()).isZero();
    }
}
