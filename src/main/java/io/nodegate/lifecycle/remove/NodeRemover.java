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
import io.nodegate.source.kube.ApiReader;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.source.json.Plain;
import io.nodegate.source.kube.ApiCalls;
import io.nodegate.lifecycle.gate.GateRecord;
import io.nodegate.lifecycle.gate.GateService;
import io.nodegate.lifecycle.gate.MachineSource;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.RefusedException;
import io.nodegate.lifecycle.evidence.Json;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.time.Durations;
import io.nodegate.ExitCode;
import io.nodegate.NodegateException;

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
 *
 * <p>In three steps, and nothing is deleted before the third: <b>collect</b> (the gate record, the Node as the server
 * sends it, the live Nodes that share its host identities), <b>decide</b> (the gate or override rules, the
 * tombstone, and whether the ledger can take it: read, parsed, placed and written with {@code dryRun=All}; in the field,
 * the ledger used to be checked only after the DELETE), <b>record</b> (backups, the removal record, the DELETE, the
 * tombstone, the cascade).
 */
public final class NodeRemover {

    /**
     * @param handedTo the cluster the host is handed to (the name `fleet` shows for it), written into the tombstone:
     *                 the host's Node there is the expected arrival, not a return. Null when not handed over. The
     *                 hand-over record passes its destination here too.
     */
    public record Options(Duration maxGateAge, String override, Duration timeout, Duration pollInterval,
                          String handedTo) {
        public Options {
            if (handedTo != null && (handedTo.isBlank() || handedTo.strip().length() > 253
                    || handedTo.chars().anyMatch(c -> c < 0x20 || c == 0x7f))) {
                throw new InputException("--handed-to '" + handedTo + "' is not a cluster name (1-253 printable"
                        + " characters: the name `nodegate fleet` shows for the destination cluster)");
            }
            handedTo = handedTo == null ? null : handedTo.strip();
        }

        public Options(Duration maxGateAge, String override, Duration timeout, Duration pollInterval) {
            this(maxGateAge, override, timeout, pollInterval, null);
        }
    }

    /**
     * The removal record written to the evidence directory: first as {@link #PENDING} just before the DELETE is
     * sent, then completed. A record still saying pending means the DELETE may have been sent and its outcome was
     * never written down (the process died, the disk filled up): check the Node before trusting anything else.
     *
     * @param state   {@link #PENDING}, {@link #NOT_DELETED}, {@link #DELETED}, {@link #COMPLETE} or {@link #UNKNOWN}
     * @param deleted true once the DELETE is known to have taken effect
     * @param machine the Rancher Machine deleted instead of the Node (--machine-context); null when the Node was
     */
    public record Record(String kind, String node, String state, Instant startedAt, String decision,
                         String gateRecord, String override, String nodeUid, String nodeResourceVersion,
                         Map<String, String> backups, boolean deleted, Instant deletedAt, List<String> left,
                         boolean cascadeComplete, Instant finishedAt, String error, Tombstone tombstone,
                         String tombstoneError, GateRecord.MachineRef machine) {
        public static final String KIND = "nodegate.io/removal-record";
        /** Written before the DELETE is sent; the outcome is not known yet. */
        public static final String PENDING = "pending";
        /** The API server refused the DELETE (NotFound, precondition) or a re-read shows the Node untouched. */
        public static final String NOT_DELETED = "not-deleted";
        /** The Node was deleted; the cascade was not seen complete (timeout or a failed read). */
        public static final String DELETED = "deleted";
        /** The Node was deleted and Lease, CSINode, node-password Secret and pods were seen NotFound. */
        public static final String COMPLETE = "complete";
        /** The DELETE was sent, its answer was unclear, and re-reading the Node failed too. */
        public static final String UNKNOWN = "unknown";
    }

    /** How the DELETE ended, decided by its answer or, when that was unclear, by re-reading the object. */
    record DeleteOutcome(String state, String detail, int exitCode, Instant serverTime) {
        DeleteOutcome(String state, String detail, int exitCode) {
            this(state, detail, exitCode, null);
        }
    }

    private final ApiReader api;
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
        this(new ApiReader(client), store, clock, progress, sleeper, tombstones);
    }

    /** Reads over the reader's lean layer; its fabric8 client (built on first use) sends the DELETE. */
    public NodeRemover(ApiReader api, EvidenceStore store, Clock clock, PrintWriter progress, Sleeper sleeper,
                       TombstoneLedger tombstones) {
        this.tombstones = tombstones;
        this.api = api;
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
        return remove(baseline, baselineFile, node, opt, null);
    }

    /**
     * @param machines Rancher's management cluster (--machine-context): the Node's Machine is deleted there instead
     *                 of the Node, after both are saved, and the cascade is followed from the Machine down; null to
     *                 delete the Node itself
     */
    public Record remove(Baseline baseline, Path baselineFile, String node, Options opt, MachineSource machines) {
        Instant started = clock.instant();
        Baseline.Target target = baseline.target(node);
        if (target == null) {
            throw new RefusedException(node + " is not a target in the baseline: refusing to delete it");
        }
        String decision;
        String gateFile = null;
        GateService.Latest gate = null;
        String expectedUid;
        List<String> acceptableRv = new ArrayList<>();
        if (opt.override() != null) {
            if (opt.override().isBlank()) {
                throw new InputException("--override needs a reason (who decided, and why)");
            }
            var latest = GateService.latest(store, node);
            gate = latest.orElse(null);
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
            gate = latest;
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

        // collect: the Node exactly as the server sent it (that is what is saved before the DELETE)
        var nodeObj = api.nodeAsSent(node).orElseThrow(() -> new RefusedException(
                "Node " + node + " is already gone (NotFound): nothing deleted"));
        @SuppressWarnings("unchecked")
        Map<String, Object> nodeMeta = (Map<String, Object>) nodeObj.object().get("metadata");
        String uid = String.valueOf(nodeMeta.get("uid"));
        String rv = nodeMeta.get("resourceVersion") == null ? null : String.valueOf(nodeMeta.get("resourceVersion"));
        if (!uid.equals(expectedUid)) {
            throw new RefusedException("Node " + node + " has uid " + uid + " but the " + (opt.override() != null ? "baseline" : "gate")
                    + " saw " + expectedUid + ": it was recreated (the host registered again). Not deleted.");
        }
        if (!acceptableRv.isEmpty() && !acceptableRv.contains(rv)) {
            throw new RefusedException("Node " + node + " changed since the gate (resourceVersion " + rv + ", gate saw "
                    + acceptableRv + "): run the gate again. Not deleted.");
        }

        MachineDeletion machine = machines == null ? null : new MachineDeletion(machines);
        if (machine != null) {
            Map<String, String> labels = Plain.stringMap(nodeMeta, "labels");
            machine.check(node, uid, labels == null ? Map.of() : labels, gate, opt.override() != null);
        }

        Tombstone planned;
        try {
            planned = tombstoneOf(nodeObj, started, gateFile, opt.handedTo()); // well-formed before anything
        } catch (RuntimeException e) {
            throw new CollectionException("GET Node " + node + ": unusable answer: " + e.getMessage()
                    + ". Nothing deleted", e);
        }
        // collect: the live Nodes that share the host's identities; the quarantine must never refuse them (a
        // restarting kubelet POSTs its Node first, and admission runs before AlreadyExists)
        SharedIdentities shared = sharedIdentities(planned);

        // decide: the tombstone must fit in the ledger and the server must accept its write, before the DELETE
        planned = withShared(planned, shared);
        TombstoneLedger.Prepared prepared = tombstones.prepare(planned);
        String shard = prepared.shard();
        progress.println("the tombstone of " + node + " fits in " + tombstones.where(shard)
                + " (checked with a dry-run write)" + (opt.handedTo() == null ? "" : "; handed to " + opt.handedTo())
                + shared.describe());
        prepared.warnings().forEach(w -> progress.println("! " + w));

        // Backups first: if any cannot be written and read back, nothing is deleted.
        String dirName = "remove-" + node + "-" + EvidenceStore.stamp(started);
        Map<String, String> backups = new LinkedHashMap<>();
        backups.put("node", backupAsSent(dirName + "/node.json", nodeObj.body()));
        backups.put("lease", backup(dirName + "/lease.json", api.rawLease(node).orElse(null)));
        backups.put("csinode", backup(dirName + "/csinode.json", api.rawCsiNode(node).orElse(null)));
        Secret secret = api.nodePasswordSecret(node).map(NodeRemover::metadataOnly).orElse(null);
        backups.put("nodePasswordSecret", backup(dirName + "/node-password-secret.json", secret));
        GateRecord.MachineRef machineRef = machine == null ? null : machine.ref();
        if (machine != null) {
            backups.put("machine", machine.saveEvidence(store, dirName));
        }
        String removalRecord = dirName + "/removal.json";
        Record pending = new Record(Record.KIND, node, Record.PENDING, started, decision, gateFile, opt.override(),
                uid, rv, backups, false, null, List.of(), false, null, null, null, null, machineRef);
        store.writeJson(removalRecord, pending);
        String saved = "saved Node, Lease, CSINode and node-password Secret metadata"
                + (machine == null ? "" : " and " + machine.what());
        String to = "to " + store.dir().resolve(dirName);
        // within 120 columns, as every table line: the directory on a line of its own when both do not fit one
        progress.println(saved.length() + 1 + to.length() <= 120 ? saved + " " + to : saved + "\n  " + to);

        // From here on the DELETE may have been sent: every message and exit code says whether the Node (or its
        // Machine) was deleted, or that it is unknown and what to check. Nothing below may end as "nothing deleted".
        DeleteOutcome outcome = machine == null ? deleteWithPreconditions(api, Deletable.node(node, uid), rv)
                : machine.delete();
        String deletedWhat = machine == null ? "Node " + node : machine.what();
        String deletedUid = machine == null ? uid : machine.machine().uid();
        Instant deletedAt = clock.instant();
        if (!Record.DELETED.equals(outcome.state())) {
            Record after = new Record(Record.KIND, node, outcome.state(), started, decision, gateFile, opt.override(),
                    uid, rv, backups, false, null, List.of(), false, clock.instant(), outcome.detail(), null, null,
                    machineRef);
            String recorded = tryWrite(removalRecord, after);
            if (Record.NOT_DELETED.equals(outcome.state())) {
                throw new NodegateException(outcome.exitCode(),
                        outcome.detail() + (recorded == null ? "" : " (" + recorded + ")"));
            }
            throw new NodegateException(ExitCode.COLLECTION, "whether " + deletedWhat
                    + " was deleted is UNKNOWN: " + outcome.detail() + ". Check '"
                    + (machine == null ? "kubectl get node " + node + " -o jsonpath={.metadata.uid}" : machine.checkByHand())
                    + "' (deleted if NotFound or the uid is not " + deletedUid + "); the removal record "
                    + store.dir().resolve(removalRecord)
                    + (recorded == null ? " says unknown" : " still says pending: " + recorded));
        }
        progress.println("deleted " + deletedWhat + " (uid " + deletedUid + ")" + (outcome.detail() == null ? ""
                : " [" + outcome.detail() + "]"));
        if (machine != null) {
            progress.println("Cluster API now drains Node " + node + ", waits for the Machine's deletion hooks,"
                    + " deletes its CustomMachine and RKEBootstrap, then the Node; nothing uninstalls RKE2 on the host");
        }
        // the removal's time on the API server's clock when it said so (creationTimestamps come from that clock)
        Instant removedAt = outcome.serverTime() != null ? outcome.serverTime() : deletedAt;
        Tombstone tombstone = withShared(tombstoneOf(nodeObj, removedAt, gateFile, opt.handedTo()), shared);
        String tombstoneError;
        try {
            tombstoneError = recordTombstone(dirName, tombstone, shard);
        } catch (RuntimeException e) {
            // the Node is deleted: a failure here (a full disk) must not read as "nothing happened"
            tombstoneError = e.getMessage();
        }
        progress.println("following the cascade (timeout " + Durations.format(opt.timeout()) + ")");
        progress.flush();

        List<String> left;
        String error = null;
        try {
            left = follow(api, node, deletedAt, opt, machine);
        } catch (RuntimeException e) {
            // any failure here (a failed read, an unexpected answer) leaves the deletion itself certain
            String why = e instanceof CollectionException ? e.getMessage() : api.describe(e);
            left = List.of("unknown: " + why);
            error = why;
        }
        Record done = new Record(Record.KIND, node, left.isEmpty() ? Record.COMPLETE : Record.DELETED, started,
                decision, gateFile, opt.override(), uid, rv, backups, true, deletedAt, left, left.isEmpty(),
                clock.instant(), error, tombstone, tombstoneError, machineRef);
        String notRecorded = tryWrite(removalRecord, done);
        if (notRecorded != null) {
            throw new NodegateException(ExitCode.COLLECTION, deletedWhat + " WAS DELETED at " + deletedAt + " (uid " + deletedUid + "), but the removal "
                    + "record " + store.dir().resolve(removalRecord) + " could not be completed and still says pending: "
                    + notRecorded + ". Backups were saved before the delete in " + store.dir().resolve(dirName)
                    + (left.isEmpty() ? "; the cascade was complete." : "; still left: " + String.join("; ", left)));
        }
        return done;
    }

    /** While the cascade runs, a line when what is left changes, and otherwise one every this long. */
    static final Duration PROGRESS_HEARTBEAT = Duration.ofSeconds(10);

    /** The removed host as a tombstone: its name, the deleted object's uid and the identities that outlive a rename. */
    private Tombstone tombstoneOf(ApiCalls.RawObject nodeObj, Instant deletedAt, String gateFile, String handedTo) {
        Map<String, Object> node = nodeObj.object();
        Map<String, Object> meta = Plain.map(node, "metadata");
        Map<String, Object> status = Plain.map(node, "status");
        Map<String, Object> info = status == null ? null : Plain.map(status, "nodeInfo");
        String gateSha = gateFile == null ? null : EvidenceStore.sha256(java.nio.file.Path.of(gateFile));
        return new Tombstone(Plain.string(meta, "name"), Plain.string(meta, "uid"),
                info == null ? null : Plain.string(info, "systemUUID"), info == null ? null : Plain.string(info, "machineID"),
                deletedAt, gateSha, TombstoneLedger.who(api), handedTo, List.of(), List.of());
    }

    /** The Nodes that share the removed host's systemUUID or machineID, other than itself, when it is removed. */
    /**
     * @param imageMachineId the removed host's machineID when live Nodes report it with other systemUUIDs: an image's
     *                       or a cloned template's /etc/machine-id, not the host's, so it is not tombstoned (the
     *                       quarantine would refuse every new host built from that image); null otherwise
     */
    private record SharedIdentities(List<String> sameSystemUuid, List<String> sameMachineId, String imageMachineId) {
        String describe() {
            String image = imageMachineId == null ? "" : "; its machineID " + imageMachineId + " is also reported by "
                    + "live Nodes with other systemUUIDs (" + String.join(", ", sameMachineId) + "): an image's, not "
                    + "the host's, so it was not recorded (the quarantine follows the host by its systemUUID)";
            List<String> exempt = imageMachineId == null ? sameMachineId : List.of();
            if (sameSystemUuid.isEmpty() && exempt.isEmpty()) {
                return image;
            }
            return "; live Nodes sharing its identity stay exempt from the quarantine:"
                    + (sameSystemUuid.isEmpty() ? "" : " systemUUID " + sameSystemUuid)
                    + (exempt.isEmpty() ? "" : " machineID " + exempt) + image;
        }
    }

    /** One LIST of Nodes; a host whose IDs identify nothing shares nothing, and is not listed for. */
    private SharedIdentities sharedIdentities(Tombstone t) {
        if (t.systemUuid() == null && t.machineId() == null) {
            return new SharedIdentities(List.of(), List.of(), null);
        }
        List<String> byUuid = new ArrayList<>();
        List<String> byMid = new ArrayList<>();
        boolean image = false;
        for (NodeInfo n : api.nodes()) {
            if (n.name().equals(t.name()) || (t.uid() != null && t.uid().equals(n.uid()))) {
                continue;
            }
            if (t.systemUuid() != null && t.systemUuid().equals(Tombstone.identity(n.systemInfo().systemUuid()))) {
                byUuid.add(n.name());
            }
            if (t.machineId() != null && t.machineId().equals(Tombstone.identity(n.systemInfo().machineId()))) {
                byMid.add(n.name());
                String other = Tombstone.identity(n.systemInfo().systemUuid());
                image |= other != null && t.systemUuid() != null && !other.equals(t.systemUuid());
            }
        }
        return new SharedIdentities(byUuid, byMid, image ? t.machineId() : null);
    }

    private static Tombstone withShared(Tombstone t, SharedIdentities shared) {
        boolean image = shared.imageMachineId() != null;
        return new Tombstone(t.name(), t.uid(), t.systemUuid(), image ? null : t.machineId(), t.removedAt(),
                t.gateRecordSha256(), t.removedBy(), t.handedTo(), shared.sameSystemUuid(),
                image ? List.of() : shared.sameMachineId());
    }

    /**
     * Saves the tombstone next to the backups, then records it in the cluster. The Node is already deleted, so a
     * failure cannot stop anything: it is reported loudly with the exact commands that record it by hand.
     *
     * @return null when recorded, else what went wrong
     */
    private String recordTombstone(String dirName, Tombstone tombstone, String plannedShard) {
        store.writeJson(dirName + "/tombstone.json", tombstone);
        try {
            TombstoneLedger.Recorded recorded = tombstones.recordIn(tombstone);
            int attempts = recorded.attempts();
            String what = "recorded tombstone " + tombstone.name() + " in " + tombstones.where(recorded.shard())
                    + (attempts > 1 ? " (after " + (attempts - 1) + " conflicting write(s) by others)" : "") + ":";
            String why = "its return is reported as NG302 and refused under 'nodegate policy --quarantine'";
            // within 120 columns, as every table line: what it means on a line of its own when both do not fit one
            progress.println(what.length() + 1 + why.length() <= 120 ? what + " " + why : what + "\n  " + why);
            return null;
        } catch (CollectionException e) {
            progress.println("!!! TOMBSTONE NOT RECORDED: " + e.getMessage());
            progress.println("!!! Node " + tombstone.name() + " is deleted and its JSON is saved, but nothing marks the"
                    + " host as removed: if it boots with its RKE2 config it rejoins unnoticed. Record it by hand:");
            tombstones.manualCommands(tombstone, plannedShard).lines().forEach(l -> progress.println("    " + l));
            progress.flush();
            return e.getMessage();
        }
    }

    /** Writes the record; on failure returns why (the deletion already happened, so this must not throw). */
    private String tryWrite(String name, Record record) {
        try {
            store.writeJson(name, record);
            return null;
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }

    private List<String> follow(ApiReader api, String node, Instant deletedAt, Options opt, MachineDeletion machine) {
        Instant deadline = deletedAt.plus(opt.timeout());
        List<String> shown = null;
        Instant shownAt = null;
        while (true) {
            List<String> left = new ArrayList<>();
            if (machine != null) {
                // the Machine goes first (Cluster API deletes the Node last): while it is there, so is the cascade
                String machineLeft = machine.leftover();
                if (machineLeft != null) {
                    left.add(machineLeft);
                }
            }
            left.addAll(leftovers(api, node));
            Instant now = clock.instant();
            long elapsed = Duration.between(deletedAt, now).toSeconds();
            if (left.isEmpty()) {
                progress.printf("+%ds: %sLease, CSINode, node-password Secret NotFound; no pod bound to %s%n", elapsed,
                        machine == null ? "" : machine.what() + " and Node " + node + " NotFound; ", node);
                progress.flush();
                return left;
            }
            boolean last = !now.isBefore(deadline);
            if (!left.equals(shown) || last || Duration.between(shownAt, now).compareTo(PROGRESS_HEARTBEAT) >= 0) {
                progress.println(withinWidth("+" + elapsed + "s: still there: " + String.join(", ", left)));
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

    /**
     * A progress line within 120 columns, as every table line: broken between words onto indented lines when it is
     * longer (a word is never split). The render room has the same rule for findings; lifecycle sits below render,
     * so the few lines are here rather than an import upwards.
     */
    static String withinWidth(String line) {
        if (line.length() <= 120) {
            return line;
        }
        StringBuilder out = new StringBuilder();
        StringBuilder current = new StringBuilder();
        for (String word : line.split(" ")) {
            if (current.length() > 0 && current.length() + 1 + word.length() > 120) {
                out.append(current).append('\n');
                current = new StringBuilder("    ");
            }
            if (current.length() > 0 && !current.toString().isBlank()) {
                current.append(' ');
            }
            current.append(word);
        }
        return out.append(current).toString();
    }

    private String backupAsSent(String name, byte[] body) {
        String text = new String(body, java.nio.charset.StandardCharsets.UTF_8);
        store.writeText(name, text.endsWith("\n") ? text : text + "\n");
        return name;
    }

    private String backup(String name, HasMetadata obj) {
        if (obj == null) {
            store.writeJson(name, Map.of("notFound", true));
            return "NotFound";
        }
        store.writeText(name, api.client().getKubernetesSerialization().asJson(obj) + "\n");
        return name;
    }

    private static Secret metadataOnly(SecretMeta m) {
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

    /** The object a DELETE is about: its kind, how messages name it, its API path, name and uid. */
    record Deletable(String kind, String what, String path, String name, String uid, String recreatedMeans) {
        static Deletable node(String node, String uid) {
            return new Deletable("Node", "Node " + node, "/api/v1/nodes/" + node, node, uid,
                    "ours was deleted and the host registered again");
        }
    }

    /**
     * DELETE with uid and resourceVersion preconditions: the API server refuses (409) if the object is another.
     * A clean answer decides at once: 200/202 with the deleted object or a Success Status is DELETED, 404 and 409
     * are NOT_DELETED. Anything else (a timeout, a 5xx, an empty or foreign 200) may or may not have landed, so
     * the object is read again: NotFound, another uid, or a deletionTimestamp means it was deleted; the same
     * object untouched means it was not; a failed re-read leaves the outcome UNKNOWN.
     */
    static DeleteOutcome deleteWithPreconditions(ApiReader api, Deletable target, String rv) {
        HttpRequest.Builder request = api.deleteRequest(target.path(), Map.of("kind", "DeleteOptions",
                "apiVersion", "v1", "preconditions", Map.of("uid", target.uid(), "resourceVersion", rv)));
        String unclear;
        try {
            HttpResponse<String> response = api.send(request);
            int code = response.code();
            if (code == 404) {
                return new DeleteOutcome(Record.NOT_DELETED, target.what()
                        + " is already gone (NotFound at delete): another operator removed it", 5);
            }
            if (code == 409) {
                return new DeleteOutcome(Record.NOT_DELETED, target.what() + " was not deleted: the API server "
                        + "refused the uid/resourceVersion precondition (the " + target.kind() + " changed or was"
                        + " recreated since it was checked)", 5);
            }
            if (code >= 400 && code < 500 && code != 408) {
                return new DeleteOutcome(Record.NOT_DELETED, target.what() + " was not deleted: the API server "
                        + "refused the DELETE with HTTP " + code + firstLine(response.body()), 3);
            }
            if ((code == 200 || code == 202) && confirmsDelete(response.body(), target)) {
                return new DeleteOutcome(Record.DELETED, null, 0, dateOf(response));
            }
            unclear = "the DELETE answered HTTP " + code + (code >= 200 && code < 300
                    ? " without the deleted " + target.kind() + " or a Success status" : "");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            unclear = "the DELETE was interrupted";
        } catch (Exception e) {
            unclear = "the DELETE failed (" + api.describe(e) + ")";
        }
        try {
            var now = api.reread(target.what(), target.path());
            if (now.isEmpty()) {
                return new DeleteOutcome(Record.DELETED, unclear + "; re-read: NotFound, so it was deleted", 0);
            }
            var meta = now.get().path("metadata");
            if (!target.uid().equals(meta.path("uid").asString())) {
                return new DeleteOutcome(Record.DELETED, unclear + "; re-read: a " + target.kind() + " of that name"
                        + " with another uid (" + meta.path("uid").asString() + "): " + target.recreatedMeans(), 0);
            }
            if (meta.hasNonNull("deletionTimestamp")) {
                return new DeleteOutcome(Record.DELETED, unclear + "; re-read: deletionTimestamp "
                        + meta.path("deletionTimestamp").asString() + " is set (finalizers are running)", 0);
            }
            return new DeleteOutcome(Record.NOT_DELETED, target.what() + " was not deleted: " + unclear
                    + "; re-read: the same " + target.kind() + " (uid " + target.uid() + ") is still there and not"
                    + " being deleted", 3);
        } catch (CollectionException e) {
            return new DeleteOutcome(Record.UNKNOWN, unclear + "; " + e.getMessage(), 3);
        }
    }

    /**
     * The API server's clock when it answered (its Date header, whole seconds), or null. The tombstone's removal time
     * is compared with creationTimestamps, which the API server stamps: from one clock, a workstation clock that runs
     * ahead cannot hide a return, nor one behind make a Node that already existed look like one.
     */
    private static Instant dateOf(HttpResponse<String> response) {
        try {
            String date = response.header("Date");
            return date == null || date.isBlank() ? null : java.time.ZonedDateTime.parse(date.trim(),
                    java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** A 200/202 to a DELETE is the deleted object (our uid) or a Status with status Success. */
    private static boolean confirmsDelete(String body, Deletable target) {
        try {
            var answer = Json.MAPPER.readTree(body);
            if (answer == null || !answer.isObject()) {
                return false;
            }
            if ("Status".equals(answer.path("kind").asString())) {
                return "Success".equals(answer.path("status").asString());
            }
            return target.kind().equals(answer.path("kind").asString())
                    && target.name().equals(answer.path("metadata").path("name").asString())
                    && target.uid().equals(answer.path("metadata").path("uid").asString());
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static String firstLine(String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        try {
            var status = Json.MAPPER.readTree(body);
            String msg = status.path("message").asString();
            return msg == null || msg.isEmpty() ? "" : " (" + msg.lines().findFirst().orElse("") + ")";
        } catch (RuntimeException e) {
            return "";
        }
    }
}
