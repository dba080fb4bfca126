package io.nodegate.cli;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.controlplane.RedundancyReport;
import io.nodegate.detect.controlplane.RoleLayers;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.model.ClusterState;
import io.nodegate.render.RedundancyRenderer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * `nodegate redundancy`: counts layers per control-plane role instead of nodes (seed 003: 3 servers, but etcd
 * 3, kube-apiserver 2, agent failover 2), and shows what each server node runs, its taints and its pods.
 */
@Command(name = "redundancy",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = {
                "Count redundancy per control-plane role, not per node (NG210, NG211, NG212).",
                "etcd voters come from the etcd member list when etcd data was read (e.g. `etcdctl member list -w json` "
                        + "output given with -f), otherwise they are "
                        + "inferred from node-role.kubernetes.io/etcd labels (and the report says so). "
                        + "kube-apiservers are the addresses in the default/kubernetes endpoints, mapped to Nodes by "
                        + "InternalIP; on k3s/RKE2 the agents' failover list is derived from those same endpoints.",
                "kube-scheduler and kube-controller-manager candidates are the control-plane nodes whose "
                        + "k3s.io/node-args or rke2.io/node-args do not disable them; the leader is the holder of "
                        + "their kube-system Lease.",
                "Each server node is listed with its taints and running pods: NoSchedule vs PreferNoSchedule "
                        + "shows up there (e.g. 6 vs 34 pods)."},
        footer = {"",
                "Examples:",
                "  nodegate redundancy",
                "  nodegate redundancy --context prod -o json",
                "  nodegate redundancy -f collected/ --now 2026-08-15T05:00:00Z",
                "",
                "Exit codes: 0 no finding at warning or above, 1 a finding at warning or above,",
                "            2 usage or input error, 3 collection failed."})
public final class RedundancyCommand implements Callable<Integer> {

    @Mixin
    SourceOptions source = new SourceOptions();

    @Mixin
    OutputOptions output = OutputOptions.of(RedundancyRenderer.Output.class);

    @Mixin
    EtcdOptions etcd = new EtcdOptions();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Null means {@code source.load(true)}; tests put a fixture here. */
    Supplier<ClusterState> loader;

    @Override
    public Integer call() {
        ClusterState state = loader != null ? loader.get() : source.load(true);
        if (etcd.live()) {
            // the member list each endpoint answers beats role labels: a voter's label can lie, its answer cannot
            state = state.withEtcd(etcd.read());
        }
        RedundancyReport report = analyse(state);
        output.print(spec.commandLine().getOut(), new RedundancyRenderer.Output(report));
        return ReportExit.of(report.findings());
    }

    /** Role layers plus the redundancy detectors' findings; pure. */
    static RedundancyReport analyse(ClusterState state) {
        RoleLayers layers = RoleLayers.of(state);
        List<Finding> findings = Detectors.run(Detectors.in(Scope.REDUNDANCY, Detector.class), state, AuditSettings.DEFAULTS);
        return RedundancyReport.of(state.source(), state.serverVersion(), layers, findings, state.notes());
    }
}
