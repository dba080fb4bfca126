package io.nodegate.handover.run;

import io.nodegate.CollectionException;
import io.nodegate.handover.HandoverReading;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.NodeHandover;
import io.nodegate.handover.SilencePlan;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.model.ClusterState;
import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.PodInfo;
import io.nodegate.model.Tombstone;
import io.nodegate.source.kube.TombstoneReader;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One look at a hand-over: the giving cluster (its Nodes, the targets' pods and Leases, the tombstones), the other
 * clusters (the destination and any fleet cluster), the lifecycle's evidence records, the kubelet ports, and the
 * silence on every Alertmanager replica. Each source is handed in, so the same look runs from the CLI (live or
 * from saved dumps) and from the watch.
 */
public final class HandoverLooker {

    /** Reads the giving cluster; a failed read is returned as {@link HandoverReading.Giving#failed}. */
    @FunctionalInterface
    public interface GivingSource {
        HandoverReading.Giving read(List<String> targets);
    }

    /** Reads the other clusters of a hand-over (its destination, any fleet cluster); each may carry its error. */
    @FunctionalInterface
    public interface OthersSource {
        List<HandoverReading.Other> read(NodeHandover h);
    }

    /** The lifecycle's records; null when there is no evidence directory to read. */
    @FunctionalInterface
    public interface EvidenceSource {
        HandoverReading.Evidence read(NodeHandover h);
    }

    /** Kubelet-port answers of the targets; null when not probed. */
    @FunctionalInterface
    public interface KubeletSource {
        List<KubeletAnswer> probe(NodeHandover h, HandoverReading.Giving giving);
    }

    public static final OthersSource NO_OTHERS = h -> List.of();
    public static final EvidenceSource NO_EVIDENCE = h -> null;
    public static final KubeletSource NO_PROBE = (h, g) -> null;

    private final GivingSource giving;
    private final OthersSource others;
    private final EvidenceSource evidence;
    private final KubeletSource kubelets;
    private final SilenceKeeper silences;
    private final List<String> alertmanagers;
    private final boolean act;
    private final Clock clock;

    /**
     * @param silences      null: the Alertmanagers are not asked (an offline look)
     * @param alertmanagers replicas given on this command line instead of those recorded at open; null: recorded
     * @param act           whether the silence may be created, re-created and extended (false: read only)
     */
    public HandoverLooker(GivingSource giving, OthersSource others, EvidenceSource evidence, KubeletSource kubelets,
                          SilenceKeeper silences, List<String> alertmanagers, boolean act, Clock clock) {
        this.giving = giving;
        this.others = others;
        this.evidence = evidence;
        this.kubelets = kubelets;
        this.silences = silences;
        this.alertmanagers = alertmanagers == null || alertmanagers.isEmpty() ? null : List.copyOf(alertmanagers);
        this.act = act;
        this.clock = clock;
    }

    public GivingSource giving() {
        return giving;
    }

    public Clock clock() {
        return clock;
    }

    /** The replicas this look asks: those given on the command line, else those recorded at open. */
    public List<String> alertmanagers(NodeHandover h) {
        return alertmanagers != null ? alertmanagers : h.spec().alertmanagers();
    }

    public SilenceKeeper silenceKeeper() {
        return silences;
    }

    public HandoverReading look(NodeHandover h, List<HandoverReading.HostReportSeen> reports) {
        var at = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        HandoverReading.Giving g = giving.read(h.spec().nodes());
        List<HandoverReading.Other> o = others.read(h);
        HandoverReading.Evidence e = evidence.read(h);
        List<KubeletAnswer> k = g.error() == null ? kubelets.probe(h, g) : null;
        return new HandoverReading(at, g, o, e, reports, k, silenceReport(h));
    }

    private HandoverReading.SilenceReport silenceReport(NodeHandover h) {
        List<String> urls = alertmanagers(h);
        if (silences == null || urls.isEmpty() || h.closed() || h.uid() == null) {
            return null;
        }
        Set<String> known = h.status() == null ? Set.of() : h.status().silences().stream()
                .filter(r -> !r.silenceIDs().isEmpty()).map(HandoverStatus.SilenceRow::alertmanager)
                .collect(Collectors.toSet());
        return silences.keep(SilencePlan.of(h), urls, known, act);
    }

    /** The giving cluster read live over the lifecycle's read path. */
    public static GivingSource live(ApiReader api, String name, String tombstoneNamespace) {
        return targets -> {
            try {
                List<NodeInfo> nodes = api.nodes();
                Map<String, List<PodInfo>> pods = new LinkedHashMap<>();
                Map<String, LeaseInfo> leases = new LinkedHashMap<>();
                for (String t : targets) {
                    if (nodes.stream().anyMatch(n -> n.name().equals(t))) {
                        pods.put(t, api.podsOn(t));
                        api.lease(t).ifPresent(l -> leases.put(t, l));
                    }
                }
                List<Tombstone> tombstones = TombstoneReader.read(api.api(), tombstoneNamespace).tombstones().items();
                return new HandoverReading.Giving(name, nodes, pods, leases, tombstones, null);
            } catch (CollectionException e) {
                return HandoverReading.Giving.failed(name, e.getMessage());
            }
        };
    }

    /** The giving cluster from a saved collection (no pods: a dump holds none). */
    public static GivingSource saved(ClusterState state, String name) {
        Map<String, LeaseInfo> leases = state.nodeLeasesByName();
        List<Tombstone> tombstones = state.tombstones() != null && state.tombstones().present()
                ? state.tombstones().items() : null;
        return targets -> {
            Map<String, LeaseInfo> mine = new LinkedHashMap<>();
            targets.forEach(t -> {
                if (leases.containsKey(t)) {
                    mine.put(t, leases.get(t));
                }
            });
            return new HandoverReading.Giving(name, state.nodes(), null, mine, tombstones, null);
        };
    }

    /** Another cluster's Nodes, as read (a saved dump or a live read). */
    public static HandoverReading.Other other(String name, boolean destination, ClusterState state) {
        return new HandoverReading.Other(name, destination, state.nodes(), null);
    }

    /** The SilencePlan this hand-over keeps (for commands that only expire). */
    public static SilencePlan plan(NodeHandover h) {
        return SilencePlan.of(h);
    }
}
