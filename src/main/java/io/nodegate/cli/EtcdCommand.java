package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.InputException;
import io.nodegate.NodegateException;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.render.EtcdTables;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** `nodegate etcd`: every etcd endpoint on its own, then split brain, quorum and member/Node findings. */
@Command(name = "etcd",
        description = {
                "Read every etcd endpoint on its own (member list + status) and look for split brain (NG201), "
                        + "quorum tolerance (NG202), unreachable members (NG203), members vs Nodes (NG204, NG205) "
                        + "and member lists that disagree (NG206).",
                "",
                "Live from --etcd-endpoint (repeat it for every server, or add --etcd-cluster), or offline from "
                        + "`etcdctl member list -w json` and `etcdctl endpoint status -w json` files given with -f. "
                        + "Nodes for NG204/NG205 come from --kubeconfig/--context, $KUBECONFIG, or kubectl dumps "
                        + "given with -f; without any of them those two checks are skipped (~/.kube/config alone is "
                        + "not read here: on an etcd server it may well belong to another cluster).",
                ""},
        sortOptions = false,
        footer = {"",
                "Examples:",
                "  # k3s: each server's etcd, with the k3s etcd client cert (EC key is fine)",
                "  D=/var/lib/rancher/k3s/server/tls/etcd",
                "  nodegate etcd --etcd-endpoint https://10.0.0.11:2379 \\",
                "      --etcd-endpoint https://10.0.0.12:2379 \\",
                "      --etcd-endpoint https://10.0.0.13:2379 \\",
                "      --etcd-cacert $D/server-ca.crt --etcd-cert $D/server-client.crt \\",
                "      --etcd-key $D/server-client.key --context prod",
                "  # RKE2: D=/var/lib/rancher/rke2/server/tls/etcd",
                "  # one server's local etcd, then every member it lists (etcdctl --cluster)",
                "  nodegate etcd --etcd-endpoint https://127.0.0.1:2379 --etcd-cluster \\",
                "      --etcd-cacert $D/server-ca.crt --etcd-cert ... --etcd-key ...",
                "  # offline: etcdctl -w json output saved on each server, plus nodes",
                "  nodegate etcd -f members-a.json -f status-a.json \\",
                "      -f members-c.json -f status-c.json -f nodes.json",
                "",
                "Exit codes: 0 nothing at warning or above, 1 a finding at warning or",
                "            above, 2 usage or input error, 3 no etcd endpoint answered."})
public final class EtcdCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @picocli.CommandLine.Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Mixin
    EtcdOptions etcd = new EtcdOptions();

    @Mixin
    SourceOptions source = new SourceOptions();

    @Mixin
    OutputOptions output = OutputOptions.of(EtcdTables.Output.class);

    @Override
    public Integer call() {
        if (!etcd.live() && !source.offline()) {
            throw new ParameterException(spec.commandLine(),
                    "Give --etcd-endpoint URL (once per etcd server) or etcdctl JSON output with -f.");
        }
        // an exported KUBECONFIG names a cluster as plainly as --kubeconfig does (kubectl's rules read it first)
        boolean kubeRequested = source.live.named() || source.offline() || LiveOptions.kubeconfigExported();
        if (source.offline() && source.now == null) {
            // NG201-NG206 compare answers, never ages: any clock will do, so --now is not demanded offline
            source.now = Instant.now().toString();
        }
        List<String> notes = new ArrayList<>();
        ClusterState state;
        if (etcd.live()) {
            List<EtcdEndpointReport> reports = etcd.read();
            ClusterState base = kubeRequested ? source.load(false, false) : emptyState();
            if (!base.etcd().isEmpty()) {
                notes.add("etcd data in the -f files was replaced by the live answers of --etcd-endpoint");
            }
            state = base.withEtcd(reports);
        } else {
            state = source.load(false, false);
            if (state.etcd().isEmpty()) {
                throw new InputException("the files given with -f hold no etcd data: save `etcdctl member list -w json` "
                        + "and `etcdctl endpoint status -w json` from each server, or use --etcd-endpoint");
            }
        }
        if (state.nodes().isEmpty()) {
            notes.add(kubeRequested
                    ? "NG204/NG205 skipped: the Kubernetes source holds no Nodes"
                    : "NG204/NG205 skipped: no Nodes read (add --kubeconfig/--context, export KUBECONFIG, or give "
                    + "`kubectl get nodes -o json` with -f)");
        }
        // only the source's etcd notes matter here; its notes on CSINodes, Jobs etc. belong to other commands
        notes.addAll(0, state.notes().stream().filter(n -> n.startsWith("etcd")).toList());

        List<Finding> findings = Detectors.run(Detectors.in(Scope.ETCD, Detector.class), state, AuditSettings.DEFAULTS);
        render(state, findings, notes);

        if (state.etcd().stream().noneMatch(EtcdEndpointReport::ok)) {
            throw new NodegateException(ExitCode.COLLECTION, "no etcd endpoint answered ("
                    + state.etcd().size() + " queried); nothing about the cluster can be concluded");
        }
        return ReportExit.of(findings);
    }

    private void render(ClusterState state, List<Finding> findings, List<String> notes) {
        output.print(spec.commandLine().getOut(), new EtcdTables.Output(state.source(), state.etcd(), findings, notes));
    }

    private static ClusterState emptyState() {
        return ClusterState.builder(Instant.now(), "etcd endpoints").build();
    }
}
