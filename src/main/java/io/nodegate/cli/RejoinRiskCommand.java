package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.InputException;
import io.nodegate.NodegateException;
import io.nodegate.lifecycle.gate.MachineSource;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.lifecycle.rejoin.RejoinReader;
import io.nodegate.detect.rejoin.RejoinRisk;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.host.HostReport;
import io.nodegate.render.RejoinRenderer;
import io.nodegate.source.host.HostReportJson;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.render.output.TerminalText;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "rejoin-risk", mixinStandardHelpOptions = true,
        header = "Can a removed host come back? yes / no / unknown, with every way in.",
        description = "For every host in the tombstone ledger (or each NODE named: a removed host, or a Node about "
                + "to be removed), whether it can register in this cluster again, and through what: the quarantine "
                + "(policy, binding, its tombstone in a shard the binding reads), the RKE2/k3s token (never expires; "
                + "only a host report shows it gone), bootstrap token Secrets in kube-system and their expiration "
                + "(metadata and expiry only, never the token), its node-password Secret, and with --host-report the "
                + "host's config and services. With --machine-kubeconfig or --machine-context (Rancher's management "
                + "cluster), also the host's Cluster API Machine and the cluster's ClusterRegistrationTokens (the "
                + "token of the registration command; its expiry only, never the token). A \"yes\" is finding NG306 with the open path and what closes it; "
                + "\"unknown\" names what could not be read; a failed read never answers \"no\". "
                + "Exit 0 every host no, 5 a host can come back, 3 a read failed (even beside a proven answer).",
        footer = {"", "Example:",
                "  nodegate rejoin-risk                    # every host nodegate remove deleted",
                "  nodegate rejoin-risk gpu-a07 -o json    # a Node about to be removed, for a script",
                "  nodegate rejoin-risk gpu-a07 --host-report gpu-a07-host-report.json"})
public final class RejoinRiskCommand implements Callable<Integer> {

    private final Environment env;

    public RejoinRiskCommand() {
        this(Environment.system());
    }

    RejoinRiskCommand(Environment env) {
        this.env = env;
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    LiveOptions live = new LiveOptions();

    @Mixin
    OutputOptions output = OutputOptions.of(RejoinRenderer.Output.class);

    @Parameters(paramLabel = "NODE", arity = "0..*",
            description = "Hosts to answer for (default: every host in the tombstone ledger).")
    List<String> nodes = new ArrayList<>();

    @Option(names = "--host-report", paramLabel = "FILE",
            description = "A report from `nodegate host inspect` on a host (repeatable; matched by systemUUID, "
                    + "machineID or hostname): shows whether its config, token and agent are still there. A report "
                    + "that matches none of the hosts asked is refused (exit 2).")
    List<Path> hostReports = new ArrayList<>();

    @Mixin
    MachineFlags machines = new MachineFlags();

    @Option(names = {"-n", "--namespace"}, paramLabel = "NAMESPACE", defaultValue = TombstoneBook.DEFAULT_NAMESPACE,
            description = "Where 'nodegate remove' recorded tombstones (default: ${DEFAULT-VALUE}).")
    String namespace;

    /** What a report is matched by, as the report says it. */
    private static String describe(HostReport r) {
        HostReport.Identity id = r.identity();
        if (id == null) {
            return "no identity in the report";
        }
        List<String> parts = new ArrayList<>();
        parts.add("hostname " + (id.knownHostname() == null ? "unknown" : id.knownHostname()));
        if (id.productUuid() != null) {
            parts.add("systemUUID " + id.productUuid());
        }
        if (id.machineId() != null) {
            parts.add("machineID " + id.machineId());
        }
        // the report's fields are data from the host: control characters escaped before they reach a terminal
        return TerminalText.escape(String.join(", ", parts));
    }

    @Override
    public Integer call() {
        List<HostReport> reports = new ArrayList<>();
        for (Path file : hostReports) {
            HostReportJson.Loaded loaded = HostReportJson.load(file);
            if (!loaded.intact()) {
                throw new InputException("host report " + file + ": its sha256 does not match its "
                        + "content (edited after `nodegate host inspect` wrote it)");
            }
            reports.add(loaded.report());
        }
        RejoinReader.Report report;
        MachineSource management = machines.open(live);
        try (KubeConnection connection = env.connect().apply(live)) {
            RejoinReader.Management rancher = management == null ? null : new RejoinReader.Management(
                    management.api(), management.namespace(), management.cluster(), management.description());
            report = new RejoinReader(new ApiReader(connection), env.clock(), namespace, rancher)
                    .answer(List.copyOf(nodes), reports);
        } finally {
            MachineFlags.close(management);
        }
        if (!report.unmatchedReports().isEmpty()) {
            // a report of another machine would answer nothing and leave the host it was meant for unchecked
            List<String> refused = new ArrayList<>();
            for (int i : report.unmatchedReports()) {
                refused.add(hostReports.get(i) + " (" + describe(reports.get(i)) + ")");
            }
            throw new InputException("--host-report " + String.join(", ", refused) + (refused.size() == 1
                    ? " belongs to none of the hosts asked" : " belong to none of the hosts asked") + ": "
                    + (report.askedIdentities().isEmpty() ? "no host was asked (the tombstone ledger in " + namespace
                    + " is empty)" : String.join("; ", report.askedIdentities()))
                    + ". A report matches a host by systemUUID, machineID or hostname = node name.");
        }
        output.print(spec.commandLine().getOut(), new RejoinRenderer.Output(report, !nodes.isEmpty()));
        RejoinRisk.Answer worst = report.worst();
        if (worst == RejoinRisk.Answer.UNKNOWN) {
            throw new NodegateException(ExitCode.COLLECTION, "rejoin-risk: unknown (something could not be read)");
        }
        if (worst == RejoinRisk.Answer.YES) {
            throw new NodegateException(ExitCode.FAIL, "rejoin-risk: a host can come back");
        }
        return ExitCode.OK;
    }
}
