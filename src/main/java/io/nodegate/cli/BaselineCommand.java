package io.nodegate.cli;

import io.nodegate.lifecycle.baseline.BaselineFile;
import io.nodegate.ExitCode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.baseline.BaselineCollector;
import io.nodegate.lifecycle.baseline.BaselineSeal;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.render.LifecycleRenderer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.nio.file.Path;
import java.util.List;

@Command(name = "baseline", description = "Record the cluster before node removal starts (see 'baseline save').",
        subcommands = BaselineCommand.Save.class)
public final class BaselineCommand extends CommandGroup {

    @Command(name = "save", mixinStandardHelpOptions = true,
            header = "Record the state that gate and verify-gone compare against.",
            description = "Record BASELINE_TS and what every later step compares with: each target's uid, resourceVersion, "
                    + "bootID, systemUUID, machineID, kernel, InternalIPs, role labels, taints, cordon, node-args, GPU "
                    + "capacity and Lease renewTime; every other node's Ready and cordon; DaemonSet desired counts "
                    + "(and each target's share); GPU totals; MetalLB L2 announcers (ServiceL2Status); node-password "
                    + "Secret names and creation times (never their data); etcd members when given. The file is JSON, "
                    + "readable and diffable, kept in the evidence directory.",
            footer = {"", "Example:",
                    "  nodegate baseline save --targets gpu-a10,gpu-a11 --control keep-1",
                    "  nodegate baseline save --targets gpu-a11 --control keep-1 --out /srv/evidence/baseline.json"})
    public static final class Save implements Callable<Integer> {

    private final Environment env;

    public Save() {
        this(Environment.system());
    }

    Save(Environment env) {
        this.env = env;
    }
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        LiveOptions source = new LiveOptions();
        @Mixin
        OutputOptions output = OutputOptions.of(LifecycleRenderer.BaselineOutput.class);
        @Mixin
        EtcdOptions etcd = new EtcdOptions();

        @Option(names = "--targets", required = true, split = ",", paramLabel = "NODE",
                description = "Nodes to be removed, comma-separated.")
        List<String> targets;

        @Option(names = "--control", required = true, paramLabel = "NODE",
                description = "A node that stays (positive control): later runs must find it, its pods and its node-password Secret.")
        String control;

        @Option(names = "--out", paramLabel = "FILE",
                description = "Where to write the baseline (default: <evidence-dir>/baseline-<time>.json).")
        Path out;

        @Option(names = "--evidence-dir", paramLabel = "DIR",
                description = "Evidence directory (default: ${XDG_STATE_HOME:-~/.local/state}/nodegate/<cluster>/).")
        Path evidenceDir;

        @Override
        public Integer call() {
            ApiReader api = new ApiReader(LifecycleCommands.connect(env, source));
            EvidenceStore store = BaselineFile.evidenceStore(evidenceDir, null, api.server());
            store.ensureWritable();
            Baseline b = new BaselineCollector(api, env.clock())
                    .collect(targets, control, LifecycleCommands.etcdEvidence(etcd), store.dir().toString());
            Path file;
            if (out != null) {
                Path parent = out.toAbsolutePath().getParent();
                file = new EvidenceStore(parent).writeJson(out.getFileName().toString(), b);
            } else {
                file = store.writeJson("baseline-" + EvidenceStore.stamp(b.baselineTs()) + ".json", b);
            }
            BaselineSeal.record(store, file, b);
            output.print(spec.commandLine().getOut(), new LifecycleRenderer.BaselineOutput(b, file));
            return ExitCode.OK;
        }
    }
}
