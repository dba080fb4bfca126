package io.nodegate.cli;

import io.nodegate.CollectionException;
import io.nodegate.ExitCode;
import io.nodegate.InputException;
import io.nodegate.model.ClusterState;
import io.nodegate.model.bmc.BmcReadings;
import io.nodegate.model.BmcReport;
import io.nodegate.render.BmcRenderer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** `nodegate bmc`: ask the hosts' BMCs over Redfish whether each Node's machine is powered off. */
@Command(name = "bmc",
        mixinStandardHelpOptions = true,
        description = {
                "Ask the machines themselves: read each BMC over Redfish (read-only) and show, beside each Node's "
                        + "Ready, Lease age and taints, whether its host is powered-off, running, transitioning, "
                        + "not-found or unreadable, and where that came from.",
                "A BMC's ComputerSystem is bound to the Node whose systemUUID equals its UUID (the SMBIOS UUID), "
                        + "never by name. See docs/bmc.md."},
        footer = {"",
                "Examples:",
                "  nodegate bmc --bmc https://10.0.30.7 --bmc https://10.0.30.8 --bmc-credentials bmc-rack-a.yaml \\",
                "      --bmc-ca bmc-ca.pem",
                "  nodegate bmc gpu-a07 gpu-a08 --bmc-inventory bmcs.yaml -o json",
                "  nodegate bmc -f dump/ --bmc-inventory bmcs.yaml     # the cluster from a dump, the BMCs live",
                "",
                "Exit codes: 0 every BMC read, 2 usage or input error, 3 a BMC could not be read",
                "            (TLS, credentials, timeout, 503) or a Node's UUID is reported by several",
                "            systems (a UUID no Node has is only reported)."})
public final class BmcCommand implements Callable<Integer> {

    private final Environment env;

    public BmcCommand() {
        this(Environment.system());
    }

    BmcCommand(Environment env) {
        this.env = env;
    }

    @Mixin
    SourceOptions source;

    @Mixin
    BmcOptions bmc = new BmcOptions();

    @Mixin
    OutputOptions output = OutputOptions.of(BmcRenderer.Output.class);

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "NODE", arity = "0..*", description = "Nodes to show (default: all).")
    List<String> nodes = new ArrayList<>();

    @Override
    public Integer call() {
        if (!bmc.given()) {
            throw new InputException("nodegate bmc needs the BMCs to ask: --bmc URL (repeatable) or --bmc-inventory FILE");
        }
        bmc.targets(); // a bad inventory or credentials file fails before the cluster is read
        ClusterState state = source.load(false);
        for (String name : nodes) {
            if (state.node(name).isEmpty()) {
                throw new InputException("Node " + name + " not found in " + state.source());
            }
        }
        PrintWriter err = spec.commandLine().getErr();
        BmcReadings readings = bmc.read(env.clock(), err);
        BmcReport report = BmcReport.of(state.withBmc(readings), nodes);
        output.print(spec.commandLine().getOut(), new BmcRenderer.Output(report));
        List<String> problems = report.problems();
        if (!problems.isEmpty()) {
            throw new CollectionException(String.join("; ", problems) + " (unreadable: never evidence either way)");
        }
        return ExitCode.OK;
    }
}
