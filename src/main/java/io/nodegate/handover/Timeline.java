package io.nodegate.handover;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A hand-over as a timeline per target node, the picture seed 000's author drew by hand from three chat threads:
 * cordon, Lease stop, the owner's reply and stated removal time, gate, DELETE, both verify-gone runs, first seen in
 * the destination, each violation; and one lane for the silences (created, vanished, re-created, expired). Built
 * from what the NodeHandover recorded (its steps' evidence and its status). Pure.
 */
public final class Timeline {

    /** Kinds of events, as the page colours them. */
    public static final String STEP = "step";
    public static final String CORDON = "cordon";
    public static final String LEASE = "lease-stop";
    public static final String REPLY = "reply";
    public static final String REMOVAL_TIME = "stated-removal";
    public static final String GATE = "gate";
    public static final String DELETE = "delete";
    public static final String VERIFY = "verify-gone";
    public static final String DESTINATION = "destination";
    public static final String SILENCE = "silence";
    public static final String VIOLATION = "violation";
    public static final String CLOSED = "closed";

    private Timeline() {
    }

    public record Event(Instant at, String kind, String label, String detail) {
    }

    /** The events of each target node (oldest first), and under {@code null} the hand-over's own (steps, silences). */
    public static Map<String, List<Event>> of(NodeHandover h) {
        Map<String, List<Event>> lanes = new LinkedHashMap<>();
        h.spec().nodes().forEach(n -> lanes.put(n, new ArrayList<>()));
        List<Event> common = new ArrayList<>();
        for (StepRecord s : h.spec().steps()) {
            common.add(new Event(s.at(), STEP, "step " + s.step() + " " + Step.of(s.step()).title(), "recorded by "
                    + s.by() + (s.message() == null ? "" : ": " + s.message())
                    + (s.override() == null ? "" : " (override: " + s.override() + ")")));
        }
        for (String node : h.spec().nodes()) {
            List<Event> lane = lanes.get(node);
            h.step(1).ifPresent(s -> lane.add(new Event(s.at(), CORDON, "cordoned, drained",
                    "step 1 recorded by " + s.by() + " (cordoned: " + s.value(StepRecord.perNode(HandoverChecks.CORDONED,
                            node)).orElse("not recorded") + ")")));
            h.step(2).ifPresent(s -> {
                lane.add(new Event(s.at(), REPLY, "owner's reply", "step 2 recorded by " + s.by()
                        + s.value(StepRecord.perNode(HandoverChecks.HOST_REPORT, node)).map(v -> "; host report " + v)
                        .orElse("")));
                s.value(StepRecord.perNode(HandoverChecks.REMOVED_AT, node)).flatMap(Timeline::time).ifPresent(t ->
                        lane.add(new Event(t, REMOVAL_TIME, "stated removal time", "the reply says RKE2 was removed "
                                + "(or the agent stopped) at " + t)));
            });
            h.step(3).ifPresent(s -> {
                s.value(StepRecord.perNode(HandoverChecks.LEASE_STOPPED, node)).flatMap(Timeline::time).ifPresent(t ->
                        lane.add(new Event(t, LEASE, "Lease stopped", "the Lease's last renewTime, as the gate read it")));
                // a gate overridden at `remove --override` records no time of its own: it was given with the DELETE
                // it authorised, so it stands at the DELETE (before it), not at step 3's recording, which came later
                Optional<Instant> deleted = s.value(StepRecord.perNode(HandoverChecks.REMOVAL, node))
                        .flatMap(Timeline::timeIn);
                s.value(StepRecord.perNode(HandoverChecks.GATE, node)).ifPresent(v -> lane.add(new Event(
                        timeIn(v).or(() -> deleted).orElse(s.at()), GATE, "gate " + v.split(" ", 2)[0], v)));
                s.value(StepRecord.perNode(HandoverChecks.REMOVAL, node)).ifPresent(v -> lane.add(new Event(
                        timeIn(v).orElse(s.at()), DELETE, "DELETE", "removal record: " + v)));
                s.value(HandoverChecks.VERIFY_GONE).ifPresent(v -> lane.add(new Event(timeIn(v).orElse(s.at()), VERIFY,
                        "verify-gone (1st) " + v.split(" ", 2)[0], v)));
            });
            h.step(5).ifPresent(s -> s.value(HandoverChecks.VERIFY_GONE).ifPresent(v -> lane.add(new Event(
                    timeIn(v).orElse(s.at()), VERIFY, "verify-gone (2nd) " + v.split(" ", 2)[0], v))));
        }
        HandoverStatus st = h.status();
        if (st != null) {
            for (HandoverStatus.Sighting x : st.sightings()) {
                List<Event> lane = lanes.get(x.node());
                if (lane == null) {
                    continue;
                }
                String where = x.name() + " in " + x.cluster();
                lane.add(new Event(x.firstSeenAt(), DESTINATION, Boolean.TRUE.equals(x.destination())
                        ? "first seen in the destination" : "first seen in " + x.cluster(), where + " (Node created "
                        + x.created() + ", Ready=" + x.ready() + "); nodegate first saw it at " + x.firstSeenAt()));
            }
            for (HandoverStatus.Violation v : st.violations()) {
                List<Event> lane = lanes.get(v.node());
                Event e = new Event(v.happenedAt() != null ? v.happenedAt() : v.firstSeenAt(), VIOLATION,
                        "violation: " + v.kind(), v.message() + " (first seen " + v.firstSeenAt() + ")");
                (lane == null ? common : lane).add(e);
            }
            for (HandoverStatus.HistoryEntry e : st.history()) {
                if (e.type() != null && e.type().startsWith("silence")) {
                    common.add(new Event(e.at(), SILENCE, e.type().replace("silence-", "silence "), e.message()));
                } else if ("closed".equals(e.type())) {
                    common.add(new Event(e.at(), CLOSED, "closed", e.message()));
                }
            }
        }
        Comparator<Event> order = Comparator.comparing(Event::at, Comparator.nullsLast(Comparator.naturalOrder()));
        lanes.values().forEach(l -> l.sort(order));
        common.sort(order);
        lanes.put(null, common);
        return lanes;
    }

    private static Optional<Instant> time(String text) {
        try {
            return Optional.of(Instant.parse(text.trim()));
        } catch (DateTimeParseException | NullPointerException e) {
            return Optional.empty();
        }
    }

    /** The first ISO-8601 instant in a recorded value ("PASS 2026-10-26T06:55:00Z sha256:…"). */
    static Optional<Instant> timeIn(String value) {
        for (String word : value.split("\\s+")) {
            Optional<Instant> t = time(word);
            if (t.isPresent()) {
                return t;
            }
        }
        return Optional.empty();
    }
}
