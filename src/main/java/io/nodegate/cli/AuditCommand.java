package io.nodegate.cli;

import io.nodegate.InputException;
import io.nodegate.audit.Audit;
import io.nodegate.audit.AuditReport;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.node.KubeletAnswersForAnotherClusterDetector;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.probe.KubeletEvidence;
import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.NodeInfo;
import io.nodegate.source.kube.LiveSource;
import io.nodegate.model.ClusterState;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.render.AuditRenderer;
import io.nodegate.handover.run.HandoverApi;
import io.nodegate.CollectionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** `nodegate audit`: read a cluster once, run every detector, print nodes and findings. */
@Command(name = "audit",
        mixinStandardHelpOptions = true,
        description = {
                "Show where Node objects and hosts disagree.",
                "Lists every Node (Ready True/False/Unknown with reason, Lease renew age, last heartbeat, cordon, "
                        + "roles, InternalIP, kubelet version, host IDs), then the findings: codes NG1xx, "
                        + "explained in docs/findings.md. Reads only; changes nothing."},
        footer = {"",
                "Examples:",
                "  nodegate audit",
                "  nodegate audit --context prod-a -o json \\",
                "      | jq '.findings[] | select(.code==\"NG103\")'",
                "  # offline, from kubectl dumps, aged against a fixed time:",
                "  nodegate audit -f dump/ --now 2026-10-19T06:10:00Z",
                "  nodegate audit --batch-window 1m --abandoned-after 7d",
                "  nodegate audit --skip NG111        # newcomers are expected today",
                "  NO_COLOR=1 nodegate audit > audit.txt",
                "  nodegate audit --probe-kubelets    # also ask Unknown Nodes' kubelet ports who they answer for",
                "  nodegate audit --bmc-inventory bmcs.yaml   # also ask the hosts' BMCs (NG304, NG305)",
                "  nodegate audit -o junit > nodegate-audit.xml      # for Jenkins / GitLab test reports",
                "  nodegate audit -o policyreport | kubectl apply -f -   # for Policy Reporter",
                "",
                "Exit codes: 0 no finding at warning or above, 1 at least one,",
                "            2 usage or input error, 3 collection failed."})
public final class AuditCommand implements Callable<Integer> {

    @Mixin
    SourceOptions source;

    /** table, wide, json, yaml, name, and junit and policyreport for pipelines and policy UIs (docs/output.md). */
    @Mixin
    OutputOptions output = OutputOptions.of(AuditRenderer.Checked.class);

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

    @Option(names = "--skip", paramLabel = "CODE", split = ",",
            description = "Do not run these detectors (e.g. --skip NG111,NG140) when their finding is expected "
                    + "here; the report notes what was skipped. Codes: see docs/findings.md.")
    List<String> skip = new ArrayList<>();

    @Option(names = "--probe-kubelets",
            description = "Live only: also knock on the kubelet port (InternalIP:10250, TCP + TLS handshake, nothing "
                    + "sent) of every Node that is Ready=Unknown, and report NG303 when a CA other than this "
                    + "cluster's answers (see `nodegate probe kubelet`). It also knocks on up to 3 Ready Nodes as a "
                    + "positive control (that this cluster's CA, as read, verifies a live kubelet); the report names "
                    + "them. Choose them with --probe-control, or turn the control off.")
    boolean probeKubelets;

    @Option(names = "--probe-control", paramLabel = "NODE", split = ",",
            description = "With --probe-kubelets: the Ready Nodes knocked on as the positive control, instead of the "
                    + "first 3 Ready ones; 'none' knocks on no Ready Node (the report then says that the CA was not "
                    + "shown to verify a live kubelet, so an NG303 may come from a CA misread).")
    List<String> probeControl;

    @CommandLine.Mixin
    KubeletProbeOptions kubeletProbe = new KubeletProbeOptions();

    @CommandLine.Mixin
    BmcOptions bmc = new BmcOptions();

    @Override
    public Integer call() {
        detectors(); // a bad --skip fails before the cluster is read
        bmc.targets(); // so does a bad --bmc, inventory or credentials file
        if (probeKubelets) {
            if (source.offline()) {
                throw new InputException("--probe-kubelets knocks on live Nodes' kubelet ports; it cannot be combined "
                        + "with -f (drop -f, or run `nodegate probe kubelet NODE...` against the live cluster)");
            }
            kubeletProbe.check();
        } else if (probeControl != null) {
            throw new InputException("--probe-control goes with --probe-kubelets: it chooses the Ready Nodes that "
                    + "probe knocks on as its control");
        }
        if (probeControl != null && probeControl.contains("none") && probeControl.size() > 1) {
            throw new InputException("--probe-control none turns the control off; it cannot be combined with Node names");
        }
        ClusterState state = source.load(false);
        List<Finding> extra = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        if (!source.offline()) {
            // NG171 asks whether an open hand-over explains a cordon; a saved dump holds no NodeHandovers
            try (LiveSource live = source.liveSource()) {
                state = state.withHandovers(new HandoverApi(new ApiReader(live.api()))
                        .openHandovers());
            }
            if (!state.handovers().read()) {
                notes.add(state.handovers().why() + ": NG171 cannot rule an open hand-over out");
            }
        }
        if (probeKubelets) {
            probeUnknownKubelets(state, extra, notes);
        }
        List<String> bmcProblems = List.of();
        if (bmc.given()) {
            state = state.withBmc(bmc.read(java.time.Clock.systemUTC(), spec.commandLine().getErr()));
            bmcProblems = BmcNotes.add(state, notes);
        }
        AuditRenderer.Checked checked = report(state, extra, notes);
        // The model of every Node read is not needed to print the report made from it: at 20,000 Nodes it is most of
        // the heap, and printing comes last, so the collector may have it while the output is written.
        state = null;
        int code = print(spec.commandLine().getOut(), checked);
        if (!bmcProblems.isEmpty()) {
            // printed first, then failed: a BMC that could not be read is missing evidence, never "nothing found"
            throw new CollectionException(String.join("; ", bmcProblems));
        }
        return code;
    }

    /** NG303 for the Unknown Nodes whose kubelet port answers with another CA's certificate. */
    private void probeUnknownKubelets(ClusterState state, List<Finding> findings, List<String> notes) {
        List<NodeInfo> unknown = state.nodes().stream().filter(n -> "Unknown".equals(n.readyStatus())).toList();
        try (LiveSource live = source.liveSource()) {
            ApiReader api = new ApiReader(live.api());
            KubeletEvidence kubelets = new KubeletEvidence(api, kubeletProbe.port,
                    kubeletProbe.timeout);
            KubeletEvidence.ClusterCas cas = kubelets.clusterCas();
            List<KubeletAnswer> answers = kubelets.probe(unknown, cas);
            // the positive control, before any finding: a CA that verifies no live kubelet makes every verdict false
            String control = unknown.isEmpty() ? null : control(kubelets, state, cas);
            findings.addAll(Detectors.one(KubeletAnswersForAnotherClusterDetector.class).detect(state.nodes(), answers));
            Map<KubeletAnswer.Outcome, Long> counts = new TreeMap<>(answers.stream()
                    .collect(Collectors.groupingBy(KubeletAnswer::outcome, Collectors.counting())));
            notes.add("kubelet ports probed for " + unknown.size() + " Unknown Node(s)"
                    + (counts.isEmpty() ? "" : ": " + counts.entrySet().stream()
                    .map(e -> e.getValue() + " " + e.getKey().text()).collect(Collectors.joining(", ")))
                    + " (this cluster's CA from " + String.join(", ", cas.sources()) + ")"
                    + (control == null ? "" : "; control: " + control));
        }
    }

    /** The positive control on the Nodes the user chose (every one must be a Ready Node), the default, or none. */
    private String control(KubeletEvidence kubelets, ClusterState state, KubeletEvidence.ClusterCas cas) {
        if (probeControl == null) {
            return kubelets.control(KubeletEvidence.defaultControls(state.nodes()), cas, false);
        }
        if (probeControl.equals(List.of("none"))) {
            return "no control (--probe-control none): no Ready Node was knocked on, so that this cluster's CA as "
                    + "read verifies a live kubelet was not shown";
        }
        List<NodeInfo> chosen = new ArrayList<>();
        for (String name : probeControl) {
            NodeInfo n = state.node(name).orElseThrow(() -> new InputException("--probe-control " + name
                    + ": no Node of that name in the cluster"));
            if (!n.isReady()) {
                throw new InputException("--probe-control " + name + ": the Node is Ready=" + n.readyStatus()
                        + ", and a control must be a live kubelet (Ready=True)");
            }
            chosen.add(n);
        }
        return kubelets.control(chosen, cas, true);
    }

    /** Runs the audit on a snapshot, prints it in the chosen format and returns the exit code. */
    int audit(ClusterState state, PrintWriter out) {
        return audit(state, out, List.of(), List.of());
    }

    private int audit(ClusterState state, PrintWriter out, List<Finding> extra, List<String> extraNotes) {
        return print(out, report(state, extra, extraNotes));
    }

    /** The audit of a snapshot, with the findings and notes found beside it, as the command prints it. */
    private AuditRenderer.Checked report(ClusterState state, List<Finding> extra, List<String> extraNotes) {
        List<Detector> detectors = detectors();
        AuditReport report = Audit.run(state, settings(), detectors);
        if (!extra.isEmpty()) {
            List<Finding> all = new ArrayList<>(report.findings());
            all.addAll(extra);
            all.sort(Finding.ORDER);
            report = new AuditReport(report.now(), report.source(), report.nodes(), all, report.notes());
        }
        for (String note : extraNotes) {
            report = report.withNote(note);
        }
        if (!skip.isEmpty()) {
            report = report.withNote("not checked (--skip): " + String.join(", ", skipped()));
        }
        return new AuditRenderer.Checked(report, checks(detectors, probeKubelets), skipped());
    }

    private int print(PrintWriter out, AuditRenderer.Checked checked) {
        output.print(out, checked);
        return exitCode(checked.report());
    }

    /** What ran, code to name: the detectors, and NG303 when the kubelet ports were probed. */
    private static Map<String, String> checks(List<Detector> detectors, boolean probed) {
        Map<String, String> checks = new java.util.LinkedHashMap<>();
        detectors.forEach(d -> checks.put(d.code().code(), d.name()));
        if (probed) {
            var ng303 = Detectors.one(KubeletAnswersForAnotherClusterDetector.class);
            checks.put(ng303.code().code(), ng303.name());
        }
        return checks;
    }

    /** Every registered detector minus --skip ({@link DetectorSelection}), and minus NG304/NG305 without --bmc. */
    List<Detector> detectors() {
        List<Detector> selected = DetectorSelection.detectors(spec.commandLine(), skip, Scope.AUDIT);
        return bmc.given() ? selected : Detectors.withoutBmc(selected);
    }

    private Set<String> skipped() {
        return DetectorSelection.skipped(skip);
    }

    AuditSettings settings() {
        return new AuditSettings(batchWindow, newcomerWindow, abandonedAfter, gracePeriod);
    }

    static int exitCode(AuditReport report) {
        return ReportExit.of(report.findings());
    }
}
