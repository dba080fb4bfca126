package io.nodegate.lifecycle;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.ExitCode;
import io.nodegate.InputException;
import io.nodegate.NodegateException;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.lifecycle.gate.GateRequest;
import io.nodegate.lifecycle.gate.GateRunInputs;
import io.nodegate.lifecycle.gate.GateService;
import io.nodegate.lifecycle.remove.NodeRemover;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The disk fills up at each evidence write in turn. Before the DELETE, that must stop everything (exit 2, Node
 * untouched); after it, the report must still say the Node was deleted. For the gate, a record that cannot be
 * written means no annotation; an annotation that landed but whose record could not be written is said so.
 */
class FullDiskTest extends SeededClusterTest {

    @BeforeEach
    void setUp() {
        CliRun saved = seedAndSaveBaseline();
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        clock.set(seed.gateTime);
    }

    /** A disk with room for {@code writes} files; the next write gets half its bytes down, then ENOSPC. */
    static EvidenceStore.Disk fullAfter(int writes) {
        AtomicInteger done = new AtomicInteger();
        return (channel, bytes) -> {
            if (done.getAndIncrement() >= writes) {
                channel.write(bytes.slice(0, bytes.remaining() / 2));
                throw new IOException("No space left on device");
            }
            EvidenceStore.Disk.REAL.write(channel, bytes);
        };
    }

    /** A disk that fails only the write with this index (0-based), e.g. the one that completes removal.json. */
    static EvidenceStore.Disk failingOnlyAt(int index) {
        AtomicInteger done = new AtomicInteger();
        return (channel, bytes) -> {
            if (done.getAndIncrement() == index) {
                throw new IOException("No space left on device");
            }
            EvidenceStore.Disk.REAL.write(channel, bytes);
        };
    }

    void quickGarbageCollector() {
        api.client().leases().inNamespace("kube-node-lease").withName("gpu-a11").delete();
        api.client().storage().v1().csiNodes().withName("gpu-a11").delete();
        api.client().secrets().inNamespace("kube-system").withName("gpu-a11.node-password.rke2").delete();
        api.client().pods().inNamespace("kube-system").withName("rke2-canal-gpu-a11").delete();
        api.client().pods().inNamespace("gpu-operator").withName("nvidia-dcgm-exporter-gpu-a11").delete();
    }

    @Test
    void removeWithTheDiskFullAtEachWrite() throws IOException {
        CliRun gate = cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", seed.a11Reply);
        assertThat(gate.exitCode()).as(gate.all()).isZero();
        quickGarbageCollector();
        Baseline b = EvidenceStore.readJson(baseline, Baseline.class);
        var options = new NodeRemover.Options(Duration.ofMinutes(30), null, Duration.ofMinutes(3), Duration.ofSeconds(5));
        // the disk fills at each write in turn, until the round whose writes reach past the DELETE
        for (int writes = 0; writes < 20; writes++) {
            String uidBefore = api.client().nodes().withName("gpu-a11").get().getMetadata().getUid();
            NodeRemover remover = new NodeRemover(client, new EvidenceStore(evidence, fullAfter(writes)), clock,
                    new PrintWriter(new StringWriter()), clock);
            Throwable failure = catchThrowable(() -> remover.remove(b, baseline, "gpu-a11", options));
            boolean deleted = api.client().nodes().withName("gpu-a11").get() == null;
            String what = "disk full after " + writes + " write(s): " + failure;
            if (!deleted) {
                assertThat(api.client().nodes().withName("gpu-a11").get().getMetadata().getUid()).isEqualTo(uidBefore);
                assertThat(failure).as(what).isInstanceOf(InputException.class)
                        .hasMessageContaining("No space left on device");
                continue;
            }
            // once the DELETE went out, nothing may say "input error, nothing deleted"
            assertThat(failure).as(what).isNotInstanceOf(InputException.class);
            if (failure != null) {
                assertThat(((NodegateException) failure).exitCode()).as(what).isEqualTo(ExitCode.COLLECTION);
                assertThat(failure.getMessage()).as(what).contains("Node gpu-a11 WAS DELETED");
            }
            assertThat(newestRemovalRecord()).as(what).containsAnyOf("\"state\" : \"pending\"",
                    "\"state\" : \"complete\"");
            return;
        }
        throw new AssertionError("the Node was never deleted");
    }

    @Test
    void gateWithTheDiskFullAtEachWrite() {
        Baseline b = EvidenceStore.readJson(baseline, Baseline.class);
        GateRequest request = new GateRequest("gpu-a11", OffsetDateTime.parse(seed.a11Reply).toInstant(), "infra",
                null, GateRequest.DEFAULT_WINDOW, Set.of(), Duration.ofSeconds(30));

        Throwable noRecord = catchThrowable(() -> new GateService(client, new EvidenceStore(evidence, fullAfter(0)), clock)
                .run(GateRunInputs.builder(b, request).baselineFile(baseline).etcd(List.of()).annotate(true).build()));
        assertThat(noRecord).isInstanceOf(InputException.class).hasMessageContaining("No space left on device");
        assertThat(verdictOnNode()).as("no record, no annotation").isNull();

        Throwable noAnnotationRecord = catchThrowable(() -> new GateService(client,
                new EvidenceStore(evidence, fullAfter(1)), clock)
                .run(GateRunInputs.builder(b, request).baselineFile(baseline).etcd(List.of()).annotate(true).build()));
        assertThat(verdictOnNode()).isEqualTo("PASS");
        assertThat(noAnnotationRecord).isInstanceOf(NodegateException.class)
                .hasMessageContaining("NOW CARRIES nodegate.io/gate-verdict=PASS")
                .hasMessageContaining("'nodegate remove' will refuse this Node");
    }

    String verdictOnNode() {
        var ann = api.client().nodes().withName("gpu-a11").get().getMetadata().getAnnotations();
        return ann == null ? null : ann.get("nodegate.io/gate-verdict");
    }

    String newestRemovalRecord() throws IOException {
        try (Stream<Path> files = Files.walk(evidence)) {
            Path p = files.filter(f -> f.getFileName().toString().equals("removal.json")).sorted()
                    .reduce((a, c) -> c).orElseThrow();
            return Files.readString(p);
        }
    }
}
