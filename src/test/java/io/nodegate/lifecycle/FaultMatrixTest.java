package io.nodegate.lifecycle;

import io.nodegate.lifecycle.readmit.ReadmitScenarioTest;
import io.nodegate.testing.TestClock;
import io.nodegate.testing.SeedCluster;
import io.nodegate.cli.Environment;
import io.nodegate.testing.CliRun;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.FaultProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * For every API call gate, remove and verify-gone make, each fault (500, 403, 429, connection reset, timeout,
 * malformed JSON, an empty 200; on LIST calls also the lying 200s: kubectl's empty List without a resourceVersion,
 * another list kind) is injected in turn. Every cell must end INVALID or a clear error; none PASS; and none may
 * delete, patch or annotate anything (checked on the server's state, not on the command's word).
 */
class FaultMatrixTest {

    @TempDir
    Path tmp;
    ApiTestServer api;
    FaultProxy proxy;
    KubernetesClient viaProxy;
    SeedCluster seed;
    TestClock clock;
    Path baseline;
    int worlds;
    Runnable worldSetup = () -> { };
    /** More of the world that no faulted run may change before its write (e.g. a NodeHandover record). */
    Supplier<String> moreState = () -> "";

    /** One command line against this world's proxied client and virtual clock. */
    CliRun cli(String... args) {
        return CliRun.run(Environment.system().withClient(viaProxy).withClock(clock).withSleeper(clock)
                .withPollInterval(Duration.ofSeconds(5)), args);
    }

    /**
     * The next world's server, already populated. A populated world waits for the wall clock's next second (the
     * baseline's time is the server's Date header, in whole seconds: see {@link SeedCluster#populate}), half a second
     * on average, and the matrix builds over a hundred worlds: the next one is built while a cell runs on this one.
     */
    java.util.concurrent.CompletableFuture<Populated> next;
    /** A thread of its own (not the common pool, which the commands under test may use). */
    final java.util.concurrent.ExecutorService builder = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "fault-matrix-next-world");
        t.setDaemon(true);
        return t;
    });

    record Populated(ApiTestServer api, SeedCluster seed) {
    }

    static Populated populate() {
        ApiTestServer server = ApiTestServer.start();
        return new Populated(server, SeedCluster.populate(server));
    }

    @AfterEach
    void tearDown() {
        closeWorld();
        if (next != null) {
            next.join().api().close();
            next = null;
        }
        builder.shutdown();
    }

    void closeWorld() {
        if (viaProxy != null) {
            viaProxy.close();
            proxy.close();
            api.close();
            viaProxy = null;
        }
    }

    /** A fresh cluster, its baseline, and a client that goes through the fault proxy. */
    void newWorld(boolean gatePassed) throws IOException {
        closeWorld();
        worlds++;
        Populated world = next == null ? populate() : next.join();
        next = java.util.concurrent.CompletableFuture.supplyAsync(FaultMatrixTest::populate, builder);
        api = world.api();
        seed = world.seed();
        proxy = new FaultProxy(api.url());
        // the client's deadline covers the whole answer; on two cores shared with other builds 700 ms was too tight
        proxy.hangFor(Duration.ofMillis(2000));
        viaProxy = SeedCluster.client(proxy.url(), 1200);
        clock = new TestClock(seed.t0);
        Path evidence = tmp.resolve("evidence-" + worlds);
        baseline = evidence.resolve("baseline.json");
        CliRun b = cli("baseline", "save", "--targets", "gpu-a10,gpu-a11", "--control", "keep-1",
                "--evidence-dir", evidence.toString(), "--out", baseline.toString());
        assertThat(b.exitCode()).as(b.all()).isZero();
        clock.set(seed.gateTime);
        if (gatePassed) {
            CliRun g = cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", seed.a11Reply);
            assertThat(g.exitCode()).as(g.all()).isZero();
            // the garbage collector was quick: only the Node is left, so the cascade ends at the first look
            api.client().leases().inNamespace("kube-node-lease").withName("gpu-a11").delete();
            api.client().storage().v1().csiNodes().withName("gpu-a11").delete();
            api.client().secrets().inNamespace("kube-system").withName("gpu-a11.node-password.rke2").delete();
            api.client().pods().inNamespace("kube-system").withName("rke2-canal-gpu-a11").delete();
            api.client().pods().inNamespace("gpu-operator").withName("nvidia-dcgm-exporter-gpu-a11").delete();
        }
        worldSetup.run();
        proxy.reset();
    }

    /** The objects readmit may delete: gpu-a10's node-password Secret and cattle-system Jobs. */
    String otherState() {
        var secret = api.client().secrets().inNamespace("kube-system").withName("gpu-a10.node-password.rke2").get();
        return " secret=" + (secret == null ? "gone" : secret.getMetadata().getUid()) + " jobs="
                + api.client().batch().v1().jobs().inNamespace("cattle-system").list().getItems().size()
                + moreState.get();
    }

    String nodeState(String name) {
        Node n = api.client().nodes().withName(name).get();
        return n == null ? "gone" : n.getMetadata().getUid() + "@" + n.getMetadata().getResourceVersion()
                + n.getMetadata().getAnnotations().keySet().stream().filter(k -> k.startsWith("nodegate.io/")).toList();
    }

    record Cell(int index, String call, FaultProxy.Fault fault, CliRun run) {
        @Override
        public String toString() {
            return "#" + index + " " + call + " " + fault + " -> exit " + run.exitCode() + ": " + run.all().trim();
        }
    }

    /**
     * Runs the command cleanly once to learn its calls, then once per (call, fault).
     *
     * @param statefulFrom index of the first call after which the world has changed (a delete); later cells
     *                     get a fresh world
     */
    List<Cell> matrix(Supplier<CliRun> command, boolean gatePassed, String mutatingCall) throws IOException {
        return matrix(command, gatePassed, mutatingCall, 0, () -> { });
    }

    List<Cell> matrix(Supplier<CliRun> command, boolean gatePassed, String mutatingCall, int cleanExit,
                      Runnable worldSetup) throws IOException {
        this.worldSetup = worldSetup;
        newWorld(gatePassed);
        CliRun clean = command.get();
        assertThat(clean.exitCode()).as("clean run: " + clean.all()).isEqualTo(cleanExit);
        List<String> calls = proxy.log();
        int mutating = mutatingCall == null ? Integer.MAX_VALUE : calls.indexOf(mutatingCall);
        assertThat(calls).isNotEmpty();
        List<Cell> cells = new ArrayList<>();
        newWorld(gatePassed);
        for (int i = 0; i < calls.size(); i++) {
            List<FaultProxy.Fault> faults = new ArrayList<>(FaultProxy.Fault.NOT_FORWARDED);
            if (isList(calls.get(i))) {
                // a LIST that answers 200 with a lie: an empty list without a resourceVersion, another kind
                faults.addAll(FaultProxy.Fault.lyingListFaults(calls.get(i)));
            }
            for (FaultProxy.Fault f : faults) {
                String before10 = nodeState("gpu-a10") + otherState();
                String before11 = nodeState("gpu-a11");
                proxy.breakCall(i, f);
                CliRun run = command.get();
                Cell cell = new Cell(i, calls.get(i), f, run);
                cells.add(cell);
                assertThat(run.exitCode()).as(cell.toString()).isNotZero().isNotEqualTo(70);
                assertThat(run.out()).as(cell.toString()).doesNotContain(": PASS");
                assertThat(run.err()).as(cell.toString()).startsWith("nodegate: ");
                if (i <= mutating) {
                    assertThat(nodeState("gpu-a10") + otherState()).as(cell.toString()).isEqualTo(before10);
                    assertThat(nodeState("gpu-a11")).as("nothing written before the fault: " + cell).isEqualTo(before11);
                } else {
                    newWorld(gatePassed);
                }
            }
        }
        return cells;
    }

    static boolean isList(String call) {
        return io.nodegate.testing.RbacAuthorizer.attributes(call).verb().equals("list");
    }

    @Test
    void gateEndsInvalidOnEveryFaultAndAnnotatesNothing() throws IOException {
        List<Cell> cells = matrix(() -> cli("gate", "gpu-a11", "--baseline", baseline.toString(),
                "--removed-at", seed.a11Reply, "--annotate"), false, "PATCH /api/v1/nodes/gpu-a11");
        assertThat(cells).allSatisfy(c -> assertThat(c.run().exitCode()).as(c.toString()).isEqualTo(3));
        assertThat(cells).extracting(Cell::call).anySatisfy(c -> assertThat(c).startsWith("PATCH /api/v1/nodes/gpu-a11"))
                .anySatisfy(c -> assertThat(c).contains("fieldSelector=spec.nodeName"));
        // a fault while reading: INVALID; a fault while annotating (fabric8 reads, then patches): a clear error
        assertThat(cells).allSatisfy(c -> assertThat(c.run().all()).as(c.toString())
                .containsAnyOf("gate gpu-a11: INVALID", "annotating Node gpu-a11 failed", "nodegate: INVALID"));
        assertThat(cells).anySatisfy(c -> assertThat(c.run().err()).containsIgnoringWhitespaces("annotating Node gpu-a11 failed (the PATCH answered HTTP 500"));
        // a lying LIST (the Lease LIST that turned a HOLD into PASS in the field among them) is INVALID naming it
        assertThat(cells).filteredOn(c -> c.fault() == FaultProxy.Fault.EMPTY_LIST_200)
                .extracting(Cell::call).anySatisfy(c -> assertThat(c).startsWith(
                        "GET /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?"));
        assertThat(cells).filteredOn(c -> FaultProxy.Fault.LYING_LIST.contains(c.fault())).isNotEmpty()
                .allSatisfy(c -> assertThat(c.run().out()).as(c.toString()).containsIgnoringWhitespaces("gate gpu-a11: INVALID", "broken answer"));
    }

    @Test
    void removeNeverDeletesOnAFaultBeforeTheDeleteAndAlwaysSaysWhatHappened() throws IOException {
        List<Cell> cells = matrix(() -> cli("remove", "gpu-a11", "--baseline", baseline.toString()), true,
                "DELETE /api/v1/nodes/gpu-a11");
        assertThat(cells).extracting(Cell::call).contains("DELETE /api/v1/nodes/gpu-a11");
        assertThat(cells).allSatisfy(c -> assertThat(c.run().exitCode()).as(c.toString()).isEqualTo(3));
        // the broken DELETE never reached the server, and a re-read (or a clean refusal) says so
        assertThat(cells.stream().filter(c -> c.call().startsWith("DELETE")))
                .allSatisfy(c -> assertThat(c.run().err()).as(c.toString()).contains("was not deleted"));
    }

    @Test
    void verifyGoneEndsInvalidOnEveryFault() throws IOException {
        List<Cell> cells = matrix(() -> cli("verify-gone", "--baseline", baseline.toString()), false, null);
        assertThat(cells).allSatisfy(c -> assertThat(c.run().exitCode()).as(c.toString()).isEqualTo(3));
        assertThat(cells).allSatisfy(c -> assertThat(c.run().all()).as(c.toString()).containsIgnoringWhitespaces("INVALID"));
        assertThat(cells).filteredOn(c -> FaultProxy.Fault.LYING_LIST.contains(c.fault())).isNotEmpty()
                .allSatisfy(c -> assertThat(c.run().all()).as(c.toString()).containsIgnoringWhitespaces("broken answer", proxy.url()));
    }

    @Test
    void readmitDeletesNothingOnAFault() throws IOException {
        List<Cell> cells = matrix(() -> cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--yes"),
                false, "DELETE /api/v1/namespaces/kube-system/secrets/gpu-a10.node-password.rke2");
        assertThat(cells).extracting(Cell::call).contains("DELETE /api/v1/namespaces/kube-system/secrets/gpu-a10.node-password.rke2");
        assertThat(cells).allSatisfy(c -> assertThat(c.run().exitCode()).as(c.toString()).isEqualTo(3));
    }

    @Test
    void readmitVerifyDeletesNoJobOnAFault() throws IOException {
        List<Cell> cells = matrix(() -> cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--verify", "--yes"),
                false, "DELETE /apis/batch/v1/namespaces/cattle-system/jobs/apply-system-agent-upgrader-on-gpu-a10-with-5d1c0ffee",
                0, () -> {
                    api.create(ReadmitScenarioTest.cattleSystem(), ReadmitScenarioTest.failedUpgraderJob());
                    // the host is back (readmit deleted its old Secret, the reinstalled agent registered a new one):
                    // --yes deletes the Failed Job only on a run that otherwise passes
                    api.client().secrets().inNamespace("kube-system").withName("gpu-a10.node-password.rke2").delete();
                    SeedCluster.rejoin(api, "gpu-a10", "uuid-a10");
                });
        assertThat(cells).extracting(Cell::call).contains(
                "DELETE /apis/batch/v1/namespaces/cattle-system/jobs/apply-system-agent-upgrader-on-gpu-a10-with-5d1c0ffee");
        assertThat(cells).allSatisfy(c -> assertThat(c.run().exitCode()).as(c.toString()).isEqualTo(3));
    }

    // ---- writes whose answer is lost or garbled: the report must match what the server really has ----------

    /** Faults on one write call: some reach the server and lose the answer, some never reach it. */
    static final List<FaultProxy.Fault> WRITE_FAULTS = List.of(FaultProxy.Fault.LANDS_THEN_TIMEOUT,
            FaultProxy.Fault.LANDS_EMPTY_200, FaultProxy.Fault.LANDS_FOREIGN_200, FaultProxy.Fault.LANDS_HTTP_500,
            FaultProxy.Fault.EMPTY_200, FaultProxy.Fault.TIMEOUT, FaultProxy.Fault.HTTP_500);

    /** Index of the first call starting with {@code prefix} in a clean run of the command. */
    int indexOf(Supplier<CliRun> command, boolean gatePassed, String prefix) throws IOException {
        newWorld(gatePassed);
        CliRun clean = command.get();
        assertThat(clean.exitCode()).as("clean run: " + clean.all()).isZero();
        List<String> calls = proxy.log();
        for (int i = 0; i < calls.size(); i++) {
            if (calls.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no call " + prefix + " in " + calls);
    }

    @Test
    void gateAnnotateReportsTheVerdictTheNodeReallyCarries() throws IOException {
        Supplier<CliRun> gate = () -> cli("gate", "gpu-a11", "--baseline", baseline.toString(),
                "--removed-at", seed.a11Reply, "--annotate");
        int patch = indexOf(gate, false, "PATCH /api/v1/nodes/gpu-a11");
        for (FaultProxy.Fault f : WRITE_FAULTS) {
            newWorld(false);
            proxy.breakCall(patch, f);
            CliRun run = gate.get();
            Node n = api.client().nodes().withName("gpu-a11").get();
            String verdict = n.getMetadata().getAnnotations().get("nodegate.io/gate-verdict");
            String what = f + " -> exit " + run.exitCode() + ": " + run.all();
            assertThat(run.exitCode()).as(what).isNotEqualTo(70);
            if (f.forwards()) {
                assertThat(verdict).as(what).isEqualTo("PASS");
                assertThat(run.exitCode()).as(what).isZero();
                assertThat(run.out()).as(what).containsIgnoringWhitespaces("annotated nodegate.io/gate-verdict=PASS", "landed");
                // remove accepts the Node as the annotation left it
                assertThat(Files.list(tmp.resolve("evidence-" + worlds)).map(p -> p.getFileName().toString()))
                        .as(what).anyMatch(name -> name.endsWith(".annotation.json"));
            } else {
                assertThat(verdict).as(what).isNull();
                assertThat(run.exitCode()).as(what).isEqualTo(3);
                assertThat(run.err()).as(what).containsIgnoringWhitespaces("re-reading the Node shows it does not carry this run's verdict");
            }
        }
    }

    @Test
    void aNodeWrittenWhileTheGateRanIsJudgedAgainNeverAnnotatedOnAVersionItDidNotJudge() throws IOException {
        // the node lifecycle controller taints a Node that just went Unknown: each write is a new resourceVersion,
        // and the PASS's patch names the version the gate judged
        String taint = "{\"metadata\":{\"annotations\":{\"written-by\":\"node-lifecycle-controller\"}}}";
        newWorld(false);
        api.beforeServing("PATCH", "/api/v1/nodes/gpu-a11", taint);
        CliRun once = cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", seed.a11Reply,
                "--annotate");
        assertThat(once.exitCode()).as(once.all()).isZero();
        assertThat(once.out()).containsIgnoringWhitespaces("judged again from fresh reads after 1 refused annotation",
                "HTTP 409", "annotated nodegate.io/gate-verdict=PASS");
        Node judged = api.client().nodes().withName("gpu-a11").get();
        assertThat(judged.getMetadata().getAnnotations()).containsEntry("nodegate.io/gate-verdict", "PASS")
                .containsEntry("written-by", "node-lifecycle-controller");
        // both runs are on record; the annotation names the second
        try (var files = Files.list(tmp.resolve("evidence-" + worlds))) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("gate-gpu-a11")))
                    .filteredOn(n -> n.endsWith(".annotation.json")).hasSize(1);
        }

        // a Node that goes on changing is never annotated: after the last try the refusal is said, exit 3
        newWorld(false);
        for (int i = 0; i < 3; i++) {
            api.beforeServing("PATCH", "/api/v1/nodes/gpu-a11", taint.replace("controller", "controller-" + i));
        }
        CliRun busy = cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", seed.a11Reply,
                "--annotate");
        assertThat(busy.exitCode()).as(busy.all()).isEqualTo(3);
        assertThat(busy.err()).containsIgnoringWhitespaces("changed since the gate read it");
        assertThat(api.client().nodes().withName("gpu-a11").get().getMetadata().getAnnotations())
                .doesNotContainKey("nodegate.io/gate-verdict");
        assertThat(api.requests("PATCH", "/api/v1/nodes/gpu-a11")).isEqualTo(3);
    }

    @Test
    void removeReportsADeletionThatLandedAndNeverClaimsOneThatDidNot() throws IOException {
        Supplier<CliRun> remove = () -> cli("remove", "gpu-a11", "--baseline", baseline.toString());
        int delete = indexOf(remove, true, "DELETE /api/v1/nodes/gpu-a11");
        for (FaultProxy.Fault f : WRITE_FAULTS) {
            newWorld(true);
            proxy.breakCall(delete, f);
            CliRun run = remove.get();
            boolean gone = api.client().nodes().withName("gpu-a11").get() == null;
            String what = f + " -> exit " + run.exitCode() + ": " + run.all();
            String record = removalRecord();
            assertThat(gone).as(what).isEqualTo(f.forwards());
            if (gone) {
                assertThat(run.exitCode()).as(what).isZero();
                assertThat(run.out()).as(what).containsIgnoringWhitespaces("deleted Node gpu-a11", "re-read");
                assertThat(record).as(what).contains("\"state\" : \"complete\"", "\"deleted\" : true");
            } else {
                assertThat(run.exitCode()).as(what).isEqualTo(3);
                assertThat(run.err()).as(what).containsIgnoringWhitespaces("was not deleted");
                assertThat(record).as(what).contains("\"state\" : \"not-deleted\"", "\"deleted\" : false");
            }
        }
    }

    @Test
    void readmitReportsTheSecretDeletionTheServerHas() throws IOException {
        Supplier<CliRun> readmit = () -> cli("readmit", "gpu-a10", "--baseline", baseline.toString(), "--yes");
        int delete = indexOf(readmit, false, "DELETE /api/v1/namespaces/kube-system/secrets/gpu-a10.node-password.rke2");
        for (FaultProxy.Fault f : WRITE_FAULTS) {
            newWorld(false);
            proxy.breakCall(delete, f);
            CliRun run = readmit.get();
            boolean gone = api.client().secrets().inNamespace("kube-system").withName("gpu-a10.node-password.rke2")
                    .get() == null;
            String what = f + " -> exit " + run.exitCode() + ": " + run.all();
            assertThat(gone).as(what).isEqualTo(f.forwards());
            assertThat(run.exitCode()).as(what).isEqualTo(gone ? 0 : 3);
            if (!gone) {
                assertThat(run.err()).as(what).contains("not deleted");
            }
        }
    }

    // ---- answers that never end, and lists that answer 404 ---------------------------------------------------

    /** The calls of a clean run of {@code command}, in order. */
    List<String> calls(Supplier<CliRun> command, boolean gatePassed) throws IOException {
        newWorld(gatePassed);
        CliRun clean = command.get();
        assertThat(clean.exitCode()).as("clean run: " + clean.all()).isZero();
        return proxy.log();
    }

    @Test
    void aTrickledAnswerEndsInvalidWithinTheDeadlineNamingTheServer() throws IOException {
        Supplier<CliRun> gate = () -> cli("gate", "gpu-a11", "--baseline", baseline.toString(),
                "--removed-at", seed.a11Reply, "--annotate");
        List<String> calls = calls(gate, false);
        for (int i = 0; i < calls.size(); i++) {
            newWorld(false);
            proxy.breakCall(i, FaultProxy.Fault.TRICKLE);
            long start = System.nanoTime();
            CliRun run = gate.get();
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            String what = "#" + i + " " + calls.get(i) + " TRICKLE -> exit " + run.exitCode() + " after " + took + ": "
                    + run.all();
            // a write that never finishes answering may or may not have landed: the re-read says which
            assertThat(run.exitCode()).as(what).isIn(0, 3);
            if (run.exitCode() == 0) {
                assertThat(calls.get(i)).as(what).startsWith("PATCH");
            } else {
                assertThat(run.all()).as(what).contains(proxy.url().replace("http://", ""));
            }
            assertThat(took).as(what).isLessThan(Duration.ofSeconds(20));
        }
    }

    @Test
    void aListThatAnswers404IsACollectionFailureNamingTheServerNeverACrash() throws IOException {
        for (boolean gatePassed : new boolean[]{false, true}) {
            Supplier<CliRun> command = gatePassed
                    ? () -> cli("remove", "gpu-a11", "--baseline", baseline.toString())
                    : () -> cli("verify-gone", "--baseline", baseline.toString());
            List<String> calls = calls(command, gatePassed);
            int lists = 0;
            for (int i = 0; i < calls.size(); i++) {
                String path = calls.get(i).split(" ")[1].split("\\?")[0];
                if (!io.nodegate.testing.RbacAuthorizer.attributes(calls.get(i)).verb().equals("list")
                        || path.contains("servicel2statuses") || path.contains("csinodes")) {
                    continue; // optional APIs: a 404 there proves them absent
                }
                lists++;
                newWorld(gatePassed);
                proxy.breakCall(i, FaultProxy.Fault.HTTP_404);
                CliRun run = command.get();
                String what = "#" + i + " " + calls.get(i) + " HTTP_404 -> exit " + run.exitCode() + ": " + run.all();
                assertThat(run.exitCode()).as(what).isEqualTo(3);
                assertThat(run.err()).as(what).startsWith("nodegate: ").doesNotContain("io.nodegate", "Exception");
                assertThat(run.all()).as(what).containsIgnoringWhitespaces(proxy.url(), "404");
                if (gatePassed && api.client().nodes().withName("gpu-a11").get() == null) {
                    assertThat(run.err()).as(what).contains("was deleted");
                    assertThat(removalRecord()).as(what).contains("\"deleted\" : true");
                }
            }
            assertThat(lists).isPositive();
        }
    }

    /** The newest removal.json of the current world, or "" when none was written. */
    String removalRecord() throws IOException {
        Path dir = tmp.resolve("evidence-" + worlds);
        try (var files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().equals("removal.json")).sorted().reduce((a, b) -> b)
                    .map(p -> {
                        try {
                            return Files.readString(p);
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }).orElse("");
        }
    }

    /**
     * The hand-over record under faults: `handover status --read-only` and `handover step 1` read the cluster (and
     * the step writes the record, spec then status). A fault anywhere before that write ends in a clear error and
     * leaves the NodeHandover's spec as it was: no step recorded from a read that failed or lied. (The status may
     * record the failed look: that is the truth at that time, and it is not a step.)
     */
    @Test
    void aHandoverStepIsNeverRecordedFromAFaultedRead() throws IOException {
        Runnable opened = () -> {
            io.nodegate.deploy.CrdRules.install(api);
            CliRun open = cli("handover", "open", "a11-to-b", "--nodes", "gpu-a11", "--type", "move", "--to",
                    "cluster-b", "--due", java.time.LocalDate.now(java.time.ZoneOffset.UTC).plusDays(30).toString(), "--requester", "lee");
            assertThat(open.exitCode()).as(open.all()).isZero();
        };
        moreState = () -> {
            var record = api.client().genericKubernetesResources("nodegate.io/v1alpha1", "NodeHandover")
                    .withName("a11-to-b").get();
            // the spec holds the recorded steps; the status may say that a look failed (that is its job)
            return " handover=" + (record == null ? "gone" : record.getAdditionalProperties().get("spec"));
        };
        try {
            List<Cell> status = matrix(() -> cli("handover", "status", "a11-to-b", "--read-only"), false, null, 0, opened);
            assertThat(status).extracting(c -> c.run().exitCode()).allMatch(code -> code == 2 || code == 3);

            List<Cell> step = matrix(() -> cli("handover", "step", "a11-to-b", "1", "--by", "kim"), false,
                    "PUT /apis/nodegate.io/v1alpha1/nodehandovers/a11-to-b", 0, opened);
            assertThat(step).isNotEmpty();
            assertThat(step).filteredOn(c -> !c.call().startsWith("PUT"))
                    .allSatisfy(c -> assertThat(c.run().exitCode()).as(c.toString()).isIn(2, 3, 4));
        } finally {
            moreState = () -> "";
        }
    }
}
