package io.nodegate.lifecycle.remove;

import io.fabric8.kubernetes.api.model.Node;
import io.nodegate.lifecycle.quarantine.TombstoneLedger;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.nodegate.lifecycle.ApiReader;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.lifecycle.gate.GateService;
import io.nodegate.lifecycle.gate.Verdict;
import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.RefusedException;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Deletes one Node on the strength of a fresh PASS gate record (or a recorded human override), after its
 * Node, Lease, CSINode and node-password Secret metadata are durably on disk, and follows the cascade.
 */
public final class NodeRemover {

    public record Options(Duration maxGateAge, String override, Duration timeout, Duration pollInterval) {
    }

    /** The removal record written to the evidence directory. */
    public record Record(String kind, String node, Instant startedAt, String decision, String gateRecord,
                         String override, String nodeUid, String nodeResourceVersion, Map<String, String> backups,
                         boolean deleted, Instant deletedAt, List<String> left, boolean cascadeComplete,
                         Instant finishedAt, String error, Tombstone tombstone, String tombstoneError) {
        public static final String KIND = "nodegate.io/removal-record";
    }

    private final KubernetesClient client;
    private final EvidenceStore store;
    private final Clock clock;
    private final PrintWriter progress;
    private final Sleeper sleeper;
    private final TombstoneLedger tombstones;

    public interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    public NodeRemover(KubernetesClient client, EvidenceStore store, Clock clock, PrintWriter progress, Sleeper sleeper) {
        this(client, store, clock, progress, sleeper, new TombstoneLedger(client, TombstoneBook.DEFAULT_NAMESPACE));
    }

    /** @param tombstones where a removed host is recorded, so that its return is seen (NG302) and can be refused */
    public NodeRemover(KubernetesClient client, EvidenceStore store, Clock clock, PrintWriter progress, Sleeper sleeper,
                       TombstoneLedger tombstones) {
        this.tombstones = tombstones;
        this.client = client;
        this.store = store;
        this.clock = clock;
        this.progress = progress;
        this.sleeper = sleeper;
    }

    public Record remove(Baseline baseline, String node, Options opt) {
        return remove(baseline, null, node, opt);
    }

    /** @param baselineFile when given, the gate record must have been made against this very file (same sha256) */
    public Record remove(Baseline baseline, Path baselineFile, String node, Options opt) {
        Instant started = clock.instant();
        Baseline.Target target = baseline.target(node);
        if (target == null) {
            throw new RefusedException(node + " is not a target in the baseline: refusing to delete it");
        }
        String decision;
        String gateFile = null;
        String expectedUid;
        List<String> acceptableRv = new ArrayList<>();
        if (opt.override() != null) {
            if (opt.override().isBlank()) {
                throw new InputException("--override needs a reason (who decided, and why)");
            }
            var latest = GateService.latest(store, node);
            decision = "override of " + latest.map(l -> "gate " + l.record().verdict() + " (" + l.file().getFileName() + ")")
                    .orElse("no gate record");
            gateFile = latest.map(l -> l.file().toString()).orElse(null);
            expectedUid = target.uid();
            progress.println("override: " + decision + "; reason recorded: " + opt.override());
        } else {
            var latest = GateService.latest(store, node).orElseThrow(() -> new RefusedException(
                    "no gate record for " + node + " in " + store.dir() + ": run 'nodegate gate " + node
                            + "' first (or --override REASON for a human decision)"));
            var rec = latest.record();
            gateFile = latest.file().toString();
            if (rec.verdict() != Verdict.PASS) {
                throw new RefusedException("the newest gate record for " + node + " (" + latest.file().getFileName() + ") is "
                        + rec.verdict() + ", not PASS: " + String.join("; ", rec.reasons()));
            }
            if (baselineFile != null && rec.baselineSha256() != null
                    && !rec.baselineSha256().equals(EvidenceStore.sha256(baselineFile))) {
                throw new RefusedException("the gate record " + latest.file().getFileName() + " was made against another "
                        + "baseline (" + rec.baselineFile() + "): gate again with --baseline " + baselineFile);
            }
            Duration age = Duration.between(rec.gatedAt(), started);
            if (age.compareTo(opt.maxGateAge()) > 0 || age.isNegative()) {
                throw new RefusedException("the PASS gate record for " + node + " is " + age.toMinutes()
                        + " min old (max " + opt.maxGateAge().toMinutes() + " min): run the gate again");
            }
            decision = "gate PASS at " + rec.gatedAt();
            expectedUid = rec.nodeUid();
            acceptableRv.add(rec.nodeResourceVersion());
            if (latest.annotatedResourceVersion() != null) {
                acceptableRv.add(latest.annotatedResourceVersion());
            }
        }
        store.ensureWritable();

        ApiReader api = new ApiReader(client);
        var nodeObj = api.rawNode(node).orElseThrow(() -> new RefusedException(
                "Node " + node + " is already gone (NotFound): nothing deleted"));
        String uid = nodeObj.getMetadata().getUid();
        String rv = nodeObj.getMetadata().getResourceVersion();
        if (!uid.equals(expectedUid)) {
            throw new RefusedException("Node " + node + " has uid " + uid + " but the " + (opt.override() != null ? "baseline" : "gate")
                    + " saw " + expectedUid + ": it was recreated (the host registered again). Not deleted.");
        }
        if (!acceptableRv.isEmpty() && !acceptableRv.contains(rv)) {
            throw new RefusedException("Node " + node + " changed since the gate (resourceVersion " + rv + ", gate saw "
                    + acceptableRv + "): run the gate again. Not deleted.");
        }

        // Backups first: if any cannot be written and read back, nothing is deleted.
        String dirName = "remove-" + node + "-" + EvidenceStore.stamp(started);
        Map<String, String> backups = new LinkedHashMap<>();
        backups.put("node", backup(dirName + "/node.json", nodeObj));
        backups.put("lease", backup(dirName + "/lease.json", api.rawLease(node).orElse(null)));
        backups.put("csinode", backup(dirName + "/csinode.json", api.rawCsiNode(node).orElse(null)));
        Secret secret = api.nodePasswordSecret(node).map(NodeRemover::metadataOnly).orElse(null);
        backups.put("nodePasswordSecret", backup(dirName + "/node-password-secret.json", secret));
        Record pending = new Record(Record.KIND, node, started, decision, gateFile, opt.override(), uid, rv, backups,
                false, null, List.of(), false, null, null, null, null);
        store.writeJson(dirName + "/removal.json", pending);
        progress.println("saved Node, Lease, CSINode and node-password Secret metadata to " + store.dir().resolve(dirName));

        deleteWithPreconditions(api, node, uid, rv);
        Instant deletedAt = clock.instant();
        progress.println("deleted Node " + node + " (uid " + uid + ")");
        Tombstone tombstone = tombstoneOf(nodeObj, deletedAt, gateFile);
        String tombstoneError = recordTombstone(dirName, tombstone);
        progress.println("following the cascade (timeout " + io.nodegate.time.Durations.format(opt.timeout()) + ")");
        progress.flush();

        List<String> left;
        String error = null;
        try {
            left = follow(api, node, deletedAt, opt);
        } catch (CollectionException e) {
            left = List.of("unknown: " + e.getMessage());
            error = e.getMessage();
        }
        Record done = new Record(Record.KIND, node, started, decision, gateFile, opt.override(), uid, rv, backups,
                true, deletedAt, left, left.isEmpty(), clock.instant(), error, tombstone, tombstoneError);
        store.writeJson(dirName + "/removal.json", done);
        return done;
    }

    /** While the cascade runs, a line when what is left changes, and otherwise one every this long. */
    static final Duration PROGRESS_HEARTBEAT = Duration.ofSeconds(10);

    /** The removed host as a tombstone: its name, the deleted object's uid and the identities that outlive a rename. */
    private Tombstone tombstoneOf(Node nodeObj, Instant deletedAt, String gateFile) {
        var info = nodeObj.getStatus() == null ? null : nodeObj.getStatus().getNodeInfo();
        String gateSha = gateFile == null ? null : EvidenceStore.sha256(java.nio.file.Path.of(gateFile));
        return new Tombstone(nodeObj.getMetadata().getName(), nodeObj.getMetadata().getUid(),
                info == null ? null : info.getSystemUUID(), info == null ? null : info.getMachineID(), deletedAt,
                gateSha, TombstoneLedger.who(client));
    }

    /**
     * Saves the tombstone next to the backups, then records it in the cluster. The Node is already deleted, so a
     * failure cannot stop anything: it is reported loudly with the exact commands that record it by hand.
     *
     * @return null when recorded, else what went wrong
     */
    private String recordTombstone(String dirName, Tombstone tombstone) {
        store.writeJson(dirName + "/tombstone.json", tombstone);
        try {
            int attempts = tombstones.record(tombstone);
            progress.println("recorded tombstone " + tombstone.name() + " in " + tombstones.where()
                    + (attempts > 1 ? " (after " + (attempts - 1) + " conflicting write(s) by others)" : "")
                    + ": its return is reported as NG302 and refused under 'nodegate policy --quarantine'");
            return null;
        } catch (CollectionException e) {
            progress.println("!!! TOMBSTONE NOT RECORDED: " + e.getMessage());
            progress.println("!!! Node " + tombstone.name() + " is deleted and its JSON is saved, but nothing marks the"
                    + " host as removed: if it boots with its RKE2 config it rejoins unnoticed. Record it by hand:");
            tombstones.manualCommands(tombstone).lines().forEach(l -> progress.println("    " + l));
            progress.flush();
            return e.getMessage();
        }
    }

    private List<String> follow(ApiReader api, String node, Instant deletedAt, Options opt) {
        Instant deadline = deletedAt.plus(opt.timeout());
        List<String> shown = null;
        Instant shownAt = null;
        while (true) {
            List<String> left = leftovers(api, node);
            Instant now = clock.instant();
            long elapsed = Duration.between(deletedAt, now).toSeconds();
            if (left.isEmpty()) {
                progress.printf("+%ds: Lease, CSINode, node-password Secret NotFound; no pod bound to %s%n", elapsed, node);
                progress.flush();
                return left;
            }
            boolean last = !now.isBefore(deadline);
            if (!left.equals(shown) || last || Duration.between(shownAt, now).compareTo(PROGRESS_HEARTBEAT) >= 0) {
                progress.printf("+%ds: still there: %s%n", elapsed, String.join(", ", left));
                progress.flush();
                shown = left;
                shownAt = now;
            }
            if (!clock.instant().isBefore(deadline)) {
                return left;
            }
            try {
                sleeper.sleep(opt.pollInterval());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return left;
            }
        }
    }

    static List<String> leftovers(ApiReader api, String node) {
        List<String> left = new ArrayList<>();
        if (api.rawNode(node).isPresent()) {
            left.add("Node " + node);
        }
        api.rawLease(node).ifPresent(l -> left.add("Lease kube-node-lease/" + node));
        api.rawCsiNode(node).ifPresent(c -> left.add("CSINode " + node));
        api.nodePasswordSecret(node).ifPresent(s -> left.add("Secret kube-system/" + s.name()));
        var pods = api.podsOn(node);
        if (!pods.isEmpty()) {
            left.add(pods.size() + " pod(s) bound to " + node + ": "
                    + pods.stream().limit(5).map(p -> p.namespace() + "/" + p.name()).toList()
                    + (pods.size() > 5 ? " …" : ""));
        }
        return left;
    }

    private String backup(String name, HasMetadata obj) {
        if (obj == null) {
            store.writeJson(name, Map.of("notFound", true));
            return "NotFound";
        }
        store.writeText(name, client.getKubernetesSerialization().asJson(obj) + "\n");
        return name;
    }

    private static Secret metadataOnly(io.nodegate.model.SecretMeta m) {
        Secret s = new Secret();
        ObjectMeta meta = new ObjectMeta();
        meta.setNamespace(m.namespace());
        meta.setName(m.name());
        meta.setUid(m.uid());
        meta.setCreationTimestamp(m.created() == null ? null : m.created().toString());
        meta.setLabels(m.labels().isEmpty() ? null : m.labels());
        s.setMetadata(meta);
        s.setType(m.type());
        s.setData(null);
        return s;
    }

    /** DELETE with uid and resourceVersion preconditions: the API server refuses (409) if the object is another. */
    private static void deleteWithPreconditions(ApiReader api, String node, String uid, String rv) {
        HttpRequest request = api.deleteRequest("/api/v1/nodes/" + node, Map.of("kind", "DeleteOptions",
                "apiVersion", "v1", "preconditions", Map.of("uid", uid, "resourceVersion", rv)));
        HttpResponse<String> response;
        try {
            response = api.send(request);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CollectionException("deleting Node " + node + " interrupted; state unknown: check 'kubectl get node " + node + "'");
        } catch (Exception e) {
            throw new CollectionException("deleting Node " + node + " failed (" + e.getMessage()
                    + "); whether it was deleted is unknown: check 'kubectl get node " + node + "'", e);
        }
        int code = response.code();
        if (code == 404) {
            throw new RefusedException("Node " + node + " is already gone (NotFound at delete): another operator removed it");
        }
        if (code == 409) {
            throw new RefusedException("Node " + node + " was not deleted: the API server refused the uid/resourceVersion "
                    + "precondition (the Node changed or was recreated since it was checked)");
        }
        if (code < 200 || code >= 300) {
            throw new CollectionException("deleting Node " + node + " answered HTTP " + code
                    + "; whether it was deleted is unknown: check 'kubectl get node " + node + "'");
        }
        try {
            ApiReader.requireObject(response.body());
        } catch (RuntimeException e) {
            throw new CollectionException("deleting Node " + node + ": unparsable answer (HTTP " + code
                    + "); whether it was deleted is unknown: check 'kubectl get node " + node + "'", e);
        }
    }
}
