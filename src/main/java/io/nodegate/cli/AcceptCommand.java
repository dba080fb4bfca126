package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.InputException;
import io.nodegate.NodegateException;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.lifecycle.inventory.NodeHolds;
import io.nodegate.lifecycle.quarantine.TombstoneLedger;
import io.nodegate.lifecycle.readmit.ReadmitHostCheck;
import io.nodegate.lifecycle.readmit.Readmitter;
import io.nodegate.lifecycle.gate.HostEvidence;
import io.nodegate.model.ClusterState;
import io.nodegate.model.HostIdentity;
import io.nodegate.model.NewcomerHold;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeInventory;
import io.nodegate.model.SharedMachineIds;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.source.host.HostReportJson;
import io.nodegate.source.kube.LiveSource;
import io.nodegate.render.output.Structured;
import io.nodegate.render.output.Style;
import io.nodegate.render.output.TextReport;
import io.nodegate.render.output.TreeReport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Lifts the hold on a newcomer (docs/inventory.md): the taint nodegate.io/unaccepted comes off only after the
 * evidence readmit checks, and the Node records who accepted it.
 */
@Command(name = "accept", mixinStandardHelpOptions = true,
        header = "Accept a held newcomer: check it as readmit does, then lift its nodegate.io/unaccepted taint.",
        description = "A Node held at birth (taint " + NewcomerHold.TAINT_KEY + ": tombstoned identity, an identity "
                + "of an older live Node, or not in the declared inventory) is accepted only on evidence. The "
                + "baseline's target of the same name, or of the removed host whose tombstone it matches (a host back "
                + "under a new name), or --as NAME, is compared as 'readmit --verify' compares it (Ready with a new "
                + "bootID, systemUUID/kernel/GPUs, role labels and taints put back, the cluster's kubelet version, a "
                + "new node-password Secret, no Failed upgrader Job, --host-report). A host no baseline holds needs "
                + "--host-report. A shared systemUUID or machineID is never enough: such a Node must be declared in "
                + "the inventory by both IDs and its name. With --yes, on a PASS: the matching tombstones are "
                + "released (saved first), the taint removed, and " + NewcomerHold.ACCEPTED_BY + "/"
                + NewcomerHold.ACCEPTED_AT + " written on the Node; the record goes to the evidence directory. Exit 0 "
                + "PASS (or accepted), 5 FAIL, 3 an API call failed.",
        footer = {"", "Examples:",
                "  nodegate accept new-01 --baseline base.json                 # the checks, nothing changed",
                "  nodegate accept new-01 --baseline base.json --yes           # accept on a PASS",
                "  nodegate accept gpu-b01 --baseline base.json --host-report gpu-b01-host.json --yes"})
public final class AcceptCommand implements Callable<Integer> {

    private final Environment env;

    public AcceptCommand() {
        this(Environment.system());
    }

    AcceptCommand(Environment env) {
        this.env = env;
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    LifecyclePrelude prelude = new LifecyclePrelude();

    @Mixin
    OutputOptions output = OutputOptions.of(Output.class);

    /** What accept prints: the words, and the record as data (-o json|yaml). */
    public record Output(String words, Record record, String node) implements TextReport,
            TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            return words;
        }

        @Override
        public tools.jackson.databind.JsonNode tree() {
            return record != null ? Structured.tree(record)
                    : Structured.tree(Map.of("node", node, "held", false));
        }
    }

    @Parameters(index = "0", paramLabel = "NODE")
    String node;

    @Option(names = "--as", paramLabel = "NAME", description = "Compare with this baseline target (the name the "
            + "host had), instead of NODE's or the matching tombstone's.")
    String as;

    @Option(names = "--yes", description = "Act on a PASS: release the matching tombstones, remove the taint, record "
            + "who accepted.")
    boolean yes;

    @Option(names = "--host-report", paramLabel = "FILE",
            description = "A report from `nodegate host inspect` on the host (required when no baseline target "
                    + "applies).")
    Path hostReport;

    @Option(names = "--cluster-address", paramLabel = "HOST", split = ",",
            description = "Another name this cluster is reached by (registration VIP or DNS name), for --host-report.")
    List<String> clusterAddresses = new ArrayList<>();

    @Option(names = {"-n", "--namespace"}, paramLabel = "NAMESPACE", defaultValue = TombstoneBook.DEFAULT_NAMESPACE,
            description = "nodegate's namespace: the tombstones ledger and the inventory (default: ${DEFAULT-VALUE}).")
    String namespace;

    /**
     * What accept decided and did; kept in the evidence directory, for an attempt that failed too.
     *
     * @param error why the attempt stopped (a failed read, a refused or failed PATCH, a failed release), or null; the
     *              fields before it hold what was known by then (no uid when the Node was never read, no verdict
     *              when the checks did not finish)
     */
    public record Record(String node, String uid, Instant at, String acceptedBy, Verdict verdict,
                         List<String> heldFor, String comparedWith, List<Check> checks, List<Tombstone> released,
                         boolean accepted, String error) {
    }

    /** What one run of accept knows so far: a failure at any step is recorded with it. */
    private static final class Attempt {
        Instant at;
        final String who;
        NodeInfo node;
        Verdict verdict;
        List<String> heldFor = List.of();
        String comparedWith;
        List<Check> checks = List.of();
        final List<Tombstone> released = new ArrayList<>();
        boolean accepted;
        /** The record is written: what fails after it (a FAIL's exit) is not an attempt's failure to record. */
        boolean recorded;

        Attempt(Instant at, String who) {
            this.at = at;
            this.who = who;
        }

        String dir(String name) {
            return "accept-" + name + "-" + EvidenceStore.stamp(at);
        }

        Record record(String name, String error) {
            return new Record(name, node == null ? null : node.uid(), at, who, verdict, heldFor, comparedWith,
                    checks, List.copyOf(released), accepted, error);
        }
    }

    @Override
    public Integer call() {
        Baseline baseline = prelude.baseline();
        HostReportJson.Loaded report = hostReport == null ? null : HostReportJson.load(hostReport);
        BaselineFileOptions.Session session = prelude.connect(env);
        Attempt attempt = new Attempt(env.clock().instant(), TombstoneLedger.who(session.api()));
        try {
            return accept(baseline, report, session, attempt);
        } catch (RuntimeException e) {
            if (attempt.recorded) {
                throw e;
            }
            // the attempt is kept as a success is: what was read, checked and done up to the failure, and why it
            // stopped. Nothing changed in the cluster on this path unless the record says accepted or released.
            EvidenceStore store = session.store();
            try {
                store.ensureWritable();
                java.nio.file.Path written = store.writeJson(attempt.dir(node) + "/accept.json",
                        attempt.record(node, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
                PrintWriter err = spec.commandLine().getErr();
                err.println("nodegate: accept " + node + " failed; the attempt is recorded in " + written);
                err.flush();
            } catch (RuntimeException unwritten) {
                e.addSuppressed(unwritten);
            }
            throw e;
        }
    }

    private Integer accept(Baseline baseline, HostReportJson.Loaded report, BaselineFileOptions.Session session,
                           Attempt attempt) {
        ClusterState state = new LiveSource(session.api().connection()).load(false);
        NodeInfo n = state.node(node).orElseThrow(() -> new InputException("Node " + node + " not found (NotFound)"));
        attempt.node = n;
        PrintWriter out = spec.commandLine().getOut();
        if (!NewcomerHold.held(n)) {
            attempt.recorded = true; // nothing to accept is no attempt
            output.print(out, new Output(node + " carries no " + NewcomerHold.TAINT_KEY + " taint: nothing to accept\n",
                    null, node));
            return ExitCode.OK;
        }
        List<String> heldFor = NewcomerHold.reasons(n, state);
        attempt.heldFor = heldFor;
        SharedMachineIds images = new SharedMachineIds().addAll(state.nodes(), null);
        List<Tombstone> matching = state.tombstones().items().stream()
                .filter(t -> t.matchOf(n, true, images) != null && !t.existedAtRemoval(n)).toList();
        String targetName = as != null ? as : baseline.target(node) != null ? node
                : matching.stream().map(Tombstone::name).filter(t -> baseline.target(t) != null).findFirst().orElse(null);
        if (as != null && baseline.target(as) == null) {
            throw new InputException("--as " + as + " is not a target in the baseline");
        }
        attempt.comparedWith = targetName;
        List<Check> checks = new ArrayList<>();
        checks.add(identityCheck(n, state));
        attempt.checks = checks;
        if (targetName != null) {
            Readmitter.Verification v = new Readmitter(session.api(), session.store(), env.clock())
                    .verify(baseline, baseline.target(targetName), node, false, report, clusterAddresses);
            checks.addAll(v.checks());
        } else {
            if (report == null) {
                throw new InputException(node + " is not a target in the baseline, nor is a removed host it matches: "
                        + "give --host-report from `nodegate host inspect` on the host (or --as NAME)");
            }
            checks.add(new Check("ready", "Ready", n.isReady() ? Verdict.PASS : Verdict.FAIL,
                    n.isReady() ? List.of() : List.of("Ready is " + n.readyStatus() + ", not True"),
                    Map.of("ready", String.valueOf(n.readyStatus()))));
            checks.add(ReadmitHostCheck.check(report.report(), report.file().toString(), report.actualSha256(), n,
                    HostEvidence.clusterHosts(session.api().server(), state.nodes(), clusterAddresses)));
        }
        Verdict verdict = Verdict.PASS;
        for (Check c : checks) {
            verdict = Verdict.worst(verdict, c.outcome());
        }
        attempt.verdict = verdict;
        Instant at = env.clock().instant();
        attempt.at = at;
        String who = attempt.who;
        List<Tombstone> released = attempt.released;
        EvidenceStore store = session.store();
        String dir = attempt.dir(node);
        if (yes && verdict == Verdict.PASS) {
            store.ensureWritable();
            // every tombstone is saved before anything changes in the cluster
            for (Tombstone t : matching) {
                store.writeJson(dir + "/tombstone-" + t.name() + ".json", t);
            }
            // The Node first: its one patch tests the uid and resourceVersion the checks were made on, so a Node that
            // changed since (a kubelet's status update, another person) is refused and nothing at all has changed.
            new NodeHolds(session.api().client()).accept(n, who, at);
            attempt.accepted = true;
            TombstoneLedger ledger = new TombstoneLedger(session.api(), namespace);
            for (Tombstone t : matching) {
                try {
                    ledger.release(t.name()).ifPresent(released::add);
                } catch (RuntimeException e) {
                    throw new io.nodegate.CollectionException("accept " + node + ": the Node is accepted (taint "
                            + "removed, " + NewcomerHold.ACCEPTED_BY + " written), but releasing tombstone " + t.name()
                            + " failed: " + e.getMessage() + ". Its copy is in " + store.dir().resolve(dir) + "; release"
                            + " it with 'nodegate readmit " + t.name() + " --yes' (a kubelet restart of " + node
                            + " is refused by the quarantine while it stands)", e);
                }
            }
        }
        Record record = attempt.record(node, null);
        store.ensureWritable();
        store.writeJson(dir + "/accept.json", record);
        attempt.recorded = true;
        boolean accepted = attempt.accepted;
        List<String> w = new ArrayList<>();
        w.add("accept " + node + ": " + verdict + (targetName == null ? "" : " (compared with baseline target "
                + targetName + ")"));
        heldFor.forEach(r -> w.add("  held: " + r));
        for (Check c : checks) {
            w.add("  [" + c.outcome() + "] " + c.id() + ": " + c.title());
            c.reasons().forEach(r -> w.add("      " + r));
        }
        released.forEach(t -> w.add("released tombstone " + t.name() + " (saved in " + store.dir().resolve(dir)
                + ")"));
        if (accepted) {
            w.add("accepted: taint " + NewcomerHold.TAINT_KEY + " removed, " + NewcomerHold.ACCEPTED_BY + "="
                    + who);
        } else if (verdict == Verdict.PASS) {
            w.add("nothing changed: add --yes to accept");
        }
        output.print(out, new Output(String.join("\n", w) + "\n", record, node));
        out.flush();
        if (verdict != Verdict.PASS) {
            throw new NodegateException(verdict.exitCode(), "accept " + node + ": " + verdict + "; the taint stays");
        }
        return ExitCode.OK;
    }

    /**
     * A shared identity is never enough (cloned VMs): a Node whose systemUUID another Node reports, or whose
     * machineID is shared, must be declared in the inventory by both IDs and its name; and where an inventory is
     * declared, every accepted Node must be in it.
     */
    static Check identityCheck(NodeInfo n, ClusterState state) {
        String uuid = HostIdentity.normalise(n.systemInfo().systemUuid());
        String mid = HostIdentity.normalise(n.systemInfo().machineId());
        SharedMachineIds images = new SharedMachineIds().addAll(state.nodes(), null);
        boolean shared = state.nodes().stream().filter(o -> !o.name().equals(n.name())).anyMatch(o ->
                (uuid != null && uuid.equals(HostIdentity.normalise(o.systemInfo().systemUuid())))
                        || (mid != null && mid.equals(HostIdentity.normalise(o.systemInfo().machineId()))))
                || images.isImage(mid);
        Map<String, String> ev = new LinkedHashMap<>();
        ev.put("systemUUID", String.valueOf(uuid));
        ev.put("machineID", String.valueOf(mid));
        ev.put("sharedWithAnotherNode", String.valueOf(shared));
        NodeInventory inv = state.inventory();
        String title = "the host is told apart by its own identity (inventory)";
        if (inv == null) {
            return shared ? new Check("inventory", title, Verdict.FAIL, List.of("its systemUUID or machineID is "
                    + "shared with another Node (cloned VMs?) and no inventory is declared: a shared ID is never enough;"
                    + " declare the host by both IDs and name (nodegate inventory init)"), ev)
                    : new Check("inventory", title, Verdict.PASS, List.of(), ev);
        }
        NodeInventory.Judgement j = inv.judge(n, state.nodes());
        ev.put("standing", j.standing().name());
        return j.declared() ? new Check("inventory", title, Verdict.PASS, List.of(), ev)
                : new Check("inventory", title, Verdict.FAIL, List.of("not in the declared inventory: " + j.reason()
                + "; declare it first (ConfigMap " + NodeInventory.CONFIGMAP + ")"), ev);
    }
}
