package io.nodegate.cli;

import io.nodegate.audit.Audit;
import io.nodegate.audit.AuditReport;
import io.nodegate.detect.AuditSettings;
import io.nodegate.model.ClusterState;
import io.nodegate.render.AuditRenderer;
import io.nodegate.render.Structured;
import io.nodegate.render.Style;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;

/** `nodegate audit`: read a cluster once, run every detector, print nodes and findings. */
@Command(name = "audit",
        mixinStandardHelpOptions = true,
        description = {
                "Show where Node objects and hosts disagree.",
                "Lists every Node with Ready (True/False/Unknown and reason), Lease renew age, last heartbeat, cordon,",
                "roles, InternalIP, kubelet version and host IDs, then the findings (codes NG1xx/NG2xx, explained in",
                "docs/findings.md). Reads only; changes nothing."},
        footer = {"",
                "Examples:",
                "  nodegate audit",
                "  nodegate audit --context prod-a -o json | jq '.findings[] | select(.code==\"NG103\")'",
                "  nodegate audit -f dump/ --now 2026-10-19T06:10:00Z      # offline, from kubectl dumps",
                "  nodegate audit --batch-window 1m --abandoned-after 7d",
                "  NO_COLOR=1 nodegate audit > audit.txt",
                "",
                "Exit codes: 0 no finding at warning or above, 1 at least one, 2 usage or input error,",
                "            3 collection failed (the cluster could not be read completely)."})
public final class AuditCommand implements Callable<Integer> {

    @Mixin
    SourceOptions source;

    @Mixin
    OutputOptions output;

    @Spec
    CommandSpec spec;

    @Option(names = "--batch-window", paramLabel = "DURATION", defaultValue = "30s",
            converter = DurationConverter.class,
            description = "NG103: Leases that stopped renewing within this of each other form a batch "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration batchWindow;

    @Option(names = "--newcomer-window", paramLabel = "DURATION", defaultValue = "72h",
            converter = DurationConverter.class,
            description = "NG111: a Node created within this is a newcomer (default: ${DEFAULT-VALUE}).")
    Duration newcomerWindow;

    @Option(names = "--abandoned-after", paramLabel = "DURATION", defaultValue = "72h",
            converter = DurationConverter.class,
            description = "NG170: cordoned or not Ready for longer than this counts as abandoned "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration abandonedAfter;

    @Option(names = "--grace-period", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "kube-controller-manager's --node-monitor-grace-period; a Lease older than this is "
                    + "silent (default: 50s for apiserver v1.32 and later, 40s before).")
    Duration gracePeriod;

    @Override
    public Integer call() {
        ClusterState state = source.load(false);
        return audit(state, spec.commandLine().getOut());
    }

    /** Runs the audit on a snapshot, prints it in the chosen format and returns the exit code. */
    int audit(ClusterState state, PrintWriter out) {
        AuditReport report = Audit.run(state, settings());
        out.print(render(report, output.format(), new Style(output.color())));
        out.flush();
        return exitCode(report);
    }

    AuditSettings settings() {
        return new AuditSettings(batchWindow, newcomerWindow, abandonedAfter, gracePeriod);
    }

    static String render(AuditReport report, OutputOptions.Format format, Style style) {
        return switch (format) {
            case table -> AuditRenderer.table(report, style);
            case json -> Structured.json(AuditRenderer.tree(report));
            case yaml -> Structured.yaml(AuditRenderer.tree(report));
        };
    }

    static int exitCode(AuditReport report) {
        return report.hasWarnings() ? ExitCodes.FINDINGS : ExitCodes.OK;
    }
}
