package io.nodegate.testing;

import io.nodegate.cli.Environment;
import io.nodegate.policy.QuarantinePolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** Seed 000 on a test API server, with the lifecycle commands pointed at it and its clock. */
public abstract class SeededClusterTest {

    protected ApiTestServer api;
    protected KubernetesClient client;
    protected TestClock clock;
    protected SeedCluster seed;
    @TempDir
    protected Path tmp;
    protected Path evidence;
    protected Path baseline;

    /** Starts the cluster at seed.t0 and saves the baseline (targets gpu-a10, gpu-a11; control keep-1). */
    protected CliRun seedAndSaveBaseline() {
        api = ApiTestServer.start();
        seed = SeedCluster.populate(api);
        client = SeedCluster.client(api.url());
        clock = new TestClock(seed.t0);
        evidence = tmp.resolve("evidence");
        baseline = evidence.resolve("baseline.json");
        return cli("baseline", "save", "--targets", "gpu-a10,gpu-a11", "--control", "keep-1",
                "--evidence-dir", evidence.toString(), "--out", baseline.toString());
    }

    /** The seeded cluster with its baseline saved, the clock at the gate's time, remove polling every 5 s. */
    protected void seedAtGateTime() {
        pollInterval = Duration.ofSeconds(5);
        CliRun saved = seedAndSaveBaseline();
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        clock.set(seed.gateTime);
    }

    /** How remove waits between cascade polls in this test's environment. */
    protected Duration pollInterval = Duration.ofSeconds(2);

    /** The commands, built against this test's API server and virtual clock. */
    protected Environment env() {
        return Environment.system().withClient(client).withClock(clock).withSleeper(clock).withPollInterval(pollInterval);
    }

    /** The garbage collector's part of the cascade for a seeded node, so that `remove` completes. */
    protected void playGarbageCollector(String node) {
        clock.schedule(Duration.ofSeconds(3), () -> {
            api.client().leases().inNamespace("kube-node-lease").withName(node).delete();
            api.client().storage().v1().csiNodes().withName(node).delete();
            api.client().secrets().inNamespace("kube-system").withName(node + ".node-password.rke2").delete();
            api.client().pods().inNamespace("kube-system").withName("rke2-canal-" + node).delete();
            api.client().pods().inNamespace("gpu-operator").withName("nvidia-dcgm-exporter-" + node).delete();
        });
    }

    /**
     * The quarantine as `nodegate policy --quarantine` emits it, and this API server refusing a Node CREATE under each
     * of {@code removed} as kube-apiserver does once the policy holds their tombstones: the answer names the policy.
     * The stand-in evaluates no CEL (QuarantinePolicyCelTest and the lab's tests run the policy itself); without the
     * names it stands for an apiserver that admits what its objects say it refuses.
     */
    protected void applyQuarantine(String... removed) {
        api.create(QuarantinePolicy.policy(), QuarantinePolicy.binding("nodegate-system"));
        java.util.Set<String> refused = java.util.Set.of(removed);
        api.admit("/api/v1/nodes", (old, node) -> old == null && refused.contains(node.path("metadata").path("name")
                .asString()) ? "ValidatingAdmissionPolicy '" + QuarantinePolicy.NAME + "' with binding '"
                + QuarantinePolicy.NAME + "' denied request: nodegate: node " + node.path("metadata").path("name")
                .asString() + " is a removed host" : null);
    }

    /** Runs one command line in {@link #env()}. */
    /**
     * gpu-a10, reinstalled, rejoins under its name: Ready with a new bootID, the given firmware UUID, its unreachable
     * taint gone and a new node-password Secret (created a whole second after readmit deleted the old one).
     */
    protected void hostRejoins(String systemUuid) throws InterruptedException {
        Instant deleted = clock.instant();
        while (Instant.now().isBefore(deleted.plusSeconds(1))) {
            Thread.sleep(50); // creation timestamps have whole seconds
        }
        SeedCluster.rejoin(api, "gpu-a10", systemUuid);
    }

    protected CliRun cli(String... args) {
        return CliRun.run(env(), args);
    }

    @AfterEach
    protected void tearDown() {
        if (client != null) {
            client.close();
            api.close();
        }
    }
}
