package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.TombstoneShards;
import io.nodegate.testing.Await;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.nodegate.lab.LabNodes.ready;
import static io.nodegate.lab.LabNodes.unreachable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The removal lifecycle of docs/lifecycle.md, run through the CLI as an operator runs it, against the real control
 * plane: {@code baseline save} → {@code gate} (the real node lifecycle controller has marked the silent host
 * Unknown) → {@code remove} (the DELETE with the gate's uid precondition; the real garbage collector removes the
 * Lease) → {@code verify-gone} → {@code readmit} (the tombstone released, the reinstalled host registers anew,
 * {@code readmit --verify}). On the way, {@code remove} meets a missing tombstones namespace and a full ledger (every
 * shard at nodegate's budget, below the real 1 MiB limit) and deletes nothing.
 */
@ExtendWith(RealControlPlane.Resolver.class)
class RemovalLifecycleOnRealControlPlaneTest {

    private static final String HOST = "t-leaver";
    private static final String CONTROL = RealControlPlane.server(1);

    @TempDir
    Path tmp;

    private RealControlPlane lab;

    private CliRun cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--kubeconfig", lab.kubeconfig().toString(), "--context", "admin"));
        CliRun r = CliRun.run(all.toArray(String[]::new));
        System.out.println("$ nodegate " + String.join(" ", args) + "\n-> exit " + r.exitCode() + "\n" + r.all());
        return r;
    }

    /**
     * The tombstones' namespace for this test alone: the shared lab's other classes create nodegate-system
     * (`policy --apply`, `install`), and the first `remove` below needs a namespace that does not exist yet.
     */
    private static final String NS = "t-removal-ledger";

    /** Fills every shard to just below nodegate's budget with field-shaped tombstones; returns what was there. */
    private static Map<String, ConfigMap> fillLedger(KubernetesClient admin) {
        TombstoneBook book = TombstoneBook.empty();
        Instant at = Instant.parse("2026-10-26T06:09:00Z");
        int i = 0;
        // in steps that each fill about what is left (a rendered size per step, not per entry), then one at a time
        // while the next still fits: the room left is less than one entry
        for (long left = TombstoneShards.BUDGET - book.bytes(); left >= 2_000; left = TombstoneShards.BUDGET - book.bytes()) {
            for (long k = left / 700; k > 0; k--) {
                book = book.with(filler(i++, at));
            }
        }
        for (TombstoneBook next = book.with(filler(i++, at)); next.bytes() <= TombstoneShards.BUDGET;
                next = next.with(filler(i++, at))) {
            book = next;
        }
        assertThat(book.bytes()).isLessThanOrEqualTo(TombstoneShards.BUDGET);
        Map<String, ConfigMap> before = new HashMap<>();
        for (String shard : TombstoneShards.names()) {
            ConfigMap existing = admin.configMaps().inNamespace(NS).withName(shard).get();
            before.put(shard, existing);
            ConfigMap filled = new ConfigMapBuilder().withNewMetadata().withName(shard).withNamespace(NS)
                    .addToLabels(TombstoneShards.LABEL, TombstoneShards.LABEL_VALUE).endMetadata()
                    .withData(book.data()).build();
            // the real apiserver stores each: nodegate's budget is below its limit
            admin.configMaps().inNamespace(NS).resource(filled).forceConflicts().serverSideApply();
        }
        return before;
    }

    private static Tombstone filler(int i, Instant at) {
        return new Tombstone("gone-gpu-%05d".formatted(i), UUID.randomUUID().toString(),
                UUID.randomUUID().toString().toUpperCase(), UUID.randomUUID().toString().replace("-", ""),
                at, null, "lab-test", null, List.of(), List.of());
    }

    private static void restoreLedger(KubernetesClient admin, Map<String, ConfigMap> before) {
        before.forEach((shard, cm) -> {
            admin.configMaps().inNamespace(NS).withName(shard).delete();
            Await.until(shard + " deleted", Duration.ofSeconds(30),
                    () -> admin.configMaps().inNamespace(NS).withName(shard).get() == null);
            if (cm != null) {
                cm.getMetadata().setResourceVersion(null);
                cm.getMetadata().setUid(null);
                cm.getMetadata().setManagedFields(null);
                cm.getMetadata().setCreationTimestamp(null);
                admin.configMaps().inNamespace(NS).resource(cm).create();
            }
        });
    }

    /**
     * True once the real node lifecycle controller has written everything it writes for a silent host: Ready
     * Unknown, the unreachable NoSchedule taint and the unreachable NoExecute taint. The gate must come after the
     * last of them, or that write changes the Node the gate judged and remove rightly refuses. The NoExecute taint
     * comes last, from a queue rate-limited per zone (--node-eviction-rate, 0.1 a second), so it can land many
     * seconds after the others. The controller never writes it while the zone is partially disrupted (more than
     * 2 Nodes not Ready and at least 55 % of the zone: a zone of 50 Nodes or fewer then gets rate 0;
     * pkg/controller/nodelifecycle ComputeZoneState and ReducedQPSFunc), so then it is not waited for. The lab's
     * Nodes carry no zone label: they are all one zone.
     */
    private static boolean lifecycleControllerDone(KubernetesClient admin, String node) {
        List<Node> all = admin.nodes().list().getItems();
        Node n = all.stream().filter(x -> node.equals(x.getMetadata().getName())).findFirst().orElse(null);
        if (n == null || !"Unknown".equals(ready(n)) || !unreachable(n, "NoSchedule")) {
            return false;
        }
        long notReady = all.stream().filter(x -> !"True".equals(ready(x))).count();
        boolean partiallyDisrupted = notReady > 2 && notReady >= 0.55 * all.size();
        return partiallyDisrupted || unreachable(n, "NoExecute");
    }

    private static String readyNow(KubernetesClient admin, String node) {
        Node n = admin.nodes().withName(node).get();
        return n == null ? null : ready(n);
    }

    @Test
    void baselineGateRemoveVerifyGoneAndReadmitThroughTheCli(RealControlPlane controlPlane) throws Exception {
        lab = controlPlane;
        Path evidence = tmp.resolve("evidence");
        Path baseline = tmp.resolve("baseline.json");
        lab.lab("kubelet", "add", HOST).requireOk("add " + HOST);
        // The positive control needs a pod that the spec.nodeName query finds: the lab's kubelets run none, so a
        // pod bound to the control node stands for its DaemonSet pods (the apiserver stores it; nothing runs it).
        lab.kubectl("""
                apiVersion: v1
                kind: Pod
                metadata: {name: t-control-pod, namespace: default}
                spec:
                  nodeName: %s
                  containers: [{name: c, image: registry.example/pause:3.10}]
                """.formatted(CONTROL), "apply", "-f", "-").requireOk("control pod");
        try (KubernetesClient admin = lab.client("admin")) {
            Await.until(HOST + " Ready", Duration.ofSeconds(60), () -> "True".equals(readyNow(admin, HOST)));
            String uid = admin.nodes().withName(HOST).get().getMetadata().getUid();

            CliRun saved = cli("baseline", "save", "--targets", HOST, "--control", CONTROL,
                    "--evidence-dir", evidence.toString(), "--out", baseline.toString());
            assertThat(saved.exitCode()).as(saved.all()).isZero();

            // The host owner removes RKE2: the kubelet stops. The real node lifecycle controller marks it Unknown.
            lab.lab("kubelet", "stop", HOST).requireOk("stop " + HOST);
            Instant removedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS);
            // the controller writes the Node again after that: the unreachable taints, NoExecute last (the gate
            // judges again if a write lands between its read and its annotation, as the fault matrix shows; one
            // after the annotation is a change remove refuses)
            Await.until(HOST + " Unknown and tainted unreachable", Duration.ofSeconds(180),
                    () -> lifecycleControllerDone(admin, HOST));

            CliRun gate = cli("gate", HOST, "--baseline", baseline.toString(), "--removed-at", removedAt.toString(),
                    "--reply-from", "lab-owner", "--annotate");
            assertThat(gate.exitCode()).as(gate.all()).isZero();
            assertThat(gate.out()).contains("gate " + HOST + ": PASS");
            assertThat(admin.nodes().withName(HOST).get().getMetadata().getAnnotations())
                    .containsEntry("nodegate.io/gate-verdict", "PASS").containsEntry("nodegate.io/gate-uid", uid);

            // Before the tombstones' namespace exists (a fresh cluster, 'policy --apply' never run): the dry run
            // of the tombstone's write gets 404 from the real apiserver, and remove deletes nothing.
            CliRun noNamespace = cli("remove", HOST, "--baseline", baseline.toString(), "-n", NS);
            assertThat(noNamespace.exitCode()).as(noNamespace.all()).isEqualTo(3);
            assertThat(noNamespace.err()).contains("namespaces \"" + NS + "\" not found", "Nothing deleted");
            assertThat(admin.nodes().withName(HOST).get().getMetadata().getUid()).isEqualTo(uid);
            lab.kubectl(null, "create", "namespace", NS);

            // A ledger with no room left: every shard filled to nodegate's budget, which keeps each ConfigMap below
            // the real apiserver's 1 MiB limit. remove refuses before the DELETE, names the limit, deletes nothing.
            Map<String, ConfigMap> before = fillLedger(admin);
            try {
                CliRun full = cli("remove", HOST, "--baseline", baseline.toString(), "-n", NS);
                assertThat(full.exitCode()).as(full.all()).isEqualTo(5);
                assertThat(full.err()).contains("all 16 shards are full", "1 MiB", "Nothing deleted");
                assertThat(admin.nodes().withName(HOST).get().getMetadata().getUid()).isEqualTo(uid);
                for (String shard : TombstoneShards.names()) {
                    assertThat(admin.configMaps().inNamespace(NS).withName(shard).get().getData())
                            .as(shard + " unchanged").doesNotContainKey("node." + HOST);
                }
            } finally {
                restoreLedger(admin, before);
            }

            // RKE2's supervisor deletes a deleted Node's node-password Secret; the lab has none, so the test does.
            CompletableFuture<CliRun> removing = CompletableFuture.supplyAsync(() ->
                    cli("remove", HOST, "--baseline", baseline.toString(), "-n", NS, "--timeout", "3m"));
            Await.until("the Node deleted", Duration.ofSeconds(120),
                    () -> admin.nodes().withName(HOST).get() == null || removing.isDone());
            admin.secrets().inNamespace("kube-system").withName(HOST + ".node-password.rke2").delete();
            CliRun remove = removing.get();
            assertThat(remove.exitCode()).as(remove.all()).isZero();
            assertThat(remove.out()).contains("deleted Node " + HOST, "cascade complete");
            assertThat(admin.nodes().withName(HOST).get()).isNull();
            assertThat(admin.leases().inNamespace("kube-node-lease").withName(HOST).get())
                    .as("the garbage collector removed the Lease").isNull();

            CliRun gone = cli("verify-gone", "--baseline", baseline.toString(), "-n", NS);
            assertThat(gone.exitCode()).as(gone.all()).isZero();
            assertThat(gone.out()).contains("PASS");

            CliRun again = cli("remove", HOST, "--baseline", baseline.toString(), "-n", NS);
            assertThat(again.exitCode()).as(again.all()).isEqualTo(5);
            assertThat(again.err()).contains("already gone");

            // The host comes back: the quarantine is lifted, it is reinstalled and registers anew.
            CliRun readmit = cli("readmit", HOST, "--baseline", baseline.toString(), "-n", NS, "--yes");
            assertThat(readmit.exitCode()).as(readmit.all()).isZero();
            lab.lab("kubelet", "start", HOST).requireOk("start " + HOST);
            Await.until(HOST + " Ready again", Duration.ofSeconds(60), () -> "True".equals(readyNow(admin, HOST)));
            CliRun verify = cli("readmit", HOST, "--baseline", baseline.toString(), "-n", NS, "--verify", "--yes");
            assertThat(verify.exitCode()).as(verify.all()).isZero();
            assertThat(verify.out()).contains("PASS");
        } finally {
            lab.lab("kubelet", "stop", HOST);
            lab.kubectl(null, "delete", "node", HOST, "--ignore-not-found", "--as=lab-admin",
                    "--as-group=system:masters", "--as-group=nodegate:break-glass");
            lab.kubectl(null, "delete", "pod", "t-control-pod", "-n", "default", "--ignore-not-found", "--wait=false");
        }
    }
}
