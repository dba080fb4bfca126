package io.nodegate.cli;

import io.nodegate.InputException;
import io.nodegate.NodegateException;
import io.nodegate.RefusedException;
import io.nodegate.time.Durations;
import io.nodegate.ExitCode;
import io.nodegate.lifecycle.quarantine.TombstoneLedger;
import io.nodegate.model.TombstoneBook;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.render.LifecycleRenderer;
import io.nodegate.lifecycle.gate.MachineSource;
import io.nodegate.lifecycle.remove.NodeRemover;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;

@Command(name = "remove", mixinStandardHelpOptions = true,
        header = "Delete a Node that passed the gate, preserving its record, and follow the cascade.",
        description = "Delete a Node that passed the gate, and follow the cascade. Refuses unless the newest gate "
                + "record for NODE is PASS, younger than --max-gate-age, and the Node's uid and resourceVersion "
                + "are those the gate saw (--override records a human decision instead). Saves Node, Lease, "
                + "CSINode and node-password Secret metadata (written, fsync'd, read back) before deleting with a "
                + "uid precondition, then waits until Lease, CSINode, node-password Secret are NotFound and no pod "
                + "is bound to the node (40-80 s is normal). Records the host (name, systemUUID, machineID, the live Nodes "
                + "sharing them, --handed-to) as a tombstone in the ledger ConfigMaps nodegate-tombstones*, so its "
                + "return is reported (NG302) and, with 'nodegate policy --quarantine', refused; that the tombstone "
                + "fits and the API server accepts its write is checked (dry run) before the delete. Exit 0 done, 4 "
                + "cascade incomplete at --timeout, 5 refused / already gone / the tombstone cannot be recorded "
                + "(nothing deleted), 3 an API call failed (also: the tombstone write failed after the delete). With "
                + "--machine-context (a Rancher custom cluster) the Node's Cluster API Machine is deleted instead, with "
                + "the uid and resourceVersion the gate saw as preconditions, after the Machine's JSON is saved too; "
                + "Cluster API then drains and deletes the Node, and remove follows it (give --timeout 10m).",
        footer = {"", "Examples:",
                "  nodegate remove gpu-a11 --baseline base.json",
                "  nodegate remove gpu-a10 --baseline base.json --override 'kim: Lease frozen D+15, same reply source as gpu-a11'",
                "  nodegate remove gpu-a07 --baseline base.json --handed-to cluster-b   # the host now serves cluster-b",
                "  nodegate remove gpu-b04 --baseline base.json --machine-context rancher --machine-cluster prod-gpu --timeout 10m"})
public final class RemoveCommand implements Callable<Integer> {

    private final Environment env;

    public RemoveCommand() {
        this(Environment.system());
    }

    RemoveCommand(Environment env) {
        this.env = env;
    }
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    LifecyclePrelude prelude = new LifecyclePrelude();
    @Mixin
    OutputOptions output = OutputOptions.of(LifecycleRenderer.RemoveOutput.class);

    @Parameters(index = "0", paramLabel = "NODE")
    String node;


    @Option(names = "--max-gate-age", defaultValue = "30m", paramLabel = "DURATION",
            converter = DurationConverter.Positive.class,
            description = "Oldest PASS gate record accepted (default: ${DEFAULT-VALUE}).")
    Duration maxGateAge;

    @Option(names = "--override", paramLabel = "REASON",
            description = "Delete without a PASS gate record, recording this human decision (who and why).")
    String override;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NAMESPACE", defaultValue = TombstoneBook.DEFAULT_NAMESPACE,
            description = "Where the removed host's tombstone is recorded, in the ledger ConfigMaps "
                    + TombstoneBook.CONFIGMAP + "* (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Mixin
    MachineFlags machines = new MachineFlags();

    @Option(names = "--handed-to", paramLabel = "CLUSTER",
            description = "The cluster the host was handed to, as 'nodegate fleet' names it (its context, or the Rancher "
                    + "display name). Written into the tombstone: the host's Node there is the expected arrival "
                    + "(NG302 info), not a removed host coming back.")
    String handedTo;

    @Option(names = "--timeout", defaultValue = "3m", paramLabel = "DURATION",
            converter = DurationConverter.Positive.class,
            description = "How long to follow the cascade (default: ${DEFAULT-VALUE}).")
    Duration timeout;


    @Override
    public Integer call() {
        Baseline baseline = prelude.baseline();
        var opts = new NodeRemover.Options(maxGateAge, override, timeout, env.pollInterval(), handedTo);
        BaselineFileOptions.Session session = prelude.connect(env);
        PrintWriter w = spec.commandLine().getOut();
        // the cascade is followed for minutes: its progress goes with the table to stdout, and to stderr when stdout
        // carries JSON or YAML, so that what a pipe reads parses
        PrintWriter progress = output.isTable() ? w : spec.commandLine().getErr();
        NodeRemover.Record r;
        MachineSource management = machines.open(prelude.live());
        try {
            r = new NodeRemover(session.api(), session.store(), env.clock(), progress, env.sleeper(),
                    new TombstoneLedger(session.api(), namespace))
                    .remove(baseline, prelude.baselineFile(), node, opts, management);
        } catch (RefusedException | InputException e) {
            throw new NodegateException(e.exitCode(), "remove " + node + ": " + e.getMessage(), e);
        } finally {
            MachineFlags.close(management);
        }
        String deleted = r.machine() == null ? "Node " + node
                : "Machine " + r.machine().namespace() + "/" + r.machine().name() + " (Node " + node + ")";
        progress.flush();
        output.print(w, new LifecycleRenderer.RemoveOutput(node, r, session.store().dir()));
        if (r.tombstoneError() != null) {
            throw new NodegateException(ExitCode.COLLECTION, deleted + " was deleted, but its tombstone was not"
                    + " recorded (" + r.tombstoneError() + "): record it by hand with the commands printed above");
        }
        if (r.error() != null) {
            throw new NodegateException(ExitCode.COLLECTION, deleted + " was deleted, but following the cascade failed: "
                    + r.error());
        }
        if (!r.cascadeComplete()) {
            throw new NodegateException(ExitCode.HOLD, deleted + " deleted; after " + Durations.format(timeout)
                    + " still left: " + String.join("; ", r.left()));
        }
        return ExitCode.OK;
    }
}
