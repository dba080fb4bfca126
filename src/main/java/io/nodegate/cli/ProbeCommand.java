package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.InputException;
import io.nodegate.source.kube.LiveSource;
import picocli.CommandLine;
import io.nodegate.model.probe.EndpointResult;
import io.nodegate.model.probe.ProbeSettings;
import io.nodegate.probe.ApiserverProbe;
import io.nodegate.probe.ProbeReport;
import io.nodegate.render.ProbeRenderer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/** `nodegate probe`: measurements that write to the cluster (a Lease of nodegate's own, deleted afterwards). */
@Command(name = "probe",
        mixinStandardHelpOptions = true,
        description = {"Measure the cluster by talking to each part of it directly: `probe apiservers` writes a "
                + "probe Lease of nodegate's own (deleted afterwards); `probe kubelet` sends nothing beyond a TLS "
                + "handshake."},
        subcommands = {ProbeCommand.Apiservers.class, ProbeKubeletCommand.class},
        footer = {"", "Examples:", "  nodegate probe apiservers", "  nodegate probe apiservers --count 50 -o json",
                "  nodegate probe kubelet gpu-a07 gpu-a08"})
public final class ProbeCommand extends CommandGroup {

    /**
     * `nodegate probe apiservers`: times Lease renewals against every kube-apiserver of the default/kubernetes
     * EndpointSlice, each reached directly (seed 003: one apiserver at p99 2.21 s made operators lose leader
     * election), and lists pods that restarted with "leader election lost".
     */
    @Command(name = "apiservers",
            sortOptions = false,
            mixinStandardHelpOptions = true,
            description = {
                    "Time Lease renewals against each kube-apiserver directly (NG213) and list pods that restarted "
                            + "with \"leader election lost\" (NG214).",
                    "Every address of the default/kubernetes EndpointSlice(s) is reached directly "
                            + "(scheme://ADDRESS:PORT, the scheme of the kubeconfig's server) with the kubeconfig's "
                            + "credentials and CA. TLS is verified: the apiserver's certificate must carry that "
                            + "address as a SAN, otherwise that apiserver is reported as an error (there is no "
                            + "unverified fallback).",
                    "On each, a Lease of nodegate's own (label app.kubernetes.io/managed-by=nodegate) is created, "
                            + "renewed --count times back to back (PUT with a new spec.renewTime, as a leader does "
                            + "every RetryPeriod) and deleted, also after an error; a Lease that could not be "
                            + "deleted is reported with the command to remove it.",
                    "An apiserver is slow (NG213, warning) when its renewal p99 exceeds --threshold-fraction of "
                            + "--renew-deadline: 2s with the defaults, a fifth of controller-runtime's "
                            + "RenewDeadline (10s; LeaseDuration 15s, RetryPeriod 2s).",
                    "Needs create, update and delete on leases in --namespace, list on endpointslices in "
                            + "default and list on pods in all namespaces.%n"},
            footer = {"",
                    "Examples:",
                    "  nodegate probe apiservers",
                    "  nodegate probe apiservers --count 100 --renew-deadline 5s -o json",
                    "  nodegate probe apiservers --context prod --namespace nodegate-system",
                    "",
                    "Exit codes: 0 every apiserver measured, no finding at warning or above,",
                    "            1 a finding at warning or above (NG213),",
                    "            2 usage or input error,",
                    "            3 an apiserver could not be measured or a probe Lease could not be",
                    "              deleted (the other apiservers' results are still printed)."})
    public static final class Apiservers implements Callable<Integer> {

        private static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$");
        private static final Pattern DNS_SUBDOMAIN =
                Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
        static final int MAX_COUNT = 1000;

        @Option(names = "--count", paramLabel = "N", defaultValue = "20",
                description = "Lease renewals (PUTs) per apiserver, 1 to " + MAX_COUNT
                        + " (default: ${DEFAULT-VALUE}).")
        int count = ProbeSettings.DEFAULT_RENEWALS;

        @Option(names = "--renew-deadline", paramLabel = "DURATION", defaultValue = "10s",
                converter = DurationConverter.class,
                description = "The leader-election renew deadline latencies are judged against "
                        + "(default: ${DEFAULT-VALUE}, controller-runtime's RenewDeadline).")
        Duration renewDeadline = ProbeSettings.DEFAULT_RENEW_DEADLINE;

        @Option(names = "--threshold-fraction", paramLabel = "F", defaultValue = "0.2",
                description = "An apiserver is slow when its renewal p99 exceeds F × --renew-deadline, 0 < F <= 1 "
                        + "(default: ${DEFAULT-VALUE}).")
        double thresholdFraction = ProbeSettings.DEFAULT_THRESHOLD_FRACTION;

        @Option(names = {"-n", "--namespace"}, paramLabel = "NS", defaultValue = "kube-system",
                description = "Namespace of the probe Lease (default: ${DEFAULT-VALUE}).")
        String namespace = "kube-system";

        @Option(names = "--lease-name", paramLabel = "NAME",
                description = "Name of the probe Lease (default: nodegate-probe-<random>). A fixed name lets RBAC "
                        + "grant update/delete on that one Lease (resourceNames); the Lease must not exist yet.")
        String leaseName;

        // --request-timeout also bounds each renewal: a renewal slower than it is an error for that apiserver
        @Mixin
        LiveOptions cluster = new LiveOptions();

        @Mixin
        OutputOptions output = OutputOptions.of(ProbeRenderer.Output.class);

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        /** When the probe's snapshot is taken; tests may set another. */
        Clock clock = Clock.systemUTC();

        @Override
        public Integer call() {
            ProbeSettings settings = settings();
            ProbeReport report;
            // probing writes, so there is no -f here: a live cluster, resolved as kubectl does
            try (LiveSource live = cluster.liveSource()) {
                report = new ApiserverProbe(live, clock).run(settings);
            }
            print(report);
            List<EndpointResult> unmeasured = report.unmeasured();
            PrintWriter err = spec.commandLine().getErr();
            for (EndpointResult e : unmeasured) {
                err.println("nodegate: apiserver " + e.target().hostPort() + " could not be measured: " + e.error());
            }
            report.endpoints().stream().filter(EndpointResult::cleanupFailed).forEach(e ->
                    err.println("nodegate: probe Lease on " + e.target().hostPort() + " NOT DELETED: "
                            + e.cleanupError()));
            err.flush();
            if (!unmeasured.isEmpty() || report.cleanupFailed()) {
                return ExitCode.COLLECTION;
            }
            return report.hasWarningOrWorse() ? ExitCode.FINDINGS : ExitCode.OK;
        }

        private ProbeSettings settings() {
            if (count < 1 || count > MAX_COUNT) {
                throw new InputException("--count must be between 1 and " + MAX_COUNT + ", got " + count);
            }
            if (renewDeadline.isZero()) {
                throw new InputException("--renew-deadline must be longer than 0s");
            }
            if (!(thresholdFraction > 0 && thresholdFraction <= 1)) {
                throw new InputException("--threshold-fraction must be greater than 0 and at most 1, got "
                        + thresholdFraction);
            }
            if (!DNS_LABEL.matcher(namespace).matches()) {
                throw new InputException("--namespace '" + namespace + "' is not a valid namespace name");
            }
            String name = leaseName != null ? leaseName
                    : "nodegate-probe-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(4));
            if (name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches()) {
                throw new InputException("--lease-name '" + name + "' is not a valid object name (lower-case "
                        + "letters, digits, '-' and '.', at most 253 characters)");
            }
            return new ProbeSettings(count, renewDeadline, thresholdFraction, namespace, name);
        }

        private void print(ProbeReport report) {
            output.print(spec.commandLine().getOut(), new ProbeRenderer.Output(report));
        }
    }
}
