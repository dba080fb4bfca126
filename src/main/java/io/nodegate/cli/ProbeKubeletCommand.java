package io.nodegate.cli;

import io.nodegate.InputException;
import io.nodegate.detect.Finding;
import io.nodegate.detect.node.KubeletAnswersForAnotherClusterDetector;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.probe.KubeletEvidence;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.NodeInfo;
import io.nodegate.render.KubeletAnswersRenderer;
import io.nodegate.time.Durations;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Callable;

/** `nodegate probe kubelet NODE...`: who answers on each Node's kubelet port, without sending anything. */
@Command(name = "kubelet",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = {
                "Knock on each Node's kubelet port (InternalIP:10250): TCP connect and TLS handshake only, with a "
                        + "short timeout. No request, no credentials, no data are sent.",
                "Each answer is judged by signature, not by name: no answer or refused (consistent with a host "
                        + "that is off or cleaned up); this cluster's CA (the chain verifies to it: the kubelet is "
                        + "alive here); another cluster's CA (a kubelet runs there for another cluster, e.g. another "
                        + "RKE2 cluster's rke2-server-ca@...; with issuer and SANs); self-signed by this node's "
                        + "kubelet (its own <host>-ca@<time> pair); self-signed by another host's kubelet; accepted, "
                        + "then reset; port open, no TLS answer.",
                "This cluster's CA is read from the kubeconfig and the kube-system/kube-root-ca.crt ConfigMap.",
                "NG303 (critical) when another CA answers while the Node is Ready=Unknown: departure evidence "
                        + "without access to the host or the other cluster.",
                "Needs get on nodes and on configmaps in kube-system, and a network path to the Nodes.%n"},
        footer = {"",
                "Examples:",
                "  nodegate probe kubelet gpu-a07 gpu-a08 gpu-a09",
                "  nodegate probe kubelet gpu-a07 --probe-timeout 5s -o json",
                "",
                "Exit codes: 0 no finding, 1 NG303, 2 usage or input error (e.g. a Node that does not exist),",
                "            3 the Nodes or this cluster's CA could not be read."})
public final class ProbeKubeletCommand implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "NODE", description = "Nodes to probe.")
    List<String> nodes = new ArrayList<>();

    @Mixin
    KubeletProbeOptions kubeletProbe = new KubeletProbeOptions();

    /**
     * The old names of --kubelet-port and --probe-timeout, documented until 0.1.0 (audit, gate and verify-gone always
     * used the new ones): kept, hidden, for this release, with a note on stderr.
     */
    @Option(names = "--port", paramLabel = "PORT", hidden = true)
    Integer deprecatedPort;

    @Option(names = "--timeout", paramLabel = "DURATION", hidden = true, converter = DurationConverter.class)
    Duration deprecatedTimeout;

    @Mixin
    LiveOptions cluster = new LiveOptions();

    @Mixin
    OutputOptions output = OutputOptions.of(KubeletAnswersRenderer.Output.class);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final Environment env;

    ProbeKubeletCommand() {
        this(Environment.system());
    }

    ProbeKubeletCommand(Environment env) {
        this.env = env;
    }

    @Override
    public Integer call() {
        takeDeprecatedNames();
        kubeletProbe.check();
        int port = kubeletProbe.port;
        Duration timeout = kubeletProbe.timeout;
        ApiReader api = new ApiReader(LifecycleCommands.connect(env, cluster));
        List<NodeInfo> targets = new ArrayList<>();
        for (String name : new LinkedHashSet<>(nodes)) {
            targets.add(api.node(name).orElseThrow(() -> new InputException("Node " + name + " not found (NotFound) at "
                    + api.server())));
        }
        KubeletEvidence kubelets = new KubeletEvidence(api, port, timeout);
        KubeletEvidence.ClusterCas cas = kubelets.clusterCas();
        List<KubeletAnswer> answers = kubelets.probe(targets, cas);
        List<Finding> findings = Detectors.one(KubeletAnswersForAnotherClusterDetector.class).detect(targets, answers);
        output.print(spec.commandLine().getOut(), new KubeletAnswersRenderer.Output(targets, answers, findings,
                cas.sources()));
        return ReportExit.of(findings);
    }

    private void takeDeprecatedNames() {
        var parsed = spec.commandLine().getParseResult();
        if (deprecatedPort != null) {
            if (parsed.hasMatchedOption("--kubelet-port")) {
                throw new InputException("give the port once: --kubelet-port (--port is its deprecated old name)");
            }
            kubeletProbe.port = deprecatedPort;
            deprecationNote("--port", "--kubelet-port " + deprecatedPort);
        }
        if (deprecatedTimeout != null) {
            if (parsed.hasMatchedOption("--probe-timeout")) {
                throw new InputException("give the timeout once: --probe-timeout (--timeout is its deprecated old name)");
            }
            kubeletProbe.timeout = deprecatedTimeout;
            deprecationNote("--timeout", "--probe-timeout " + Durations.format(deprecatedTimeout));
        }
    }

    private void deprecationNote(String old, String replacement) {
        spec.commandLine().getErr().println("nodegate: probe kubelet " + old + " is deprecated and will be removed in "
                + "the next release: use " + replacement + " (the name audit, gate and verify-gone use)");
    }

    static void checkPortAndTimeout(int port, Duration timeout) {
        if (port < 1 || port > 65535) {
            throw new InputException("--kubelet-port must be between 1 and 65535, got " + port);
        }
        if (timeout.isZero() || timeout.isNegative() || timeout.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new InputException("--probe-timeout must be longer than 0s and at most 1m, got "
                    + Durations.format(timeout));
        }
    }
}
