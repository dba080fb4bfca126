package io.nodegate.handover;

import io.nodegate.model.alertmanager.AmMatcher;
import io.nodegate.time.Durations;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The silence a hand-over keeps on every Alertmanager replica: matchers on the target nodes ({@code node=~"a|b"},
 * plus the extra matchers recorded at open), {@code createdBy: nodegate}, a comment naming the hand-over and its
 * ticket that ends in a marker with the NodeHandover's uid (how nodegate tells its own silence from everyone
 * else's), and an end {@link #duration} ahead, extended while the hand-over is open.
 *
 * @param targetAddresses each target node's InternalIPs: an alert whose {@code instance} is one of them names it
 */
public record SilencePlan(String handover, String uid, String ticket, List<String> nodes,
                          Map<String, List<String>> targetAddresses, List<AmMatcher> extraMatchers,
                          Duration duration) {

    public static final String CREATED_BY = "nodegate";
    public static final String NODE_LABEL = "node";
    public static final Duration DEFAULT_DURATION = Duration.ofHours(4);
    /**
     * The bounds of a planned silence (the CRD states the same): one of seconds would be re-created on every look,
     * one of weeks silences the targets long after the hand-over. It is extended while the hand-over is open.
     */
    public static final Duration MIN_DURATION = Duration.ofMinutes(1);
    public static final Duration MAX_DURATION = Duration.ofHours(168);
    /** Labels an alert may name a node in: kube-state-metrics' node, node-exporter's instance, and common others. */
    public static final List<String> NODE_LABELS = List.of("node", "instance", "nodename", "hostname", "kubernetes_node");

    public SilencePlan {
        nodes = List.copyOf(nodes);
        targetAddresses = targetAddresses == null ? Map.of() : new TreeMap<>(targetAddresses);
        extraMatchers = extraMatchers == null ? List.of() : List.copyOf(extraMatchers);
    }

    /** The plan recorded in a hand-over's spec. */
    public static SilencePlan of(NodeHandover h) {
        List<AmMatcher> extra = new ArrayList<>();
        String duration = null;
        if (h.spec().silence() != null) {
            h.spec().silence().matchers().forEach(m -> extra.add(AmMatcher.parse(m)));
            duration = h.spec().silence().duration();
        }
        Map<String, List<String>> addresses = new TreeMap<>();
        h.spec().targets().forEach(t -> addresses.put(t.node(), t.internalIps()));
        return new SilencePlan(h.name(), h.uid(), h.spec().ticket(), h.spec().nodes(), addresses, extra,
                duration == null ? DEFAULT_DURATION : bounded(Durations.parsePositive(duration,
                        "spec.silence.duration")));
    }

    /** A recorded length outside the bounds (written before the CRD bounded it) is taken at the nearest bound. */
    private static Duration bounded(Duration d) {
        return d.compareTo(MAX_DURATION) > 0 ? MAX_DURATION : d.compareTo(MIN_DURATION) < 0 ? MIN_DURATION : d;
    }

    /**
     * A length as the spec holds it: hours, minutes and seconds ({@code 4h}, {@code 1h30m}, {@code 168h}), the form
     * kube-apiserver's CEL {@code duration()} reads (it has no day unit) and nodegate reads back.
     */
    public static String specText(Duration d) {
        long s = d.toSeconds();
        String out = (s / 3600 > 0 ? s / 3600 + "h" : "") + (s % 3600 / 60 > 0 ? s % 3600 / 60 + "m" : "")
                + (s % 60 > 0 ? s % 60 + "s" : "");
        return out.isEmpty() ? "0s" : out;
    }

    /** What marks a silence as this hand-over's (the uid: a later hand-over of the same name is another one). */
    public String marker() {
        return "[nodegate-handover " + handover + " uid=" + uid + "]";
    }

    public String comment() {
        return "nodegate hand-over " + handover + (ticket == null || ticket.isBlank() ? "" : " (" + ticket + ")")
                + ": nodes " + String.join(", ", nodes) + ". Kept and extended while the hand-over is open; "
                + "`nodegate handover close " + handover + "` expires it. " + marker();
    }

    /** {@code node=~"gpu-a07|gpu-a08"} and the extra matchers, in that order. */
    public List<AmMatcher> matchers() {
        List<AmMatcher> out = new ArrayList<>();
        out.add(new AmMatcher(NODE_LABEL, String.join("|", nodes.stream().map(SilencePlan::quote).toList()), true,
                true));
        out.addAll(extraMatchers);
        return out;
    }

    /** A node name as a literal inside a regular expression (names may hold dots). */
    static String quote(String literal) {
        return literal.replaceAll("([\\\\.^$|?*+()\\[\\]{}])", "\\\\$1");
    }

    /**
     * The target an alert names, or null: a label of {@link #NODE_LABELS} equal to a target's name, or an
     * {@code instance} whose host part is the target's name or one of its InternalIPs. Only alerts that also match
     * the extra matchers count (they were given to keep other clusters' alerts out).
     */
    public String targetOf(Map<String, String> labels) {
        for (AmMatcher m : extraMatchers) {
            if (!m.matches(labels)) {
                return null;
            }
        }
        return namedNode(labels, nodes, targetAddresses);
    }

    /** The node one of an alert's node labels names among {@code nodes} (by name or address), or null. */
    static String namedNode(Map<String, String> labels, List<String> nodes, Map<String, List<String>> addresses) {
        for (String label : NODE_LABELS) {
            String v = labels.get(label);
            if (v == null || v.isEmpty()) {
                continue;
            }
            String host = "instance".equals(label) ? hostPart(v) : v;
            for (String node : nodes) {
                if (node.equals(host) || addresses.getOrDefault(node, List.of()).contains(host)) {
                    return node;
                }
            }
        }
        return null;
    }

    /** What an alert says its node is, for naming the other nodes of a group: node, else instance's host. */
    static String nodeOf(Map<String, String> labels) {
        for (String label : NODE_LABELS) {
            String v = labels.get(label);
            if (v != null && !v.isEmpty()) {
                return "instance".equals(label) ? hostPart(v) : v;
            }
        }
        return null;
    }

    static String hostPart(String instance) {
        if (instance.startsWith("[")) {
            int end = instance.indexOf(']');
            return end > 0 ? instance.substring(1, end) : instance;
        }
        int colon = instance.lastIndexOf(':');
        return colon > 0 && instance.indexOf(':') == colon ? instance.substring(0, colon) : instance;
    }

    public String durationText() {
        return Durations.format(duration);
    }
}
