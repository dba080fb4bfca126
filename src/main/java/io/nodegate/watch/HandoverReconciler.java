package io.nodegate.watch;

import io.nodegate.watch.publishing.ApiEventSink;
import io.nodegate.CollectionException;
import io.nodegate.handover.HandoverReading;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.NodeHandover;
import io.nodegate.handover.StatusBuilder;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.handover.run.HandoverApi;
import io.nodegate.handover.run.HandoverLooker;
import io.nodegate.handover.run.HandoverService;
import io.nodegate.handover.run.SilenceKeeper;
import io.nodegate.model.ClusterState;
import io.nodegate.model.OpenHandovers;
import io.nodegate.handover.SilenceDecision;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The watch keeping every open NodeHandover current: after a good pass, at most every {@link #EVERY}, the leader
 * looks at each hand-over as `handover status` does (the don'ts, each step's checks, the silence on every
 * Alertmanager replica, re-created where it vanished), writes the status, and posts an Event on the NodeHandover
 * for each violation first seen and each silence that had to be re-created. A replica that does not lead looks at
 * nothing: two replicas keeping the same silences would create them twice.
 *
 * <p>What the watch reads: the giving cluster from the pass's own objects (Nodes, Leases, tombstones) and the
 * Alertmanagers recorded at open. What it does not read: pods (its RBAC does not list them), the operator's evidence
 * directory (the steps' recorded evidence stands in for it) and the destination (no kubeconfig for it here): those
 * checks say "not checked" in the watch's looks.
 */
public final class HandoverReconciler {

    /** How often the leader looks at the hand-overs (each look asks every Alertmanager replica). */
    public static final Duration EVERY = Duration.ofMinutes(1);

    /** Posts one Event about a NodeHandover. */
    @FunctionalInterface
    public interface Events {
        void post(NodeHandover h, String reason, String type, String message);
    }

    private final ApiReader api;
    private final HandoverApi handovers;
    private final HandoverService service;
    private final SilenceKeeper silences;
    private final BooleanSupplier leads;
    private final Events events;
    private final Clock clock;
    private final String identity;
    private final Duration every;
    private final Consumer<OpenHandovers> listed;
    private final Consumer<String> log;
    private Instant lastLook;
    private String lastProblem;
    /** Each open hand-over's failed reads in its last look: a failure is logged when it first shows, not every look. */
    private final Map<String, List<String>> lastErrors = new HashMap<>();
    /** Each Alertmanager replica the last looks asked: true when it could be read (nodegate_alertmanager_up). */
    private volatile Map<String, Boolean> replicasUp = Map.of();
    private final AtomicLong looks = new AtomicLong();
    private volatile Instant lastLookEnded;

    /**
     * @param leads  asked before the looks and again before every write: a replica that lost the Lease stops
     * @param listed told which Nodes are part of an open hand-over after each good LIST of the looks, so the passes
     *               can judge that answer instead of reading the collection again ({@link OpenHandoverReads#offer})
     */
    public HandoverReconciler(ApiReader api, SilenceKeeper silences, BooleanSupplier leads, Events events, Clock clock,
                              String identity, Duration every, Consumer<OpenHandovers> listed, Consumer<String> log) {
        this.api = api;
        this.handovers = new HandoverApi(api);
        this.service = new HandoverService(handovers, clock);
        this.silences = silences;
        this.leads = leads;
        this.events = events;
        this.clock = clock;
        this.identity = identity;
        this.every = every;
        this.listed = listed;
        this.log = log;
    }

    /** Events through the watch's own sink (same namespace, rate limit and shape as its Node Events). */
    public static Events through(ApiEventSink sink) {
        return (h, reason, type, message) -> sink.about(NodeHandover.API_VERSION, NodeHandover.KIND, h.name(), h.uid(),
                reason, type, message);
    }

    /** After a good pass: looks at the open hand-overs when this replica leads and the last look is old enough. */
    public synchronized void afterPass(ClusterState state) {
        Instant now = clock.instant();
        if (!leads.getAsBoolean() || (lastLook != null && now.isBefore(lastLook.plus(every)))) {
            return;
        }
        lastLook = now;
        List<NodeHandover> all;
        try {
            all = handovers.list();
        } catch (CollectionException e) {
            problem("hand-overs not looked at: " + e.getMessage());
            return;
        }
        lastProblem = null;
        listed.accept(HandoverApi.open(all));
        Map<String, Boolean> up = new TreeMap<>();
        Set<String> open = new HashSet<>();
        for (NodeHandover h : all) {
            if (h.closed()) {
                continue;
            }
            open.add(h.name());
            try {
                reconcile(h, state, up);
            } catch (RuntimeException e) {
                log.accept("hand-over " + h.name() + ": look failed: " + e.getMessage());
            }
        }
        lastErrors.keySet().retainAll(open);
        replicasUp = Collections.unmodifiableMap(up);
        looks.incrementAndGet();
        lastLookEnded = clock.instant();
    }

    /**
     * The series of the looks, in the text exposition format: each Alertmanager replica's state as the last look saw
     * it, the looks done and when the last one ended. Empty before the first look.
     */
    public String metrics() {
        Instant ended = lastLookEnded;
        if (ended == null) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        out.append("# HELP nodegate_handover_looks_total Looks at the open NodeHandovers done by this replica\n")
                .append("# TYPE nodegate_handover_looks_total counter\n")
                .append("nodegate_handover_looks_total ").append(looks.get()).append('\n');
        out.append("# HELP nodegate_handover_look_timestamp_seconds When the last look at the NodeHandovers ended, in "
                        + "Unix seconds\n")
                .append("# TYPE nodegate_handover_look_timestamp_seconds gauge\n")
                .append("nodegate_handover_look_timestamp_seconds ").append(ended.getEpochSecond()).append('\n');
        Map<String, Boolean> up = replicasUp;
        if (!up.isEmpty()) {
            out.append("# HELP nodegate_alertmanager_up 1 when the last look could read that Alertmanager replica, 0 "
                            + "when it failed (refused, not answered in full within --alertmanager-timeout, broken)\n")
                    .append("# TYPE nodegate_alertmanager_up gauge\n");
            up.forEach((url, ok) -> out.append("nodegate_alertmanager_up{url=\"").append(WatchMetrics.escape(url))
                    .append("\"} ").append(ok ? 1 : 0).append('\n'));
        }
        return out.toString();
    }

    private void problem(String message) {
        if (!message.equals(lastProblem)) {
            log.accept(message);
        }
        lastProblem = message;
    }

    private void reconcile(NodeHandover h, ClusterState state, Map<String, Boolean> up) {
        HandoverLooker looker = new HandoverLooker(giving(state), HandoverLooker.NO_OTHERS, HandoverLooker.NO_EVIDENCE,
                HandoverLooker.NO_PROBE, silences, null, true, clock);
        HandoverService.Result look = service.look(h, looker, List.of(), false, "watch/" + identity);
        if (look.reading().silences() != null) {
            look.reading().silences().replicas().forEach(r -> up.merge(r.url(),
                    !SilenceDecision.UNREADABLE.equals(r.state()), Boolean::logicalAnd));
        }
        List<String> errors = look.reading().errors();
        List<String> before = lastErrors.put(h.name(), errors);
        for (String e : errors) {
            if (before == null || !before.contains(e)) {
                log.accept("hand-over " + h.name() + ": " + e);
            }
        }
        if (!leads.getAsBoolean()) {
            log.accept("hand-over " + h.name() + ": this replica stopped leading during the look; nothing written");
            return;
        }
        NodeHandover written = service.writeStatus(h, StatusBuilder.look(h, look.reading(), "watch/" + identity));
        announce(h, written, look.reading());
    }

    /** The Events of what this look saw first: new violations, silences that had to be re-created. */
    private void announce(NodeHandover before, NodeHandover after, HandoverReading reading) {
        Set<String> known = before.status() == null ? Set.of() : before.status().violations().stream()
                .map(HandoverStatus.Violation::key).collect(Collectors.toSet());
        for (HandoverStatus.Violation v : after.status().violations()) {
            if (!known.contains(v.key()) && leads.getAsBoolean()) {
                events.post(after, "HandoverViolation", "Warning", v.kind() + " " + v.node() + ": " + v.message());
            }
        }
        if (reading.silences() == null) {
            return;
        }
        for (HandoverStatus.HistoryEntry e : reading.silences().events()) {
            if ("silence-recreated".equals(e.type()) && leads.getAsBoolean()) {
                events.post(after, "HandoverSilenceRecreated", "Warning", e.message());
            }
        }
    }

    /**
     * The giving cluster from the pass's objects. Pods are not read: the watch may not list pods (their specs can
     * carry values people put in environment variables; InstallCommandTest holds its RBAC to what audit reads), so
     * step 1's pod check is the operator's `handover status`, and the watch's looks say "not checked" for it.
     */
    private static HandoverLooker.GivingSource giving(ClusterState state) {
        HandoverLooker.GivingSource fromPass = HandoverLooker.saved(state, state.context() != null ? state.context()
                : "this cluster");
        return targets -> {
            HandoverReading.Giving g = fromPass.read(targets);
            // the informer proved the tombstones ConfigMap absent when the pass has none: no tombstones, not unknown
            return new HandoverReading.Giving(g.name(), g.nodes(), null, g.leases(),
                    g.tombstones() == null ? List.of() : g.tombstones(), null);
        };
    }
}
