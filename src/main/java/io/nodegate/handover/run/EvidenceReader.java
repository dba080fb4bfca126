package io.nodegate.handover.run;

import io.nodegate.InputException;
import io.nodegate.handover.HandoverReading;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.model.verdict.Check;
import io.nodegate.lifecycle.gate.GateRecord;
import io.nodegate.lifecycle.gate.GateService;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.lifecycle.remove.NodeRemover;
import io.nodegate.lifecycle.verify.GoneVerifier;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The lifecycle's own records of the targets, from the evidence directory `gate`, `remove` and `verify-gone` wrote:
 * the newest gate record per node ({@link GateService#latest}, the one `remove` honours), the newest removal record
 * per node (remove-&lt;node&gt;-&lt;time&gt;/removal.json), and every verify-gone run. The hand-over re-implements
 * none of those steps; it reads what they recorded.
 */
public final class EvidenceReader {

    private EvidenceReader() {
    }

    public static HandoverReading.Evidence read(Path dir, List<String> nodes) {
        EvidenceStore store = new EvidenceStore(dir);
        if (!Files.isDirectory(store.dir())) {
            throw new InputException("evidence directory " + store.dir() + " does not exist (give the one `nodegate "
                    + "gate` and `remove` wrote to: --evidence-dir DIR, or --baseline FILE)");
        }
        Map<String, HandoverReading.GateSeen> gates = new LinkedHashMap<>();
        Map<String, HandoverReading.RemovalSeen> removals = new LinkedHashMap<>();
        for (String node : nodes) {
            GateService.latest(store, node).ifPresent(l -> gates.put(node, gate(l, store)));
            removal(store.dir(), node).ifPresent(r -> removals.put(node, r));
        }
        List<HandoverReading.VerifyGoneSeen> runs = new ArrayList<>();
        for (Path p : store.list("verify-gone-")) {
            GoneVerifier.Record r = EvidenceStore.readJson(p, GoneVerifier.Record.class);
            if (!GoneVerifier.Record.KIND.equals(r.kind())) {
                continue;
            }
            runs.add(new HandoverReading.VerifyGoneSeen(r.verifiedAt(), r.result().verdict().name(), p.toString(),
                    r.result().findings()));
        }
        runs.sort(Comparator.comparing(HandoverReading.VerifyGoneSeen::at));
        return new HandoverReading.Evidence(store.dir().toString(), gates, removals, runs);
    }

    private static HandoverReading.GateSeen gate(GateService.Latest latest, EvidenceStore store) {
        GateRecord r = latest.record();
        Instant lease = null;
        boolean etcdGone = false;
        for (Check c : r.checks()) {
            String renew = c.evidence().get("leaseRenewTime");
            if (renew != null && lease == null) {
                try {
                    lease = Instant.parse(renew);
                } catch (RuntimeException notATime) {
                    // a check that printed something else under that name: the Lease stop stays unknown
                }
            }
            if (c.id().toLowerCase(java.util.Locale.ROOT).contains("etcd") && c.outcome() == Verdict.PASS) {
                etcdGone = true;
            }
        }
        return new HandoverReading.GateSeen(r.node(), r.verdict().name(), r.gatedAt(), latest.file().toString(),
                EvidenceStore.sha256(latest.file()), r.nodeUid(), r.reasons(), lease,
                r.request() == null ? null : r.request().removedAt(), etcdGone);
    }

    /** The newest removal record of the node (by start time), if any. */
    static java.util.Optional<HandoverReading.RemovalSeen> removal(Path dir, String node) {
        HandoverReading.RemovalSeen best = null;
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path d : entries.filter(Files::isDirectory)
                    .filter(d -> d.getFileName().toString().startsWith("remove-" + node + "-")).sorted().toList()) {
                Path file = d.resolve("removal.json");
                if (!Files.isRegularFile(file)) {
                    continue;
                }
                NodeRemover.Record r = EvidenceStore.readJson(file, NodeRemover.Record.class);
                if (!NodeRemover.Record.KIND.equals(r.kind()) || !node.equals(r.node())) {
                    continue;
                }
                if (best == null || (r.startedAt() != null && best.startedAt() != null
                        && r.startedAt().isAfter(best.startedAt()))) {
                    best = new HandoverReading.RemovalSeen(node, r.state(), r.startedAt(), r.deletedAt(),
                            r.decision(), r.override(), r.nodeUid(), file.toString(),
                            r.tombstone() == null ? null : r.tombstone().handedTo());
                }
            }
        } catch (IOException e) {
            throw new InputException("cannot list evidence directory " + dir + ": " + e.getMessage(), e);
        }
        return java.util.Optional.ofNullable(best);
    }
}
