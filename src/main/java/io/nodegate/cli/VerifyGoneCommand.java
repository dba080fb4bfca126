package io.nodegate.cli;

import io.nodegate.lifecycle.gate.HostInputs;

import io.nodegate.ExitCode;
import io.nodegate.NodegateException;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.render.LifecycleRenderer;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.lifecycle.verify.GoneVerifier;
import io.nodegate.InputException;
import io.nodegate.lifecycle.gate.MachineSource;
import io.nodegate.lifecycle.rejoin.RejoinReader;
import io.nodegate.model.TombstoneBook;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

@Command(name = "verify-gone", mixinStandardHelpOptions = true,
        header = "Prove that nothing came back after removal (run it twice).",
        description = "Check that nothing came back after removal: no Node and no node-password Secret created after "
                + "BASELINE_TS; no Node with a target's IP, systemUUID or machineID, or a name matching "
                + "--name-pattern; etcd members unchanged; targets not yet removed still silent (heartbeat, "
                + "bootID, Lease unchanged). Each query is first shown to find something (the control node's IP "
                + "and UUID, a time before the oldest node); a self-test that finds nothing makes the run INVALID. "
                + "Run it twice: the next day, and after the receiving side admitted the hosts. With "
                + "--fleet-context/--fleet-kubeconfig it also says where each removed host is now (by machineID/"
                + "systemUUID in those clusters; informational). With --bmc/--bmc-inventory it shows each removed host's "
                + "power state from its own BMC (bound by the baseline's systemUUID; informational, an unreadable BMC "
                + "is INVALID). It also answers \"can it come back?\" for each removed target, as `nodegate rejoin-risk` does "
                + "(informational; NG306 for a yes, INVALID when a read failed). Exit 0 PASS, 5 FAIL (something came back), 3 INVALID.",
        footer = {"", "Example:",
                "  nodegate verify-gone --baseline base.json --name-pattern '^new-' --ip 198.51.100.21 --ip 198.51.100.22",
                "  nodegate verify-gone --baseline base.json --fleet-context cluster-b   # where did the hosts go?",
                "  nodegate verify-gone --baseline base.json --bmc-inventory bmcs.yaml  # are their machines off?"})
public final class VerifyGoneCommand implements Callable<Integer> {

    private final Environment env;

    public VerifyGoneCommand() {
        this(Environment.system());
    }

    VerifyGoneCommand(Environment env) {
        this.env = env;
    }
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    /** Rancher's management cluster: the rejoin check also reads a custom node's Machine and registration token. */
    @Mixin
    MachineFlags machines = new MachineFlags();

    @Mixin
    EtcdOptions etcd = new EtcdOptions();

    @Mixin
    LifecyclePrelude prelude = new LifecyclePrelude();

    @Mixin
    FleetFlags fleet = new FleetFlags();
    @Mixin
    OutputOptions output = OutputOptions.of(LifecycleRenderer.VerifyGoneOutput.class);


    @Option(names = "--name-pattern", paramLabel = "REGEX",
            description = "Names the receiving side gives hosts (e.g. '^new-'): any such Node is reported.")
    String namePattern;

    @Option(names = "--ip", paramLabel = "IP", description = "Further addresses to look for (repeatable), e.g. the hosts' new IPs.")
    List<String> ips = new ArrayList<>();

    @Option(names = "--probe-kubelets",
            description = "Also knock on each removed target's kubelet port at its baseline InternalIP (TCP + TLS "
                    + "handshake, nothing sent): this cluster's certificate answering is FAIL (RKE2 still runs there).")
    boolean probeKubelets;

    @CommandLine.Mixin
    KubeletProbeOptions kubeletProbe = new KubeletProbeOptions();

    @Mixin
    BmcOptions bmc = new BmcOptions();

    @Option(names = {"-n", "--namespace"}, paramLabel = "NAMESPACE",
            defaultValue = TombstoneBook.DEFAULT_NAMESPACE,
            description = "Where 'nodegate remove' recorded tombstones, for the rejoin check (default: ${DEFAULT-VALUE}).")
    String namespace;


    @Override
    public Integer call() {
        Baseline baseline = prelude.baseline();
        Pattern pattern = null;
        if (namePattern != null) {
            try {
                pattern = Pattern.compile(namePattern);
            } catch (PatternSyntaxException e) {
                throw new InputException("--name-pattern '" + namePattern + "': " + e.getDescription());
            }
        }
        HostInputs.Probe probe = kubeletProbe.probe(probeKubelets);
        GoneVerifier.Run run;
        try (RemovalReads reads = RemovalReads.read(env, prelude, fleet, bmc, machines, spec.commandLine().getErr())) {
            MachineSource management = reads.machines();
            run = new GoneVerifier(reads.session().api(), reads.session().store(), env.clock()).withBmc(reads.bmc())
                    .withLedgerNamespace(namespace)
                    .withManagement(management == null ? null : new RejoinReader.Management(management.api(),
                            management.namespace(), management.cluster(), management.description()))
                    .verify(baseline, prelude.baselineFile(), pattern, ips, LifecycleCommands.etcdEvidence(etcd),
                            probe, reads.fleetViews(), reads.fleetError());
        }
        output.print(spec.commandLine().getOut(), new LifecycleRenderer.VerifyGoneOutput(baseline.baselineTs(), run));
        if (run.result().verdict() != Verdict.PASS) {
            throw new NodegateException(run.result().verdict().exitCode(), "verify-gone: " + run.result().verdict());
        }
        return ExitCode.OK;
    }
}
