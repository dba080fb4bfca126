package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.NodegateException;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.lifecycle.rejoin.RejoinReader;
import io.nodegate.detect.rejoin.RejoinRisk;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.host.HostReport;
import io.nodegate.render.RejoinRenderer;
import io.nodegate.source.host.HostReportJson;
import io.nodegate.source.kube.KubeConnection;
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
                + "host's config and services. A \"yes\" is finding NG306 with the open path and what closes it; "
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
                    + "machineID or hostname): shows whether its config, token and agent are still there.")
    List<Path> hostReports = new ArrayList<>();

    @Option(names = {"-n", "--namespace"}, paramLabel = "NAMESPACE", defaultValue = TombstoneBook.DEFAULT_NAMESPACE,
            description = "Where 'nodegate remove' recorded tombstones (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Override
    public Integer call() {
        List<HostReport> reports = new ArrayList<>();
        for (Path file : hostReports) {
            HostReportJson.Loaded loaded = HostReportJson.load(file);
            if (!loaded.intact()) {
                throw new io.nodegate.InputException("host report " + file + ": its sha256 does not match its "
                        + "content (edited after `nodegate host inspect` wrote it)");
            }
            reports.add(loaded.report());
        }
        RejoinReader.Report report;
        try (KubeConnection connection = env.connect().apply(live)) {
            report = new RejoinReader(new ApiReader(connection), env.clock(), namespace)
                    .answer(List.copyOf(nodes), reports);
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
