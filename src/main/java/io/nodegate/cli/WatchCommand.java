package io.nodegate.cli;

import io.nodegate.CollectionException;
import io.nodegate.ExitCode;
import io.nodegate.InputException;
import io.nodegate.audit.AuditReport;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.render.AuditRenderer;
import io.nodegate.watch.BmcPoller;
import io.nodegate.watch.WatchEngine;
import io.nodegate.watch.WatchService;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import io.nodegate.model.NewcomerHold;
import io.nodegate.render.output.TerminalText;
import io.nodegate.source.bmc.BmcSource;
import io.nodegate.source.bmc.BmcTls;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.time.Durations;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.io.IOException;
import java.util.function.Consumer;

/** `nodegate watch`: audit all the time, inside the cluster; findings as metrics and Events. */
@Command(name = "watch",
        mixinStandardHelpOptions = true,
        description = {
                "Audit continuously: keep informers on what `audit` reads, re-evaluate after changes and every "
                        + "--interval, and say the findings as Prometheus metrics, Node Events and JSON.",
                "Serves /metrics, /healthz, /readyz and /findings on --listen. Replicas elect a leader on the Lease "
                        + "'nodegate-watch' in --namespace; only the leader posts Events (one per appearance of a "
                        + "finding, one NodegateResolved when it goes). While any informer's copy is not proven "
                        + "fresh (unsynced, failing, or its stream silent past its idle limit) nothing is reported "
                        + "or resolved and /readyz fails; a silence finding (NG101-NG103) is reported only after "
                        + "the Leases are re-read at quorum. Metrics: docs/metrics.md."},
        footer = {"",
                "Examples:",
                "  # in a Pod (service account), as `nodegate install` deploys it:",
                "  nodegate watch --namespace nodegate-system --listen=:9470",
                "  # from a workstation (HTTP on 127.0.0.1:9470 unless --listen says otherwise):",
                "  nodegate watch --context prod-a --interval 30s",
                "  curl -s localhost:9470/metrics | grep '^nodegate_finding'",
                "  # one synced pass, printed like `audit -o json` (CronJobs, scripts):",
                "  nodegate watch --once | jq '.findings[].code'",
                "",
                "Exit codes (--once): 0 no finding at warning or above, 1 at least one, 2 usage or input error,",
                "                     3 informers did not sync within --sync-timeout.",
                "Without --once it runs until stopped (SIGTERM releases the leader Lease)."})
public final class WatchCommand implements Callable<Integer> {

    /** The shortest --lease-duration: its renew deadline and retry period must outlast an API round trip. */
    static final Duration MIN_LEASE_DURATION = Duration.ofSeconds(1);

    private final Environment env;

    public WatchCommand() {
        this(Environment.system());
    }

    WatchCommand(Environment env) {
        this.env = env;
    }

    @Mixin
    LiveOptions live = new LiveOptions();

    @Spec
    CommandSpec spec;

    @Option(names = "--listen", paramLabel = "ADDR:PORT", defaultValue = "127.0.0.1:9470",
            description = "Where HTTP listens (default: ${DEFAULT-VALUE}: this machine only, since /findings "
                    + "carries machine IDs and IPs; `nodegate install` runs it with --listen=:9470 behind its "
                    + "Service). Port 0 picks a free one.")
    String listen;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NS",
            description = "Namespace of the leader Lease 'nodegate-watch' (default: $POD_NAMESPACE, else the "
                    + "service account's namespace, else nodegate-system).")
    String namespace;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "15s", converter = DurationConverter.class,
            description = "Evaluate at least this often, since ages move with the clock (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(names = "--once", description = "Sync, evaluate once, print the pass as `audit` does (-o json by "
            + "default, the shape of `audit -o json`) and exit. No HTTP, no leader election, no Events.")
    boolean once;

    /** With --once: how the one pass is printed; JSON by default, as scripts and CronJobs have read it. */
    @Mixin
    OutputOptions output = OutputOptions.of(AuditRenderer.Plain.class, "json");

    @Option(names = "--sync-timeout", paramLabel = "DURATION", defaultValue = "2m", converter = DurationConverter.class,
            description = "--once: how long to wait for every informer to sync (default: ${DEFAULT-VALUE}).")
    Duration syncTimeout;

    // 1 s, not 2 s: a Node change then reaches /metrics within ~1.6 s at 5,000 nodes (p99; the 2 s target),
    // at the cost of up to one pass a second under constant Node churn (bench/RESULTS.md, "The watch's
    // event -> metric latency"; docs/metrics.md)
    @Option(names = "--debounce", paramLabel = "DURATION", defaultValue = "1s", converter = DurationConverter.class,
            description = "Evaluate this long after a change, so a burst of changes is one pass. A Lease "
                    + "renewal (only renewTime moved) or a Node status post that moves only lastHeartbeatTime is not "
                    + "a change: the --interval pass sees the ages they move (default: ${DEFAULT-VALUE}).")
    Duration debounce;

    @Option(names = "--identity", paramLabel = "NAME",
            description = "This replica's name in the leader Lease (default: $POD_NAME, else host name + random).")
    String identity;

    @Option(names = "--lease-duration", paramLabel = "DURATION", defaultValue = "15s",
            converter = DurationConverter.class,
            description = "How long a stopped leader keeps the Lease before another replica takes over "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration leaseDuration;

    @Option(names = "--event-rate", paramLabel = "PER_SECOND", defaultValue = "1",
            description = "Events posted per second at most, after a burst of --event-burst (default: "
                    + "${DEFAULT-VALUE}); Events over the limit are dropped and logged.")
    double eventRate;

    @Option(names = "--event-burst", paramLabel = "N", defaultValue = "25",
            description = "Events that may be posted at once (default: ${DEFAULT-VALUE}).")
    int eventBurst;

    @Option(names = "--batch-window", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
            description = "As in audit: NG103 batch window (default: ${DEFAULT-VALUE}).")
    Duration batchWindow;

    @Option(names = "--newcomer-window", paramLabel = "DURATION", defaultValue = "72h",
            converter = DurationConverter.class,
            description = "As in audit: NG111 newcomer window (default: ${DEFAULT-VALUE}).")
    Duration newcomerWindow;

    @Option(names = "--abandoned-after", paramLabel = "DURATION", defaultValue = "72h",
            converter = DurationConverter.class,
            description = "As in audit: NG170 abandoned after (default: ${DEFAULT-VALUE}).")
    Duration abandonedAfter;

    @Option(names = "--grace-period", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "As in audit: the node-monitor grace period (default: 50s for apiserver v1.32 and later, "
                    + "40s before).")
    Duration gracePeriod;

    @Option(names = "--skip", paramLabel = "CODE", split = ",",
            description = "As in audit: detectors not to run (e.g. --skip NG111).")
    List<String> skip = new ArrayList<>();

    @Option(names = "--policy-reports",
            description = "The leader keeps the wgpolicyk8s.io/v1alpha2 ClusterPolicyReport nodegate-watch (split into "
                    + "parts at scale) equal to the findings of each good pass (docs/output.md). Needs the CRD and "
                    + "`install --with-policy-reports`' RBAC.")
    boolean policyReports;

    @Option(names = "--cluster-name", paramLabel = "NAME",
            description = "The name of this cluster, as a `cluster` label on every metric and on the PolicyReports, "
                    + "so that series and reports from many clusters tell where they came from when read together "
                    + "(federation, Thanos, Policy Reporter; docs/many-clusters.md). A Kubernetes label value: at "
                    + "most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit.")
    String clusterName;

    @Option(names = "--no-hold",
            description = "Do not hold newcomers: by default the leader taints " + NewcomerHold.TAINT_KEY
                    + " on a Node created while it watches whose systemUUID or machineID is tombstoned or belongs to an "
                    + "older Node, or that the declared inventory does not place, until 'nodegate accept' "
                    + "(docs/inventory.md).")
    boolean noHold;

    @Option(names = "--hold-effect", paramLabel = "EFFECT", defaultValue = "NoSchedule",
            description = "The hold's taint effect: NoSchedule (default), or NoExecute for hosts that must not run "
                    + "anything (evicts what bound before the taint).")
    String holdEffect;

    @Option(names = "--no-handovers",
            description = "Do not keep the NodeHandovers current (by default the leader looks at each open one every "
                    + "minute: its status, the silence on each Alertmanager replica, Events; docs/handover.md).")
    boolean noHandovers;

    @Option(names = "--alertmanager-timeout", paramLabel = "DURATION", defaultValue = "5s",
            converter = DurationConverter.Positive.class,
            description = "Deadline of each request to a hand-over's Alertmanager replicas, for the whole answer: connect, "
                    + "headers and body (default: ${DEFAULT-VALUE}). The looks run beside the passes: a slow replica "
                    + "never holds one.")
    Duration alertmanagerTimeout = Duration.ofSeconds(5);

    @Mixin
    BmcOptions bmc = new BmcOptions();

    @Option(names = "--bmc-interval", paramLabel = "DURATION", defaultValue = "5m",
            converter = DurationConverter.Positive.class,
            description = "With --bmc/--bmc-inventory: read the BMCs no more often than this; each pass judges the "
                    + "last readings (default: ${DEFAULT-VALUE}). Credentials: --bmc-credentials DIR of a mounted "
                    + "basic-auth Secret.")
    Duration bmcInterval;

    @Override
    public Integer call() throws Exception {
        List<Detector> detectors = detectors();
        bmc.targets(); // a bad --bmc, inventory or credentials file is a usage error before anything starts
        InetSocketAddress address = once ? null : listenAddress(listen);
        if (!once && (interval.isZero() || interval.isNegative())) {
            throw new ParameterException(spec.commandLine(), "--interval must be positive, got " + interval);
        }
        var parsed = spec.commandLine().getParseResult();
        if (!NewcomerHold.NO_SCHEDULE.equals(holdEffect) && !NewcomerHold.NO_EXECUTE.equals(holdEffect)) {
            throw new ParameterException(spec.commandLine(), "--hold-effect must be NoSchedule or NoExecute, got '"
                    + holdEffect + "'");
        }
        if (!once && (parsed.hasMatchedOption("--output") || parsed.hasMatchedOption("--no-headers"))) {
            throw new ParameterException(spec.commandLine(), "-o and --no-headers go with --once: the running watch serves its "
                    + "findings on /findings and /metrics and logs to stderr");
        }
        if (once && policyReports) {
            throw new ParameterException(spec.commandLine(), "--policy-reports keeps reports current while the watch "
                    + "runs; --once prints one pass and exits (use `nodegate audit -o policyreport` for a snapshot)");
        }
        if (!Double.isFinite(eventRate) || eventRate <= 0) {
            // NaN compares false with everything: "NaN <= 0" let it through, and the token bucket never refilled
            throw new ParameterException(spec.commandLine(), "--event-rate must be a number of Events per second "
                    + "above 0, got " + eventRate);
        }
        if (eventBurst < 1) {
            throw new ParameterException(spec.commandLine(), "--event-burst must be at least 1, got " + eventBurst);
        }
        if (!once && leaseDuration.compareTo(MIN_LEASE_DURATION) < 0) {
            // the renew deadline (2/3) and retry period (1/7) follow from it; below a second they are shorter than
            // one API round trip, and the elector refused them with an unexpected failure
            throw new ParameterException(spec.commandLine(), "--lease-duration must be at least "
                    + Durations.format(MIN_LEASE_DURATION) + " (the leader renews every 2/3 of it, "
                    + "retrying every 1/7), got " + Durations.format(leaseDuration));
        }
        if (clusterName != null && !clusterName.matches("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)")) {
            throw new ParameterException(spec.commandLine(), "--cluster-name "
                    + TerminalText.escape(clusterName) + ": not a Kubernetes label value (at most 63 letters, digits, "
                    + "'-', '_' or '.', starting and ending with a letter or digit)");
        }
        KubeConnection connection = env.connectForModel(live);
        String server = stripSlash(connection.server());
        String source = "live: " + connection.describe();
        String me = identity != null ? identity : defaultIdentity();
        Duration renew = leaseDuration.multipliedBy(2).dividedBy(3);
        Duration retry = leaseDuration.dividedBy(7).isZero() ? Duration.ofMillis(200) : leaseDuration.dividedBy(7);
        var settings = new WatchService.Settings(interval, debounce, address, once ? null : leaseNamespace(), me,
                leaseDuration, renew, retry, true, eventRate, eventBurst, !once,
                new AuditSettings(batchWindow, newcomerWindow, abandonedAfter, gracePeriod), detectors,
                live.requestTimeout, source, connection.context(), server, new VersionProvider().getVersion()[0]
                .replaceFirst("^nodegate ", ""));
        PrintWriter err = spec.commandLine().getErr();
        Consumer<String> log = line -> {
            synchronized (err) {
                err.println(Instant.now().truncatedTo(ChronoUnit.MILLIS) + " nodegate watch: " + line);
                err.flush();
            }
        };
        WatchService service = new WatchService(settings, connection, env.clock(), once ? line -> { } : log);
        if (clusterName != null) {
            service.clusterName(clusterName);
        }
        BmcPoller bmcs = bmcPoller(once ? line -> { } : log);
        try {
            if (bmcs != null) {
                service.engine().feed(bmcs::feed);
                service.metrics().also(bmcs::metrics);
            }
            if (once) {
                if (bmcs != null) {
                    bmcs.poll();
                }
                return once(service);
            }
            if (bmcs != null) {
                bmcs.start();
            }
            if (policyReports) {
                service.keepPolicyReports();
            }
            if (!noHandovers) {
                service.keepHandovers(alertmanagerTimeout);
            }
            if (!noHold) {
                service.holdNewcomers(holdEffect);
            }
            try {
                service.start();
            } catch (RuntimeException e) {
                service.close();
                connection.close();
                throw e;
            }
            log.accept("serving /metrics /healthz /readyz /findings on " + describe(address, service.httpPort())
                    + "; leader Lease " + settings.namespace() + "/" + WatchService.LEASE_NAME + " as " + me);
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                if (bmcs != null) {
                    bmcs.close();
                }
                service.close();
                connection.close();
                stopped.countDown();
            }, "nodegate-watch-stop"));
            stopped.await();
            return ExitCode.OK;
        } finally {
            if (once) {
                if (bmcs != null) {
                    bmcs.close();
                }
                service.close();
                connection.close();
            }
        }
    }

    /** The BMC poller the watch owns (--bmc/--bmc-inventory), or null without BMCs. */
    private BmcPoller bmcPoller(Consumer<String> log) {
        if (!bmc.given()) {
            return null;
        }
        if (bmc.insecure) {
            PrintWriter err = spec.commandLine().getErr();
            err.println(BmcTls.INSECURE_WARNING);
            err.flush();
        }
        return new BmcPoller(bmc::targets, new BmcSource(bmc.settings(), env.clock(), log),
                bmcInterval, log);
    }

    private int once(WatchService service) throws InterruptedException {
        long deadline = System.nanoTime() + syncTimeout.toNanos();
        String lastStartError = null;
        while (!service.cache().started()) {
            try {
                service.cache().start();
            } catch (CollectionException e) {
                lastStartError = e.getMessage();
                if (System.nanoTime() > deadline) {
                    throw new CollectionException("informers not started within " + syncTimeout.toSeconds()
                            + " s (--sync-timeout): " + lastStartError);
                }
                Thread.sleep(500);
            }
        }
        long left = Math.max(0, deadline - System.nanoTime());
        if (!service.cache().awaitHealthy(Duration.ofNanos(left))) {
            throw new CollectionException("informers not synced within " + syncTimeout.toSeconds()
                    + " s (--sync-timeout): " + String.join("; ", service.cache().unhealthy()));
        }
        service.openHandovers().read();
        WatchEngine.Pass pass = service.engine().evaluate();
        if (!pass.ok()) {
            throw new CollectionException(pass.error());
        }
        AuditReport report = pass.report();
        if (!skip.isEmpty()) {
            report = report.withNote("not checked (--skip): " + String.join(", ", skipped()));
        }
        output.print(spec.commandLine().getOut(), new AuditRenderer.Plain(report));
        return ReportExit.of(report.findings());
    }

    /** Every registered detector minus --skip ({@link DetectorSelection}), and minus NG304/NG305 without --bmc. */
    private List<Detector> detectors() {
        List<Detector> selected = DetectorSelection.detectors(spec.commandLine(), skip, Scope.WATCH);
        return bmc.given() ? selected : Detectors.withoutBmc(selected);
    }

    private Set<String> skipped() {
        return DetectorSelection.skipped(skip);
    }

    /** ":9470", "0.0.0.0:9470", "127.0.0.1:0", "[::1]:9470". */
    static InetSocketAddress listenAddress(String text) {
        int colon = text.lastIndexOf(':');
        if (colon < 0) {
            throw new InputException("--listen '" + text + "': expected ADDR:PORT such as :9470 or 127.0.0.1:9470");
        }
        String host = text.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new InputException("--listen '" + text + "': the port is not a number");
        }
        if (port < 0 || port > 65535) {
            throw new InputException("--listen '" + text + "': port must be 0-65535");
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty()) {
            return new InetSocketAddress(port);
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new InputException("--listen '" + text + "': unknown address " + host);
        }
    }

    private String leaseNamespace() {
        if (namespace != null) {
            return namespace;
        }
        String fromEnv = System.getenv("POD_NAMESPACE");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv.trim();
        }
        Path sa = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
        try {
            if (Files.isReadable(sa)) {
                return Files.readString(sa).trim();
            }
        } catch (IOException e) {
            // fall through to the install default
        }
        return "nodegate-system";
    }

    private static String defaultIdentity() {
        String pod = System.getenv("POD_NAME");
        if (pod != null && !pod.isBlank()) {
            return pod.trim();
        }
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "nodegate";
        }
        return host + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static String describe(InetSocketAddress address, int port) {
        String host = address.getAddress() == null || address.getAddress().isAnyLocalAddress() ? ""
                : address.getAddress().getHostAddress();
        return host + ":" + port;
    }

    private static String stripSlash(String url) {
        return url != null && url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
