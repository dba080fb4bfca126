package io.nodegate.handover;

import io.nodegate.model.alertmanager.AmAlert;
import io.nodegate.model.alertmanager.AmGroup;
import io.nodegate.model.alertmanager.AmMatcher;
import io.nodegate.model.alertmanager.AmSilence;
import io.nodegate.model.alertmanager.AmStatus;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What each Alertmanager replica says about the hand-over's silence, and what to do about it: pure, over what was
 * read from each replica separately (seed 000: "a silence set during the work vanished before it expired (cause
 * unknown)"; "re-read that a silence exists, apart from the record that it was set").
 *
 * <p>A silence that carries the hand-over's marker but covers more than the plan (matchers that can match a node
 * that is not a target, or that drop one of the extra matchers, or an end later than the planned length from now) is
 * widened: it silences nodes nobody handed over. It is expired on that replica and the planned one kept; the
 * replica's state says widened for the look that found it, so step 1 does not pass on that look.
 *
 * <p>A replica is fine when it holds at least one of the hand-over's silences (see {@link SilencePlan#marker()})
 * that is active, has exactly the planned matchers and ends in the future. Otherwise it is missing, expired early
 * (someone expired it: its end is its last update), expired (it ran out: nobody extended it in time), changed (its
 * matchers are not the planned ones), or pending; in each case it is re-created on that replica. One that ends
 * within half the silence's length is extended.
 *
 * <p>Then the effect, not the record: every firing alert that names a target node must be suppressed by one of the
 * hand-over's silences, and a notification group that holds target alerts together with other nodes' active alerts
 * ({@code group_by: [alertname]}) is reported, because its receiver keeps getting it however many targets are
 * silenced.
 */
public final class SilenceDecision {

    /** The replica's silence is in force. */
    public static final String OK = "ok";
    public static final String MISSING = "missing";
    public static final String EXPIRED_EARLY = "expired-early";
    public static final String EXPIRED = "expired";
    public static final String CHANGED = "changed";
    public static final String PENDING = "pending";
    public static final String UNREADABLE = "unreadable";
    public static final String WIDENED = "widened";

    /**
     * How much later than now plus the planned length a silence may end before it counts as widened: the clock of
     * the machine that set it (a laptop, the watch's node) may run ahead of the one looking.
     */
    public static final Duration END_SLACK = Duration.ofMinutes(2);

    private SilenceDecision() {
    }

    /** What was read from one replica; {@code error} set when any of its reads failed (then nothing else counts). */
    public record ReplicaRead(String url, List<AmSilence> silences, List<AmAlert> alerts, List<AmGroup> groups,
                              AmStatus status, String error) {
        public ReplicaRead {
            silences = silences == null ? List.of() : List.copyOf(silences);
            alerts = alerts == null ? List.of() : List.copyOf(alerts);
            groups = groups == null ? List.of() : List.copyOf(groups);
        }

        public static ReplicaRead failed(String url, String error) {
            return new ReplicaRead(url, null, null, null, null, error);
        }
    }

    public enum Action { NONE, CREATE, EXTEND }

    /**
     * @param state      {@link #OK}, {@link #MISSING}, {@link #EXPIRED_EARLY}, {@link #EXPIRED}, {@link #CHANGED},
     *                   {@link #PENDING} or {@link #UNREADABLE}
     * @param effective  the ids of the hand-over's silences in force on this replica
     * @param ours       every silence of the hand-over this replica holds, in force or not
     * @param action     what to do on this replica
     * @param extend     the silence to extend (action EXTEND)
     * @param detail     what was seen, in words
     * @param widened    the hand-over's silences on this replica that cover more than the plan (to expire)
     */
    public record Replica(String url, String state, List<String> effective, List<AmSilence> ours, Action action,
                          AmSilence extend, Instant endsAt, String detail, List<AmSilence> widened) {
        public Replica {
            effective = List.copyOf(effective);
            ours = List.copyOf(ours);
            widened = widened == null ? List.of() : List.copyOf(widened);
        }

        public Replica(String url, String state, List<String> effective, List<AmSilence> ours, Action action,
                       AmSilence extend, Instant endsAt, String detail) {
            this(url, state, effective, ours, action, extend, endsAt, detail, List.of());
        }
    }

    /** Whether a silence is the hand-over's (nodegate made it, and its comment carries the hand-over's marker). */
    public static boolean ours(AmSilence s, SilencePlan plan) {
        return SilencePlan.CREATED_BY.equals(s.createdBy()) && s.comment() != null
                && s.comment().contains(plan.marker());
    }

    static boolean sameMatchers(List<AmMatcher> actual, List<AmMatcher> planned) {
        if (actual.size() != planned.size()) {
            return false;
        }
        List<AmMatcher> left = new ArrayList<>(planned);
        for (AmMatcher a : actual) {
            AmMatcher hit = left.stream().filter(a::sameAs).findFirst().orElse(null);
            if (hit == null) {
                return false;
            }
            left.remove(hit);
        }
        return true;
    }

    /**
     * Why a silence of the hand-over covers more than the plan, or null when it does not: it is not expired, and its
     * matchers can match an alert the planned ones cannot, or it ends later than the planned length from now.
     */
    public static String widening(AmSilence s, SilencePlan plan, Instant now) {
        if (AmSilence.EXPIRED.equals(s.state())) {
            return null;
        }
        List<String> why = new ArrayList<>();
        if (!within(s.matchers(), plan)) {
            why.add("its matchers " + s.matchers() + " can match more than the planned " + plan.matchers());
        }
        Instant latest = now.plus(plan.duration()).plus(END_SLACK);
        if (s.endsAt() != null && s.endsAt().isAfter(latest)) {
            why.add("it ends at " + s.endsAt() + ", later than the planned " + plan.durationText() + " from now");
        }
        return why.isEmpty() ? null : String.join(", and ", why);
    }

    /**
     * Whether a silence with these matchers silences nothing the planned silence does not: every planned matcher is
     * there unchanged, except that the node matcher may name fewer of the targets (as {@code node="a"} or
     * {@code node=~"a|b"} of literal names). More matchers only narrow a silence.
     */
    static boolean within(List<AmMatcher> actual, SilencePlan plan) {
        List<AmMatcher> planned = plan.matchers();
        for (int i = 0; i < planned.size(); i++) {
            AmMatcher p = planned.get(i);
            boolean node = i == 0;
            boolean covered = actual.stream().anyMatch(a -> a.sameAs(p)
                    || node && a.name().equals(p.name()) && a.equal() && namesOnlyTargets(a, plan.nodes()));
            if (!covered) {
                return false;
            }
        }
        return true;
    }

    /** A positive matcher whose values are literal names, all of them targets. */
    private static boolean namesOnlyTargets(AmMatcher m, List<String> targets) {
        if (!m.isRegex()) {
            return targets.contains(m.value());
        }
        List<String> names = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        String v = m.value();
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '\\' && i + 1 < v.length()) {
                char next = v.charAt(++i);
                if (Character.isLetterOrDigit(next)) {
                    return false; // \d, \w and the like are classes, not literals
                }
                cur.append(next);
            } else if (c == '|') {
                names.add(cur.toString());
                cur.setLength(0);
            } else if (".^$?*+()[]{}".indexOf(c) >= 0) {
                return false;
            } else {
                cur.append(c);
            }
        }
        names.add(cur.toString());
        return targets.containsAll(names);
    }

    /** One replica's state and action, while the hand-over is open. */
    public static Replica assess(ReplicaRead read, SilencePlan plan, Instant now) {
        if (read.error() != null) {
            return new Replica(read.url(), UNREADABLE, List.of(), List.of(), Action.NONE, null, null,
                    "not read: " + read.error());
        }
        List<AmSilence> widened = read.silences().stream().filter(s -> ours(s, plan)
                && widening(s, plan, now) != null).toList();
        if (widened.isEmpty()) {
            return assessPlanned(read, plan, now);
        }
        // what the replica holds once the widened silences are expired
        List<AmSilence> rest = read.silences().stream().filter(s -> !widened.contains(s)).toList();
        Replica planned = assessPlanned(new ReplicaRead(read.url(), rest, read.alerts(), read.groups(),
                read.status(), null), plan, now);
        String what = String.join("; ", widened.stream().map(s -> "silence " + s.id() + " carries this hand-over's "
                + "marker but covers more than its targets: " + widening(s, plan, now)).toList());
        return new Replica(read.url(), WIDENED, planned.effective(), planned.ours(), planned.action(),
                planned.extend(), planned.endsAt(), what + " (it silences nodes nobody handed over: expired, and the "
                + "planned silence kept; " + planned.state() + ": " + planned.detail() + ")", widened);
    }

    private static Replica assessPlanned(ReplicaRead read, SilencePlan plan, Instant now) {
        List<AmSilence> ours = read.silences().stream().filter(s -> ours(s, plan))
                .sorted(Comparator.comparing(AmSilence::endsAt, Comparator.nullsFirst(Comparator.naturalOrder())))
                .toList();
        List<AmMatcher> planned = plan.matchers();
        List<AmSilence> inForce = ours.stream().filter(s -> AmSilence.ACTIVE.equals(s.state())
                && sameMatchers(s.matchers(), planned) && s.endsAt() != null && s.endsAt().isAfter(now)).toList();
        if (!inForce.isEmpty()) {
            AmSilence latest = inForce.get(inForce.size() - 1);
            List<String> ids = inForce.stream().map(AmSilence::id).toList();
            Duration left = Duration.between(now, latest.endsAt());
            boolean extend = left.compareTo(plan.duration().dividedBy(2)) < 0;
            return new Replica(read.url(), OK, ids, ours, extend ? Action.EXTEND : Action.NONE,
                    extend ? latest : null, latest.endsAt(), "silence " + latest.id() + " active until "
                    + latest.endsAt() + (extend ? " (extended: less than half of " + plan.durationText() + " left)" : ""));
        }
        AmSilence changed = ours.stream().filter(s -> !AmSilence.EXPIRED.equals(s.state())
                && !sameMatchers(s.matchers(), planned)).findFirst().orElse(null);
        if (changed != null) {
            return new Replica(read.url(), CHANGED, List.of(), ours, Action.CREATE, null, null, "silence "
                    + changed.id() + " carries this hand-over's marker but its matchers are " + changed.matchers()
                    + ", not " + planned + ": re-created with the planned matchers");
        }
        AmSilence pending = ours.stream().filter(s -> AmSilence.PENDING.equals(s.state())).findFirst().orElse(null);
        if (pending != null) {
            return new Replica(read.url(), PENDING, List.of(), ours, Action.NONE, null, pending.endsAt(),
                    "silence " + pending.id() + " starts only at " + pending.startsAt() + " (is this replica's clock "
                    + "behind?)");
        }
        AmSilence byHand = ours.stream().filter(AmSilence::expiredByHand).reduce((a, b) -> b).orElse(null);
        if (byHand != null) {
            return new Replica(read.url(), EXPIRED_EARLY, List.of(), ours, Action.CREATE, null, null, "silence "
                    + byHand.id() + " was expired at " + byHand.endsAt() + " while the hand-over is open: re-created");
        }
        if (!ours.isEmpty()) {
            AmSilence last = ours.get(ours.size() - 1);
            return new Replica(read.url(), EXPIRED, List.of(), ours, Action.CREATE, null, null, "silence " + last.id()
                    + " ran out at " + last.endsAt() + " (nothing extended it in time): re-created");
        }
        return new Replica(read.url(), MISSING, List.of(), ours, Action.CREATE, null, null,
                "no silence of this hand-over on this replica (restarted without its data, or partitioned when it was"
                        + " set?): re-created");
    }

    /** The silences of the hand-over to expire on one replica when it closes: every one not expired yet. */
    public static List<AmSilence> toExpire(ReplicaRead read, SilencePlan plan) {
        return read.silences().stream().filter(s -> ours(s, plan) && !AmSilence.EXPIRED.equals(s.state())).toList();
    }

    /** An alert naming a target, on the replicas that hold it, unsilenced or silenced by something else. */
    public record Unsilenced(String node, String state, Map<String, String> labels, List<String> alertmanagers,
                             String detail) {
    }

    /** A group that notifies whatever is silenced: target alerts together with other nodes' active alerts. */
    public record MixedGroup(Map<String, String> labels, String receiver, List<String> groupBy,
                             List<String> targets, List<String> otherNodes, List<String> alertmanagers) {
    }

    /**
     * Target alerts not suppressed by the hand-over's silences, over every readable replica (each replica has its
     * own alerts: Prometheus sends to each). An alert still unprocessed is not judged yet.
     *
     * @param effective per replica URL, the ids of the hand-over's silences in force there
     */
    public static List<Unsilenced> unsilenced(List<ReplicaRead> reads, SilencePlan plan,
                                              Map<String, List<String>> effective) {
        Map<String, Unsilenced> byKey = new LinkedHashMap<>();
        for (ReplicaRead read : reads) {
            if (read.error() != null) {
                continue;
            }
            List<String> ourIds = effective.getOrDefault(read.url(), List.of());
            for (AmAlert a : read.alerts()) {
                String node = plan.targetOf(a.labels());
                if (node == null || AmAlert.UNPROCESSED.equals(a.state())) {
                    continue;
                }
                boolean byUs = a.silencedBy().stream().anyMatch(ourIds::contains);
                if (AmAlert.SUPPRESSED.equals(a.state()) && byUs) {
                    continue;
                }
                String detail = AmAlert.ACTIVE.equals(a.state())
                        ? "fires unsilenced: the hand-over's silence does not match it"
                        : "suppressed, but not by the hand-over's silence (silencedBy " + a.silencedBy()
                        + ", inhibitedBy " + a.status().inhibitedBy() + "): when that ends, it notifies";
                String key = new TreeMap<>(a.labels()).toString() + "|" + a.state();
                Unsilenced prev = byKey.get(key);
                List<String> ams = new ArrayList<>(prev == null ? List.of() : prev.alertmanagers());
                ams.add(read.url());
                byKey.put(key, new Unsilenced(node, a.state(), new TreeMap<>(a.labels()), ams, detail));
            }
        }
        return List.copyOf(byKey.values());
    }

    /**
     * Groups whose receiver keeps getting notified: at least one alert naming a target and at least one active
     * alert that names no target. group_by comes from the replica's configuration (the route the group's first
     * alert lands on, when its receiver is the group's), else from the group's labels.
     */
    public static List<MixedGroup> mixedGroups(List<ReplicaRead> reads, SilencePlan plan) {
        Map<String, MixedGroup> byKey = new LinkedHashMap<>();
        for (ReplicaRead read : reads) {
            if (read.error() != null) {
                continue;
            }
            String config = read.status() == null || read.status().config() == null ? null
                    : read.status().config().original();
            // a group's alerts carry the state of the dispatcher's last look; /api/v2/alerts computes it per GET
            Map<String, AmAlert> now = new LinkedHashMap<>();
            read.alerts().forEach(a -> now.put(a.fingerprint(), a));
            List<String> ourIds = read.silences().stream().filter(s -> ours(s, plan)).map(AmSilence::id).toList();
            for (AmGroup g : read.groups()) {
                TreeSet<String> targets = new TreeSet<>();
                TreeSet<String> others = new TreeSet<>();
                AmAlert first = null;
                for (AmAlert a : g.alerts()) {
                    String node = plan.targetOf(a.labels());
                    if (node != null) {
                        targets.add(node);
                        first = first == null ? a : first;
                    } else {
                        AmAlert current = now.getOrDefault(a.fingerprint(), a);
                        // an alert of another node that the hand-over's own silence suppresses counts too: that
                        // silence covers more than the targets, and the node's trouble goes unseen
                        boolean byUs = AmAlert.SUPPRESSED.equals(current.state())
                                && current.silencedBy().stream().anyMatch(ourIds::contains);
                        if (AmAlert.ACTIVE.equals(current.state()) || byUs) {
                            String other = SilencePlan.nodeOf(a.labels());
                            others.add((other == null ? "(an alert without a node label: " + a.labels().getOrDefault(
                                    "alertname", "?") + ")" : other) + (byUs ? " (suppressed by this hand-over's "
                                    + "silence)" : ""));
                        }
                    }
                }
                if (targets.isEmpty() || others.isEmpty()) {
                    continue;
                }
                AlertRoutes.Landing landing = AlertRoutes.landing(config, first.labels());
                List<String> groupBy = landing != null && landing.groupBy() != null
                        && java.util.Objects.equals(landing.receiver(), g.receiverName())
                        ? landing.groupBy() : List.copyOf(new TreeSet<>(g.labels().keySet()));
                String key = g.receiverName() + "|" + new TreeMap<>(g.labels());
                MixedGroup prev = byKey.get(key);
                List<String> ams = new ArrayList<>(prev == null ? List.of() : prev.alertmanagers());
                ams.add(read.url());
                TreeSet<String> allTargets = new TreeSet<>(targets);
                TreeSet<String> allOthers = new TreeSet<>(others);
                if (prev != null) {
                    allTargets.addAll(prev.targets());
                    allOthers.addAll(prev.otherNodes());
                }
                byKey.put(key, new MixedGroup(new TreeMap<>(g.labels()), g.receiverName(), groupBy,
                        List.copyOf(allTargets), List.copyOf(allOthers), ams));
            }
        }
        return List.copyOf(byKey.values());
    }

    /**
     * Replicas that do not gossip with each other, in words: each replica's cluster members (itself and its peers,
     * GET /api/v2/status) are compared, and a replica whose set differs from the largest one is named. A silence
     * set on one side of such a split never reaches the other.
     */
    public static List<String> peering(List<ReplicaRead> reads) {
        Map<List<String>, List<String>> bySet = new LinkedHashMap<>();
        for (ReplicaRead read : reads) {
            if (read.error() != null || read.status() == null) {
                continue;
            }
            bySet.computeIfAbsent(read.status().memberNames(), k -> new ArrayList<>()).add(read.url());
        }
        if (bySet.size() < 2) {
            return List.of();
        }
        List<Map.Entry<List<String>, List<String>>> sets = new ArrayList<>(bySet.entrySet());
        sets.sort(Comparator.comparing((Map.Entry<List<String>, List<String>> e) -> -e.getValue().size()));
        List<String> main = sets.get(0).getValue();
        List<String> out = new ArrayList<>();
        for (int i = 1; i < sets.size(); i++) {
            var e = sets.get(i);
            out.add(String.join(", ", e.getValue()) + " " + (e.getValue().size() == 1 ? "is" : "are")
                    + " not peered with " + String.join(", ", main) + ": " + (e.getValue().size() == 1 ? "it gossips"
                    : "they gossip") + " with " + e.getKey().size() + " member(s) " + e.getKey() + " and not with the "
                    + sets.get(0).getKey().size() + " of the others, so a silence set on one side never reaches the"
                    + " other");
        }
        return out;
    }
}
