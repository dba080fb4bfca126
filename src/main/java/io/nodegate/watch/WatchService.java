package io.nodegate.watch;

import io.nodegate.watch.informer.Backoff;
import io.nodegate.watch.informer.Freshness;
import io.nodegate.watch.informer.WatchCache;
import io.nodegate.watch.leadership.LeaderGuard;
import io.nodegate.watch.publishing.ApiEventSink;
import io.nodegate.watch.publishing.EventSink;
import io.nodegate.watch.publishing.PolicyReportWriter;
import io.nodegate.source.kube.ApiCalls;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.handover.run.HandoverApi;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.source.kube.Kinds;
import io.nodegate.detect.Finding;
import io.nodegate.handover.run.SilenceKeeper;
import io.nodegate.lifecycle.inventory.NodeHolds;
import io.nodegate.model.ClusterState;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.time.Durations;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * `nodegate watch` running: the watches of every audited kind ({@link WatchCache}), passes ({@link WatchEngine}) after changes
 * (debounced) and every interval, HTTP ({@link WatchHttp}), and leader election on a coordination.k8s.io Lease
 * through fabric8's LeaderElector. Every replica evaluates and serves HTTP; only the leader posts Events.
 *
 * <p>An API server that cannot be reached at start is retried with client-go's jittered back-off ({@link Backoff}),
 * each try said in the log; the process stays up, /healthz answers and /readyz says why it is not ready.
 */
public final class WatchService implements AutoCloseable {

    /** The Lease every replica competes for, in the watch's namespace. */
    public static final String LEASE_NAME = "nodegate-watch";

    /**
     * @param listen         where HTTP listens; null for none (--once)
     * @param namespace      where the leader Lease lives; null: no leader election, this process leads (--once
     *                       never posts Events either way, see {@link #leads})
     * @param postEvents     false for --once: a one-shot pass has no "previous pass" to compare with
     */
    public record Settings(Duration interval, Duration debounce, InetSocketAddress listen, String namespace,
                           String identity, Duration leaseDuration, Duration renewDeadline, Duration retryPeriod,
                           boolean releaseOnStop, double eventsPerSecond, int eventBurst, boolean postEvents,
                           AuditSettings audit, List<Detector> detectors, Duration requestTimeout, String source,
                           String context, String server, String version, Freshness freshness) {

        /** With the production freshness limits ({@link Freshness#DEFAULTS}). */
        public Settings(Duration interval, Duration debounce, InetSocketAddress listen, String namespace,
                        String identity, Duration leaseDuration, Duration renewDeadline, Duration retryPeriod,
                        boolean releaseOnStop, double eventsPerSecond, int eventBurst, boolean postEvents,
                        AuditSettings audit, List<Detector> detectors, Duration requestTimeout, String source,
                        String context, String server, String version) {
            this(interval, debounce, listen, namespace, identity, leaseDuration, renewDeadline, retryPeriod,
                    releaseOnStop, eventsPerSecond, eventBurst, postEvents, audit, detectors, requestTimeout, source,
                    context, server, version, Freshness.DEFAULTS);
        }

        /** The same settings with other freshness limits (tests that play minutes in seconds). */
        public Settings withFreshness(Freshness limits) {
            return new Settings(interval, debounce, listen, namespace, identity, leaseDuration, renewDeadline,
                    retryPeriod, releaseOnStop, eventsPerSecond, eventBurst, postEvents, audit, detectors,
                    requestTimeout, source, context, server, version, limits);
        }
    }

    private final Settings settings;
    private final KubeConnection connection;
    private final Clock clock;
    private final Consumer<String> log;
    private final AtomicBoolean leader = new AtomicBoolean();
    /**
     * Whether this replica has learnt who leads (itself or another) since it started: until then its passes follow
     * nothing, so a replica that then finds itself leading announces what it found, and one that finds another
     * leading follows silently from the next pass on. Without it, whether a replica starting alone announced the
     * findings present at its start depended on which came first, its first pass or its first read of the Lease.
     */
    private final AtomicBoolean leaderKnown = new AtomicBoolean();
    private final AtomicBoolean passPending = new AtomicBoolean();
    private final ScheduledExecutorService scheduler;
    /** Periodic work besides the passes (the progress check, and sources added later): never delays a pass. */
    private final ScheduledExecutorService background;
    private final WatchCache cache;
    private final WatchMetrics metrics;
    private final WatchEngine engine;
    private final ApiEventSink events;
    private volatile PolicyReportWriter policyReports;
    /** Asked before every write (Events, reports, hand-over status): this replica must still hold the Lease. */
    private final LeaderGuard guard;
    private volatile HandoverReconciler handovers;
    /**
     * Where the hand-over looks run: never on the passes' thread. A look asks every Alertmanager replica a hand-over
     * names, and anyone who may edit a NodeHandover chooses those URLs: a slow or hostile one must not hold a pass.
     */
    private final ExecutorService looks;
    private final AtomicBoolean looking = new AtomicBoolean();
    private volatile WatchHttp http;
    private volatile CompletableFuture<?> election;
    private volatile boolean closed;

    /**
     * @param connection reads (the watches) go over its lean HTTP layer; its fabric8 client is built only for the
     *                   writes of a long-running watch (leader election, Events), never for --once
     */
    public WatchService(Settings settings, KubeConnection connection, Clock clock, Consumer<String> log) {
        this.settings = settings;
        this.connection = connection;
        this.clock = clock;
        this.log = log;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nodegate-watch-eval");
            t.setDaemon(true);
            return t;
        });
        this.background = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nodegate-watch-periodic");
            t.setDaemon(true);
            return t;
        });
        this.looks = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "nodegate-watch-handovers");
            t.setDaemon(true);
            return t;
        });
        ApiCalls api = new ApiCalls(connection);
        this.cache = new WatchCache(api, Kinds.audited(), this::changed, log, settings.freshness(), clock);
        this.metrics = new WatchMetrics(settings.version(), cache::health, cache::restarts, leader::get,
                cache::nodeLeasesNow);
        this.metrics.bookmarks(cache::bookmarks);
        this.guard = settings.namespace() == null ? LeaderGuard.NONE
                : new LeaderGuard(api, settings.namespace(), LEASE_NAME, settings.identity(), leader::get,
                Clock.systemUTC());
        this.events = settings.postEvents() ? new ApiEventSink(connection.client(), clock, settings.identity(),
                settings.eventsPerSecond(), settings.eventBurst(), guard, log) : null;
        EventSink sink = events != null ? events : new EventSink() {
            @Override
            public void appeared(Finding finding) {
            }

            @Override
            public void resolved(Finding finding) {
            }
        };
        if (settings.namespace() == null) {
            leaderKnown.set(true); // no election: this replica leads from the start
        }
        this.engine = new WatchEngine(cache, clock, settings.audit(), settings.detectors(), sink, this::leads,
                leaderKnown::get, metrics, settings.source(), settings.context(), settings.server(), log);
        // NG171 asks whether an open hand-over explains a cordon, as audit does; read apart from the informers
        ApiReader reader = new ApiReader(api);
        this.openHandovers = new OpenHandoverReads(
                () -> new HandoverApi(reader).openHandovers(), log);
        engine.handovers(openHandovers);
    }

    private final OpenHandoverReads openHandovers;

    /** The open NodeHandovers the passes judge; {@link OpenHandoverReads#read} reads them again now (--once). */
    public OpenHandoverReads openHandovers() {
        return openHandovers;
    }

    /** `--policy-reports`: from now on the leader writes each good pass's findings as ClusterPolicyReports. */
    public void keepPolicyReports() {
        PolicyReportWriter writer = PolicyReportWriter.overApi(connection.client(), clock, guard, log);
        writer.cluster(cluster);
        policyReports = writer;
    }

    /** `--cluster-name`: set before start; {@code null} leaves metrics and reports without a cluster label. */
    private volatile String cluster;

    /** `--cluster-name NAME`: a {@code cluster} label on every metric and PolicyReport (before keepPolicyReports). */
    public void clusterName(String name) {
        this.cluster = name;
        metrics.cluster(name);
    }

    /**
     * From now on the leader keeps every open NodeHandover current after good passes ({@link HandoverReconciler}):
     * its status, the silence on each Alertmanager replica, Events on it. Its "still leading?" before each write
     * reads the leader Lease ({@link LeaderGuard}), as every write of the watch does.
     */
    public void keepHandovers(Duration alertmanagerTimeout) {
        handovers = new HandoverReconciler(new ApiReader(connection),
                new SilenceKeeper(alertmanagerTimeout, clock), this::holdsTheLease,
                events == null ? (h, reason, type, message) -> { } : HandoverReconciler.through(events), clock,
                settings.identity(), HandoverReconciler.EVERY, openHandovers::offer, log);
        metrics.handovers(handovers::metrics);
    }

    private volatile NewcomerHolder newcomers;

    /**
     * From now on newcomers are held at birth ({@link NewcomerHolder}): after each good pass the leader taints a Node
     * created since the first pass that {@link io.nodegate.model.NewcomerHold} holds.
     *
     * @param effect NoSchedule, or NoExecute for hosts that must not run anything
     */
    public void holdNewcomers(String effect) {
        newcomers = new NewcomerHolder(new NodeHolds(connection.client()),
                this::holdsTheLease, effect, clock, log);
    }

    /** This replica leads and the leader Lease, read now, says so ({@link LeaderGuard}). */
    private boolean holdsTheLease() {
        return leads() && guard.whyNot() == null;
    }

    /**
     * Starts HTTP, then the watches (retrying while the API cannot be reached), the election, the passes and the
     * periodic progress check.
     *
     * @throws InputException when --listen cannot be bound (in use, or not an address of this machine)
     */
    public void start() {
        if (settings.listen() != null) {
            try {
                http = new WatchHttp(settings.listen(), engine, metrics, clock,
                        settings.interval().multipliedBy(3).plusSeconds(30));
            } catch (IOException e) {
                throw new InputException("--listen " + describe(settings.listen()) + ": cannot listen there: "
                        + e.getMessage() + " (another process uses the port, or the address is not this machine's)");
            }
        }
        Thread starter = new Thread(this::startCacheWithRetry, "nodegate-watch-start");
        starter.setDaemon(true);
        starter.start();
        if (settings.namespace() != null) {
            startElection();
        }
        long every = settings.interval().toMillis();
        scheduler.scheduleWithFixedDelay(this::intervalPass, every, every, TimeUnit.MILLISECONDS);
        every("progress check", settings.freshness().progressEvery(), cache::checkProgress);
        // the open hand-overs: read at once (usually before the informers have synced), then once per interval
        // unless the leader's hand-over look has just read them, so a periodic pass judges an answer at most about
        // two intervals old
        background.execute(() -> {
            if (!closed) {
                openHandovers.read();
            }
        });
        every("NodeHandover read", settings.interval(), openHandovers::readUnlessOffered);
    }

    /**
     * Runs {@code task} every {@code period} on the watch's periodic thread (never the passes' thread, so a slow or
     * hanging read cannot delay a pass); a task that throws is said in the log and runs again next period. The
     * progress check runs this way; further periodic sources can be added the same way.
     */
    public void every(String what, Duration period, Runnable task) {
        long millis = Math.max(1, period.toMillis());
        background.scheduleWithFixedDelay(() -> {
            try {
                if (!closed) {
                    task.run();
                }
            } catch (RuntimeException e) {
                log.accept(what + " failed: " + e);
            }
        }, millis, millis, TimeUnit.MILLISECONDS);
    }

    private static String describe(InetSocketAddress address) {
        String host = address.getAddress() == null || address.getAddress().isAnyLocalAddress() ? ""
                : address.getAddress().getHostAddress();
        return host + ":" + address.getPort();
    }

    private void startCacheWithRetry() {
        Backoff retries = new Backoff(settings.freshness().backoff(),
                () -> ThreadLocalRandom.current().nextDouble());
        while (!closed) {
            Duration backoff = null;
            try {
                cache.start();
                log.accept("informers started against " + settings.server() + " (apiserver "
                        + cache.serverVersion() + ")");
                return;
            } catch (RuntimeException e) {
                backoff = retries.next(System.nanoTime());
                log.accept("cannot start the informers: " + (e instanceof CollectionException ? e.getMessage()
                        : e.toString()) + "; retrying in " + Durations.format(
                        backoff.truncatedTo(ChronoUnit.MILLIS)));
            }
            try {
                Thread.sleep(Math.max(1, backoff.toMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void startElection() {
        var config = new LeaderElectionConfigBuilder()
                .withName(LEASE_NAME)
                .withLock(new LeaseLock(settings.namespace(), LEASE_NAME, settings.identity()))
                .withLeaseDuration(settings.leaseDuration())
                .withRenewDeadline(settings.renewDeadline())
                .withRetryPeriod(settings.retryPeriod())
                .withReleaseOnCancel(settings.releaseOnStop())
                .withLeaderCallbacks(new LeaderCallbacks(
                        () -> {
                            if (policyReports != null) {
                                policyReports.forget(); // another replica may have written since this one last did
                            }
                            leaderKnown.set(true);
                            leader.set(true);
                            log.accept(settings.identity() + " leads (Lease " + settings.namespace() + "/" + LEASE_NAME
                                    + "): it posts the Events from now on");
                        },
                        () -> {
                            leader.set(false);
                            log.accept(settings.identity() + " stopped leading");
                        },
                        who -> {
                            leaderKnown.set(true);
                            log.accept("leader is " + who);
                        }))
                .build();
        election = connection.client().leaderElector().withConfig(config).build().start();
        election.whenComplete((ok, failure) -> {
            leader.set(false);
            if (!closed) {
                // fabric8 ends the election when the lease is lost; compete again rather than stay a follower
                log.accept("leader election ended" + (failure == null ? "" : ": " + failure) + "; rejoining");
                scheduler.schedule(this::startElection, settings.retryPeriod().toMillis(), TimeUnit.MILLISECONDS);
            }
        });
    }

    /** True when this replica posts Events: it holds the Lease (or runs without election). */
    public boolean leads() {
        return settings.namespace() == null || leader.get();
    }

    private void changed() {
        if (closed) {
            return;
        }
        if (passPending.compareAndSet(false, true)) {
            scheduler.schedule(() -> {
                passPending.set(false);
                pass();
            }, settings.debounce().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** The every-interval pass: ages moved; and an optional kind absent so far may have appeared. */
    private void intervalPass() {
        try {
            cache.recheckAbsent();
        } catch (RuntimeException e) {
            log.accept("re-probing the absent kinds failed: " + e);
        }
        pass();
    }

    private void pass() {
        try {
            if (cache.started()) {
                WatchEngine.Pass done = engine.evaluate();
                PolicyReportWriter reports = policyReports;
                if (reports != null && done.ok() && leads()) {
                    reports.write(done.report(), checks());
                }
                NewcomerHolder holder = newcomers;
                if (holder != null && done.ok()) {
                    holder.afterPass(done.state());
                }
                HandoverReconciler keeper = handovers;
                if (keeper != null && done.ok()) {
                    lookAtHandovers(keeper, done.state());
                }
            }
        } catch (RuntimeException e) {
            log.accept("evaluation pass failed: " + e);
        }
    }

    /**
     * Hands the pass's state to the hand-over looks on their own thread and returns at once. While a look still runs
     * (an Alertmanager replica slow to answer, each of its calls bounded by --alertmanager-timeout) the passes go on
     * and no second look is queued: the next good pass after it ends starts the next one.
     */
    private void lookAtHandovers(HandoverReconciler keeper, ClusterState state) {
        if (!looking.compareAndSet(false, true)) {
            return;
        }
        try {
            looks.execute(() -> {
                try {
                    if (!closed) {
                        keeper.afterPass(state);
                    }
                } catch (RuntimeException e) {
                    log.accept("hand-over look failed: " + e);
                } finally {
                    looking.set(false);
                }
            });
        } catch (RejectedExecutionException e) {
            looking.set(false); // closing
        }
    }

    /** The checks each pass runs, code to name. */
    private Map<String, String> checks() {
        Map<String, String> checks = new LinkedHashMap<>();
        settings.detectors().forEach(d -> checks.put(d.code().code(), d.name()));
        return checks;
    }

    public WatchEngine engine() {
        return engine;
    }

    public WatchCache cache() {
        return cache;
    }

    public WatchMetrics metrics() {
        return metrics;
    }

    /** Bound HTTP port, or -1 without HTTP. */
    public int httpPort() {
        return http == null ? -1 : http.port();
    }

    /** Events the rate limit dropped. */
    public long eventsDropped() {
        return events == null ? 0 : events.dropped();
    }

    @Override
    public void close() {
        closed = true;
        if (election != null) {
            election.cancel(true);
        }
        scheduler.shutdownNow();
        background.shutdownNow();
        looks.shutdownNow();
        if (http != null) {
            http.close();
        }
        cache.close();
    }
}
