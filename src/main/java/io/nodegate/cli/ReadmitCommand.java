package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.InputException;
import io.nodegate.NodegateException;
import io.nodegate.source.host.HostReportJson;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.nodegate.lifecycle.quarantine.TombstoneLedger;
import io.nodegate.model.TombstoneBook;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.render.LifecycleRenderer;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.lifecycle.readmit.Readmitter;
import io.nodegate.model.NewcomerHold;
import io.nodegate.render.output.TerminalText;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

@Command(name = "readmit", mixinStandardHelpOptions = true,
        header = "Take back a host that left, keeping its Node object.",
        description = "Take back a host that left (seed: gpu-a07..a09 back from cluster B) without losing its Node, "
                + "or lift the quarantine of a host 'nodegate remove' deleted: --yes releases its tombstone (only "
                + "its, with a resourceVersion precondition) so it may register again. "
                + "Keeps the Node object (cordon, role labels, GPU taint, podCIDR); backs up and deletes only "
                + "<node>.node-password.<k3s|rke2> (with --yes; without it, shows the plan); prints the host-side "
                + "steps and the exact version to reinstall (the cluster's). --verify, after the host rejoined: "
                + "Ready, new bootID, systemUUID/kernel/GPU count equal to the baseline, cordon and taints kept (for a Node "
                + "that was deleted and registered anew: the baseline's role labels and taints put back), "
                + "unreachable taints gone, a new node-password Secret, no Failed "
                + "apply-system-agent-upgrader-on-NODE-... Job (--yes deletes them so the Plan runs again, and only "
                + "when every other check passes: a run that is not otherwise a PASS changes nothing). Exit 0 "
                + "done/PASS, 5 FAIL, 3 an API call failed.",
        footer = {"", "Examples:",
                "  nodegate readmit gpu-a07 --baseline base.json            # the plan, nothing changed",
                "  nodegate readmit gpu-a07 --baseline base.json --yes      # delete the node-password Secret",
                "  nodegate readmit gpu-a11 --baseline base.json --yes      # a removed host: release its tombstone",
                "  nodegate readmit gpu-a07 --baseline base.json --verify --yes",
                "  nodegate readmit gpu-a07 --baseline base.json --verify --host-report gpu-a07-host-report.json"})
public final class ReadmitCommand implements Callable<Integer> {

    private final Environment env;

    public ReadmitCommand() {
        this(Environment.system());
    }

    ReadmitCommand(Environment env) {
        this.env = env;
    }
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    LifecyclePrelude prelude = new LifecyclePrelude();
    @Mixin
    OutputOptions output = OutputOptions.of(LifecycleRenderer.ReadmitOutput.class);

    @Parameters(index = "0", paramLabel = "NODE")
    String node;


    @Option(names = "--verify", description = "Check the rejoined host instead of preparing its return.")
    boolean verify;

    @Option(names = "--yes", description = "Act: release the host's tombstone and delete the node-password Secret "
            + "(or, with --verify, Failed upgrader Jobs).")
    boolean yes;

    @Option(names = "--host-report", paramLabel = "FILE",
            description = "With --verify: a report from `nodegate host inspect` on the returned host. Its sha256 and "
                    + "machine-id/product UUID must hold; the agent must point at this cluster, register under NODE, "
                    + "and be enabled and active. Kept in the evidence directory.")
    Path hostReport;

    @Option(names = "--cluster-address", paramLabel = "HOST", split = ",",
            description = "Another name this cluster is reached by (registration VIP or DNS name), for --host-report.")
    List<String> clusterAddresses = new ArrayList<>();

    @Option(names = {"-n", "--namespace"}, paramLabel = "NAMESPACE", defaultValue = TombstoneBook.DEFAULT_NAMESPACE,
            description = "Where 'nodegate remove' recorded tombstones (ConfigMap " + TombstoneBook.CONFIGMAP
                    + "; default: ${DEFAULT-VALUE}).")
    String namespace;


    @Override
    public Integer call() {
        Baseline baseline = prelude.baseline();
        if (hostReport != null && !verify) {
            throw new InputException("--host-report goes with --verify: it checks the reinstalled agent");
        }
        HostReportJson.Loaded report = hostReport == null ? null : HostReportJson.load(hostReport);
        BaselineFileOptions.Session session = prelude.connect(env);
        Readmitter readmitter = new Readmitter(session.api(), session.store(), env.clock());
        PrintWriter w = spec.commandLine().getOut();
        if (verify) {
            Readmitter.Verification v = readmitter.verify(baseline, node, yes, report, clusterAddresses);
            output.print(w, new LifecycleRenderer.ReadmitVerification(v));
            w.flush();
            sayWhetherHeld(v);
            if (v.verdict() != Verdict.PASS) {
                throw new NodegateException(v.verdict().exitCode(), "readmit --verify " + node + ": " + v.verdict());
            }
            return ExitCode.OK;
        }
        Readmitter.Release release = readmitter.releaseTombstone(baseline, node, yes,
                new TombstoneLedger(session.api(), namespace));
        sayWhoIsStillHeld(release);
        if (release != null && !release.nodeExists()) {
            // a removed host: no Node to keep, only its quarantine to lift before it is reinstalled
            output.print(w, new LifecycleRenderer.ReadmitRelease(release));
            return ExitCode.OK;
        }
        Readmitter.Plan p = readmitter.prepare(baseline, node, yes);
        output.print(w, new LifecycleRenderer.ReadmitPlan(p, release));
        return ExitCode.OK;
    }

    /**
     * The host may be back already, held at birth under this name or a new one: lifting its tombstone lets it register
     * again, but a Node it registered meanwhile stays held until `accept`, which readmit does not do (the same one door
     * as below). Said on stderr before the plan, so -o json stays one document and the note is not lost should the
     * plan fail afterwards.
     */
    private void sayWhoIsStillHeld(Readmitter.Release release) {
        if (release == null || release.held().isEmpty()) {
            return;
        }
        PrintWriter err = spec.commandLine().getErr();
        for (Readmitter.HeldNode h : release.held()) {
            String name = TerminalText.escape(h.name());
            err.println("nodegate: Node " + name + " matches " + node + "'s tombstone (" + h.match() + ") and is "
                    + (release.released() ? "still " : "") + "held (taint " + NewcomerHold.TAINT_KEY + "): "
                    + (release.released() ? "releasing the tombstone" : "readmit") + " does not lift the hold. "
                    + "'nodegate accept " + name + " --baseline FILE --yes' releases it, on the same evidence plus the "
                    + "host's identity, and records who accepted it.");
        }
        err.flush();
    }

    /**
     * A Node held at birth (taint nodegate.io/unaccepted) is lifted by `accept` only: it makes readmit's checks plus
     * the identity check (a shared systemUUID or machineID is never enough) and records who accepted it. One door with
     * one set of rules; readmit says so, on stderr so that -o json stays one document. Judged on the Node the checks
     * read, so no second read can fail after the verdict.
     */
    private void sayWhetherHeld(Readmitter.Verification v) {
        if (v.held()) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("nodegate: " + node + " is held (taint " + NewcomerHold.TAINT_KEY + "): readmit does not lift "
                    + "the hold. Run 'nodegate accept " + node + " --baseline FILE --yes': the same checks plus the "
                    + "host's identity, and it records who accepted it.");
            err.flush();
        }
    }
}
