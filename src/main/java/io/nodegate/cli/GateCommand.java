package io.nodegate.cli;

import io.nodegate.time.TimeFlags;
import io.nodegate.ExitCode;
import io.nodegate.InputException;
import io.nodegate.NodegateException;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.render.LifecycleRenderer;
import io.nodegate.lifecycle.gate.GateRequest;
import io.nodegate.lifecycle.gate.GateRunInputs;
import io.nodegate.lifecycle.gate.GateService;
import io.nodegate.lifecycle.gate.HostInputs;
import io.nodegate.source.host.HostReportJson;
import io.nodegate.model.verdict.Verdict;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

@Command(name = "gate", mixinStandardHelpOptions = true,
        header = "Decide, on evidence, whether a node may be deleted: PASS, HOLD, FAIL or INVALID.",
        description = "Decide, on evidence, whether a node may be deleted: PASS (exit 0), HOLD (4: a human must "
                + "decide, reasons listed), FAIL (5: must not be deleted), INVALID (3: evidence cannot be "
                + "trusted). Checks: (a) a target, and a worker or (with --etcd-endpoint) a server; (etcd) a server "
                + "or etcd node is no member on any given endpoint (remove the member first), else 'not checked'; "
                + "(redundancy) what removing a server leaves per role (last of a role, or no etcd leader: FAIL); "
                + "(machine) with --machine-context, the Node's Rancher Machine (INVALID when it is bound to another "
                + "Node object or missing for a Rancher-provisioned Node), else 'not checked'; (b) the host owner's removal "
                + "time; (c) not Ready, and the Lease stopped within --match-window of that time; (d) the cluster "
                + "equals the baseline minus removed targets (etcd members, other nodes' Ready/cordon, DaemonSet "
                + "desired, GPU totals, MetalLB announcers); (e) not re-registered (bootID, node-args, role "
                + "labels); (fleet) with --fleet-context/--fleet-kubeconfig, the host (by machineID/systemUUID) is "
                + "not a Node of another cluster: Ready there is FAIL, seen there HOLD, no fleet given 'not checked'; "
                + "the control node, its pods and node-password Secret found. Host evidence: --host-report "
                + "(a report from `nodegate host inspect` on the host) and --probe-kubelet (who answers on the Node's "
                + "kubelet port); without them [host] is \"not checked\": the cleanup rests on the reply's text. (bmc) "
                + "with --bmc/--bmc-inventory, the host's own BMC over Redfish: Off passes (its logged power-off is "
                + "compared with the Lease stop), On fails when the Lease is silent and holds otherwise, unreadable is "
                + "INVALID. A check that was not run is never a PASS, and the verdict line names every such check. "
                + "Every run is recorded in the evidence directory.",
        footer = {"", "Examples:",
                "  nodegate gate gpu-a11 --baseline base.json --removed-at 2026-10-19T15:09+09:00 --reply-from infra-kim",
                "  nodegate gate gpu-a11 --baseline base.json --removed-at '2026-10-19 15:09' --tz Asia/Seoul --annotate",
                "  nodegate gate gpu-a11 --baseline base.json --host-report gpu-a11-host-report.json --probe-kubelet",
                "  nodegate gate gpu-a07 --baseline base.json --removed-at 2026-10-22T14:23+09:00 --fleet-context cluster-b",
                "  nodegate gate gpu-b04 --baseline base.json --removed-at '2026-10-19 15:09' --tz Asia/Seoul \\",
                "      --machine-context rancher --machine-cluster prod-gpu --annotate",
                "  nodegate gate ctl-3 --baseline base.json --removed-at '2026-10-19 15:09' --tz Asia/Seoul \\",
                "      --etcd-endpoint https://10.0.0.1:2379 --etcd-endpoint https://10.0.0.2:2379 --etcd-cacert ca.crt ...",
                "  nodegate gate gpu-a10 --baseline base.json --removed-at 2026-10-22T14:24+09:00 \\",
                "      --bmc https://10.0.30.10 --bmc-credentials bmc-rack-a.yaml --bmc-ca bmc-ca.pem"})
public final class GateCommand implements Callable<Integer> {

    private final Environment env;

    public GateCommand() {
        this(Environment.system());
    }

    GateCommand(Environment env) {
        this.env = env;
    }
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    EtcdOptions etcd = new EtcdOptions();

    @Mixin
    LifecyclePrelude prelude = new LifecyclePrelude();
    @Mixin
    OutputOptions output = OutputOptions.of(LifecycleRenderer.GateOutput.class);

    @Parameters(index = "0", paramLabel = "NODE", description = "The node to gate.")
    String node;


    @Option(names = "--removed-at", paramLabel = "TIME",
            description = "When RKE2 was removed or the agent stopped, per the host owner's reply (not the reboot time). "
                    + "ISO-8601 with offset, or local time with --tz. Without it the verdict is at best HOLD. A time "
                    + "more than 5 minutes ahead of this machine's clock is refused (a removal that has not happened "
                    + "yet proves nothing; the 5 minutes allow for clock skew).")
    String removedAt;

    /**
     * How far --removed-at may lie ahead of this machine's clock: a reply is written after the removal, so a later
     * time is a typo (a wrong date, a wrong zone), never evidence; the margin is for a host owner's clock that runs
     * a little ahead of ours.
     */
    static final Duration FUTURE_SKEW = Duration.ofMinutes(5);

    @Option(names = "--tz", paramLabel = "ZONE", description = "Zone for a --removed-at without offset (e.g. Asia/Seoul).")
    String tz;

    @Option(names = "--reply-from", paramLabel = "WHO", description = "Who sent the cleanup reply (recorded).")
    String replyFrom;

    @Option(names = "--reply", paramLabel = "TEXT", description = "The reply's text (recorded).")
    String reply;

    @Option(names = "--match-window", paramLabel = "DURATION", defaultValue = "5m",
            converter = DurationConverter.Positive.class,
            description = "How far the Lease's last renewTime may be from --removed-at (default: ${DEFAULT-VALUE}).")
    Duration matchWindow;

    @Option(names = "--reply-covers", paramLabel = "NODE", split = ",",
            description = "When the target's Lease stopped together with other nodes' (a batch, NG103), the nodes "
                    + "the reply covers, comma-separated. The gate passes a batch stop only when every member is a "
                    + "baseline target and listed here (see docs/lifecycle.md).")
    List<String> replyCovers = new ArrayList<>();

    @Option(names = "--batch-window", paramLabel = "DURATION", defaultValue = "30s",
            converter = DurationConverter.Positive.class,
            description = "Leases that stopped within this of each other form a batch, as in audit's NG103 "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration batchWindow;

    @Mixin
    FleetFlags fleet = new FleetFlags();

    @Mixin
    MachineFlags machines = new MachineFlags();

    @Option(names = "--annotate", description = "Write nodegate.io/gate-verdict, gate-at and gate-evidence (sha256 of "
            + "the record) on the Node; with --machine-context on its Machine too, bound to the Machine's uid and the "
            + "Node it points at. The newest verdict is the one the admission policies honour: HOLD and FAIL are "
            + "written like PASS, INVALID replaces an earlier verdict (nothing else is written on a run that met an "
            + "error). A verdict that could not replace an earlier one (the object could not be read, or the write "
            + "failed) is an error (exit 3) saying what the object carries now.")
    boolean annotate;

    @Option(names = "--host-report", paramLabel = "FILE",
            description = "A host report from `nodegate host inspect` on the target host. It can only make the verdict "
                    + "stricter, never looser (anyone who can write a file can write one). Its sha256 must hold, its "
                    + "machine-id/product UUID must be the Node's, and it must be written after the Lease stopped and "
                    + "not in the future (else INVALID); clean raises no objection, stopped and incomplete are HOLD, "
                    + "points-elsewhere and running are FAIL. Kept in the evidence directory.")
    Path hostReport;

    @Option(names = "--probe-kubelet",
            description = "Knock on the Node's InternalIP kubelet port (TCP + TLS handshake, nothing sent), judged "
                    + "by signature: this cluster's CA = FAIL (alive), another cluster's CA = FAIL (departed), no "
                    + "answer or refused = consistent with cleanup, anything else that answers = HOLD.")
    boolean probeKubelet;

    @CommandLine.Mixin
    KubeletProbeOptions kubeletProbe = new KubeletProbeOptions();

    @Option(names = "--cluster-address", paramLabel = "HOST", split = ",",
            description = "Another name this cluster is reached by (registration VIP or DNS name), for judging the "
                    + "host report's server. The API server, server Nodes' addresses and names count already.")
    List<String> clusterAddresses = new ArrayList<>();

    @Mixin
    BmcOptions bmc = new BmcOptions();

    @Override
    public Integer call() {
        Baseline baseline = prelude.baseline();
        Instant at = TimeFlags.parseTime(removedAt, tz, "--removed-at");
        Instant now = env.clock().instant();
        if (at != null && at.isAfter(now.plus(FUTURE_SKEW))) {
            throw new InputException("--removed-at '" + removedAt + "' is " + at + ", "
                    + Duration.between(now, at).toMinutes() + " min after this machine's clock (" + now
                    + "): a removal cannot be reported before it happens. Check the date and the zone"
                    + (tz == null ? " (an offset such as +09:00, or --tz ZONE)" : " (--tz " + tz + ")")
                    + "; up to " + FUTURE_SKEW.toMinutes() + " min ahead is accepted as clock skew");
        }
        GateRequest request = new GateRequest(node, at, replyFrom, reply, matchWindow, new TreeSet<>(replyCovers),
                batchWindow);
        HostInputs.Probe probe = kubeletProbe.probe(probeKubelet);
        HostInputs host = new HostInputs(hostReport == null ? null : HostReportJson.load(hostReport), probe,
                clusterAddresses);
        GateService.Run run;
        try (RemovalReads reads = RemovalReads.read(env, prelude, fleet, bmc, machines, spec.commandLine().getErr())) {
            run = new GateService(reads.session().api(), reads.session().store(), env.clock()).run(GateRunInputs
                    .builder(baseline, request)
                    .baselineFile(prelude.baselineFile())
                    .etcd(LifecycleCommands.etcdEvidence(etcd))
                    .annotate(annotate)
                    .host(host)
                    .fleet(reads.fleetViews(), reads.fleetError())
                    .machines(reads.machines())
                    .bmc(reads.bmc())
                    .build());
        }
        output.print(spec.commandLine().getOut(), new LifecycleRenderer.GateOutput(node, run));
        if (run.annotationFailure() != null) {
            // the cluster may still honour an earlier PASS this run did not replace: louder than the verdict's code
            throw new NodegateException(ExitCode.COLLECTION, "gate " + node + ": " + run.result().verdict()
                    + ", but it could not replace every earlier verdict:\n" + run.annotationFailure());
        }
        if (run.result().verdict() != Verdict.PASS) {
            throw new NodegateException(run.result().verdict().exitCode(), "gate " + node + ": " + run.result().verdict());
        }
        return ExitCode.OK;
    }
}
