package io.nodegate.handover.run;

import io.nodegate.CollectionException;
import io.nodegate.handover.HandoverReading;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.SilenceDecision;
import io.nodegate.handover.SilencePlan;
import io.nodegate.model.alertmanager.AmAlert;
import io.nodegate.model.alertmanager.AmGroup;
import io.nodegate.model.alertmanager.AmSilence;
import io.nodegate.model.alertmanager.AmStatus;
import io.nodegate.source.alertmanager.AlertmanagerClient;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Keeps a hand-over's silence on every Alertmanager replica, each read separately: replicas gossip silences, but
 * a partitioned replica keeps its own view and one restarted without its data (or all of them) has none. For each
 * replica: read its silences and status, decide ({@link SilenceDecision}), create, re-create or extend there, read
 * again to see it took; then read its alerts and groups, to check the effect rather than the record.
 *
 * <p>Creating on one replica gossips to the others within moments; before re-creating on the next replica its
 * silences are read again, so a pass that re-creates everywhere (every replica restarted without data) usually
 * leaves one silence, and at worst one per replica, all equally the hand-over's.
 */
public final class SilenceKeeper {

    /**
     * How long a replica is given to receive, by gossip, a silence just created on another one before it gets one of
     * its own (memberlist gossips every 200 ms by default; a partitioned replica never receives it).
     */
    public static final Duration GOSSIP_WAIT = Duration.ofSeconds(2);

    private final Function<String, AlertmanagerClient> clients;
    private final Clock clock;
    private final Duration gossipWait;

    public SilenceKeeper(Duration timeout, Clock clock) {
        this(url -> AlertmanagerClient.of(url, timeout), clock, GOSSIP_WAIT);
    }

    SilenceKeeper(Function<String, AlertmanagerClient> clients, Clock clock, Duration gossipWait) {
        this.clients = clients;
        this.clock = clock;
        this.gossipWait = gossipWait;
    }

    /**
     * Reads every replica, keeps the silence on each (unless {@code act} is false: an offline look only reads), and
     * checks the effect.
     *
     * @param known replicas that held the silence before (the status's earlier rows): a silence missing there
     *              vanished; on any other replica it is created for the first time
     */
    public HandoverReading.SilenceReport keep(SilencePlan plan, List<String> urls, Set<String> known, boolean act) {
        List<HandoverStatus.HistoryEntry> events = new ArrayList<>();
        List<SilenceDecision.Replica> replicas = new ArrayList<>();
        List<SilenceDecision.ReplicaRead> reads = new ArrayList<>();
        boolean createdSomewhere = false;
        for (String url : urls) {
            AlertmanagerClient am = clients.apply(url);
            SilenceDecision.ReplicaRead read = readSilences(am);
            SilenceDecision.Replica replica = SilenceDecision.assess(read, plan, clock.instant());
            // the silence just created on another replica reaches this one by gossip when they are peered
            long waitUntil = System.nanoTime() + gossipWait.toNanos();
            while (act && (replica.action() == SilenceDecision.Action.CREATE
                    || SilenceDecision.WIDENED.equals(replica.state())) && createdSomewhere
                    && System.nanoTime() < waitUntil && !Thread.currentThread().isInterrupted()) {
                pause();
                read = readSilences(am);
                replica = SilenceDecision.assess(read, plan, clock.instant());
            }
            if (act && (replica.action() != SilenceDecision.Action.NONE || !replica.widened().isEmpty())) {
                try {
                    replica = act(am, plan, replica, known.contains(am.url()), events);
                    createdSomewhere |= replica.action() == SilenceDecision.Action.CREATE
                            || !replica.widened().isEmpty();
                } catch (CollectionException e) {
                    replica = new SilenceDecision.Replica(am.url(), SilenceDecision.UNREADABLE, List.of(),
                            replica.ours(), SilenceDecision.Action.NONE, null, null, "not kept: " + e.getMessage());
                }
            }
            replicas.add(replica);
            reads.add(readAlerts(am, read));
        }
        Map<String, List<String>> effective = new LinkedHashMap<>();
        replicas.forEach(r -> effective.put(r.url(), r.effective()));
        return new HandoverReading.SilenceReport(replicas, SilenceDecision.unsilenced(reads, plan, effective),
                SilenceDecision.mixedGroups(reads, plan), SilenceDecision.peering(reads), events);
    }

    /** Does what the decision said on one replica, then reads it again: the state after, as the replica says. */
    private SilenceDecision.Replica act(AlertmanagerClient am, SilencePlan plan, SilenceDecision.Replica before,
                                        boolean known, List<HandoverStatus.HistoryEntry> events) {
        Instant now = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        Instant end = now.plus(plan.duration());
        for (AmSilence w : before.widened()) {
            am.expire(w.id());
            events.add(new HandoverStatus.HistoryEntry(now, "silence-widened", null, "silence " + w.id() + " on "
                    + am.url() + " carries this hand-over's marker but covers more than its targets ("
                    + SilenceDecision.widening(w, plan, clock.instant()) + "): expired"));
        }
        String id = null;
        if (before.action() == SilenceDecision.Action.NONE) {
            // only widened silences to expire: the planned one is in force
        } else if (before.action() == SilenceDecision.Action.EXTEND) {
            AmSilence s = before.extend();
            id = am.post(new AlertmanagerClient.PostableSilence(s.id(), plan.matchers(), s.startsAt(), end,
                    SilencePlan.CREATED_BY, plan.comment()));
            events.add(new HandoverStatus.HistoryEntry(now, "silence-extended", null, "silence " + id + " on "
                    + am.url() + " extended to " + end));
        } else {
            id = am.post(new AlertmanagerClient.PostableSilence(null, plan.matchers(), now, end,
                    SilencePlan.CREATED_BY, plan.comment()));
            if (SilenceDecision.MISSING.equals(before.state()) && !known) {
                events.add(new HandoverStatus.HistoryEntry(now, "silence-created", null, "silence " + id
                        + " created on " + am.url() + " (" + String.join(", ", plan.matchers().stream()
                        .map(Object::toString).toList()) + ", until " + end + ")"));
            } else {
                if (before.widened().isEmpty()) {
                    events.add(new HandoverStatus.HistoryEntry(now, "silence-vanished", null, "the hand-over's "
                            + "silence on " + am.url() + " is " + before.state() + ": " + before.detail()));
                }
                events.add(new HandoverStatus.HistoryEntry(now, "silence-recreated", null, "silence re-created on "
                        + am.url() + " as " + id + " (until " + end + ")"));
            }
        }
        SilenceDecision.Replica after = SilenceDecision.assess(readSilences(am), plan, clock.instant());
        if (!before.widened().isEmpty()) {
            // the look that found a widened silence does not pass, whatever the replica holds now
            return new SilenceDecision.Replica(am.url(), SilenceDecision.WIDENED, after.effective(), after.ours(),
                    before.action(), null, after.endsAt(), before.detail() + "; read after: " + after.state() + ": "
                    + after.detail(), before.widened());
        }
        if (!SilenceDecision.OK.equals(after.state())) {
            return new SilenceDecision.Replica(am.url(), after.state(), after.effective(), after.ours(),
                    before.action(), null, after.endsAt(), "posted silence " + id + ", but a read right after shows "
                    + after.state() + ": " + after.detail());
        }
        return new SilenceDecision.Replica(am.url(), SilenceDecision.OK, after.effective(), after.ours(),
                before.action(), null, after.endsAt(), (before.action() == SilenceDecision.Action.EXTEND
                ? "extended: " : SilenceDecision.MISSING.equals(before.state()) && !known
                ? "created (none there before): "
                : "re-created (was " + before.state() + "): ") + after.detail());
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static SilenceDecision.ReplicaRead readSilences(AlertmanagerClient am) {
        try {
            List<AmSilence> silences = am.silences();
            AmStatus status = am.status();
            return new SilenceDecision.ReplicaRead(am.url(), silences, null, null, status, null);
        } catch (CollectionException e) {
            return SilenceDecision.ReplicaRead.failed(am.url(), e.getMessage());
        }
    }

    /** The replica's alerts and groups, read after its silence was kept (Alertmanager computes their state per GET). */
    private static SilenceDecision.ReplicaRead readAlerts(AlertmanagerClient am, SilenceDecision.ReplicaRead read) {
        if (read.error() != null) {
            return read;
        }
        try {
            List<AmAlert> alerts = am.alerts();
            List<AmGroup> groups = am.groups();
            return new SilenceDecision.ReplicaRead(am.url(), read.silences(), alerts, groups, read.status(), null);
        } catch (CollectionException e) {
            return SilenceDecision.ReplicaRead.failed(am.url(), e.getMessage());
        }
    }

    /**
     * Expires the hand-over's silences on every replica (only those carrying its marker: anyone else's silence,
     * even on the same nodes, is left alone). Each replica is read first: one already expired by gossip is not
     * asked again.
     *
     * @return what was expired, and the replicas that could not be read or written
     */
    public record Expired(List<HandoverStatus.HistoryEntry> events, List<String> errors,
                          List<HandoverStatus.SilenceRow> rows) {
    }

    /** Also each replica's row as the close left it: the record's silence rows then say what the close did. */
    public Expired expireAll(SilencePlan plan, List<String> urls) {
        List<HandoverStatus.HistoryEntry> events = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        List<HandoverStatus.SilenceRow> rows = new ArrayList<>();
        for (String url : urls) {
            AlertmanagerClient am = clients.apply(url);
            List<String> ids = new ArrayList<>();
            Instant at = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
            try {
                for (AmSilence s : SilenceDecision.toExpire(new SilenceDecision.ReplicaRead(am.url(), am.silences(),
                        null, null, null, null), plan)) {
                    am.expire(s.id());
                    ids.add(s.id());
                    events.add(new HandoverStatus.HistoryEntry(clock.instant().truncatedTo(
                            java.time.temporal.ChronoUnit.SECONDS), "silence-expired", null, "silence " + s.id()
                            + " on " + am.url() + " expired (hand-over closed)"));
                }
                rows.add(new HandoverStatus.SilenceRow(am.url(), SilenceDecision.EXPIRED, List.of(), at, ids.isEmpty()
                        ? "closed: none of the hand-over's silences was active here (read at " + at + ")"
                        : "closed: " + String.join(", ", ids) + " expired at " + at));
            } catch (CollectionException e) {
                errors.add(e.getMessage());
                rows.add(new HandoverStatus.SilenceRow(am.url(), SilenceDecision.UNREADABLE, List.of(), null,
                        "closed, but " + (ids.isEmpty() ? "" : String.join(", ", ids) + " expired and then ")
                                + "not expired everywhere here: " + e.getMessage()));
            }
        }
        return new Expired(events, errors, rows);
    }
}
