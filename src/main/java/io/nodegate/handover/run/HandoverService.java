package io.nodegate.handover.run;

import io.nodegate.CollectionException;
import io.nodegate.ExitCode;
import io.nodegate.InputException;
import io.nodegate.NodegateException;
import io.nodegate.RefusedException;
import io.nodegate.handover.HandoverChecks;
import io.nodegate.handover.HandoverReading;
import io.nodegate.handover.HandoverSpec;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.NodeHandover;
import io.nodegate.handover.StatusBuilder;
import io.nodegate.handover.Step;
import io.nodegate.handover.StepCheck;
import io.nodegate.handover.StepEvidence;
import io.nodegate.handover.StepRecord;
import io.nodegate.handover.Violations;
import io.nodegate.model.Gpu;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.NodeInfo;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The hand-over's commands: open, record a step, look (status), close. Each look collects ({@link HandoverLooker}),
 * decides ({@link HandoverChecks}, {@link Violations}) and records (the status subresource); a step is recorded only
 * when its checks pass, or over them with a person's stated reason. Every write carries the resourceVersion it
 * was computed from: on a conflict the object is read again and the change re-applied, or refused when someone
 * else recorded the same step meanwhile.
 */
public final class HandoverService {

    /** How many times a write is re-tried after losing a race before giving up. */
    static final int ATTEMPTS = 5;

    private final HandoverApi api;
    private final Clock clock;

    public HandoverService(HandoverApi api, Clock clock) {
        this.api = api;
        this.clock = clock;
    }

    /** What a command did: the hand-over as written, what was read and decided, and notes for the person. */
    public record Result(NodeHandover handover, HandoverReading reading, List<StepCheck> checks,
                         List<Violations.Seen> violations, List<String> notes) {
        public Result {
            checks = checks == null ? List.of() : List.copyOf(checks);
            violations = violations == null ? List.of() : List.copyOf(violations);
            notes = notes == null ? List.of() : List.copyOf(notes);
        }
    }

    /** What `handover open` was asked. */
    public record OpenRequest(String name, List<String> nodes, io.nodegate.handover.HandoverType type,
                              HandoverSpec.Destination destination, String due, String requester, String ticket,
                              List<String> alertmanagers, HandoverSpec.SilenceSpec silence, String note) {
    }

    public NodeHandover get(String name) {
        return api.get(name).orElseThrow(() -> new RefusedException("no NodeHandover " + name + " on "
                + api.reader().server() + " (kubectl get nodehandovers lists them)"));
    }

    /**
     * Records step 0: reads every target (each must exist: NotFound refuses the hand-over), keeps its identity,
     * creates the NodeHandover, keeps the silence on the Alertmanagers given, and writes the first status.
     */
    public Result open(OpenRequest req, HandoverLooker looker, String observedBy) {
        HandoverReading.Giving giving = looker.giving().read(req.nodes());
        if (giving.error() != null) {
            throw new CollectionException("reading " + giving.name() + ": " + giving.error() + "; nothing was recorded");
        }
        List<String> missing = req.nodes().stream().filter(n -> giving.node(n) == null).toList();
        if (!missing.isEmpty()) {
            throw new RefusedException("no Node " + String.join(", ", missing) + " in " + giving.name()
                    + " (NotFound): a hand-over's targets must exist; nothing was recorded");
        }
        List<HandoverSpec.Target> targets = new ArrayList<>();
        for (String n : req.nodes()) {
            targets.add(identity(giving.node(n)));
        }
        Instant now = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        List<StepRecord.Evidence> ev = new ArrayList<>();
        if (req.ticket() != null) {
            ev.add(new StepRecord.Evidence(HandoverChecks.TICKET, req.ticket()));
        }
        StepRecord zero = new StepRecord(0, req.requester(), now, req.note(), null, ev);
        HandoverSpec spec = new HandoverSpec(req.nodes(), req.type(), req.destination(), req.due(), req.requester(),
                req.ticket(), req.alertmanagers(), req.silence(), targets, List.of(zero), null);
        NodeHandover created = api.create(NodeHandover.create(req.name(), spec));
        created = writeHistory(created, List.of(new HandoverStatus.HistoryEntry(now, "step", null, "step 0 (request) "
                + "recorded by " + req.requester())));
        return look(created, looker, List.of(), true, observedBy);
    }

    /** A target's identity as the giving cluster shows it now. */
    static HandoverSpec.Target identity(NodeInfo n) {
        long gpus;
        try {
            gpus = Gpu.capacity(n).values().stream().mapToLong(Long::longValue).sum();
        } catch (RuntimeException e) {
            gpus = 0;
        }
        return new HandoverSpec.Target(n.name(), n.uid(), n.systemInfo().systemUuid(), n.systemInfo().machineId(),
                n.internalIps(), n.systemInfo().bootId(), List.copyOf(n.roles()),
                n.taints().stream().map(Object::toString).toList(), gpus, n.systemInfo().kubeletVersion(),
                n.isServer() ? Boolean.TRUE : null);
    }

    /**
     * Records one step's done. Refused (nothing recorded) when it is not the next step, when the hand-over is
     * closed, when a read failed (INVALID), or when the step's checks hold or fail and no override was given.
     *
     * @param claim   what the person records (step, by, at, message, the evidence they give, override reason)
     * @param reports host reports given with the step (step 2), judged
     */
    public Result record(String name, StepRecord claim, List<HandoverReading.HostReportSeen> reports,
                         HandoverLooker looker, String observedBy) {
        return record(name, claim, reports, List.of(), looker, observedBy);
    }

    /**
     * @param alertmanagers replicas to record with step 1 when open named none ("open, or step 1, creates one
     *                      silence per hand-over"): later looks and the watch keep the silence there
     */
    public Result record(String name, StepRecord claim, List<HandoverReading.HostReportSeen> reports,
                         List<String> alertmanagers, HandoverLooker looker, String observedBy) {
        NodeHandover h = get(name);
        requireNext(h, claim.step());
        HandoverReading reading = looker.look(h, reports);
        List<StepCheck> checks = HandoverChecks.check(Step.of(claim.step()), h, claim, reading);
        Verdict verdict = StepCheck.worst(checks);
        StatusBuilder.Look look = StatusBuilder.look(h, reading, observedBy);
        if (verdict == Verdict.INVALID || (verdict != Verdict.PASS && claim.override() == null)) {
            NodeHandover written = writeStatus(h, look);
            String why = String.join("; ", checks.stream().filter(c -> c.outcome() != Verdict.PASS
                            && c.outcome() != Verdict.NOT_CHECKED)
                    .flatMap(c -> c.check().reasons().stream().map(r -> (c.node() == null ? "" : c.node() + ": ") + r))
                    .limit(12).toList());
            throw new StepRefused(verdict, "step " + claim.step() + " (" + Step.of(claim.step()).title()
                    + ") of " + name + " was not recorded: its checks say " + verdict + (why.isEmpty() ? "" : ": " + why)
                    + (verdict == Verdict.INVALID ? "" : ". Record it over them only as a stated human decision: "
                    + "--override 'WHO: WHY'"), new Result(written, reading, checks, look.violations(), List.of()));
        }
        StepRecord record = StepEvidence.complete(claim, checks, reading);
        NodeHandover recorded = writeStep(h, record, alertmanagers);
        List<HandoverStatus.HistoryEntry> history = new ArrayList<>();
        history.add(new HandoverStatus.HistoryEntry(record.at(), "step", null, "step " + record.step() + " ("
                + Step.of(record.step()).title() + ") recorded by " + record.by()
                + (record.override() == null ? "" : " over checks that said " + verdict + ": " + record.override())));
        StatusBuilder.Look after = StatusBuilder.look(recorded, reading, observedBy);
        List<HandoverStatus.HistoryEntry> events = new ArrayList<>(after.events());
        events.addAll(history);
        NodeHandover written = writeStatus(recorded, new StatusBuilder.Look(reading, after.checks(),
                after.violations(), events, observedBy));
        return new Result(written, reading, checks, after.violations(), List.of());
    }

    /** A step not recorded because its checks did not pass: the exit code is the checks' verdict. */
    public static final class StepRefused extends NodegateException {
        private final transient Result result;

        StepRefused(Verdict verdict, String message, Result result) {
            super(verdict == Verdict.INVALID ? ExitCode.COLLECTION : verdict.exitCode(), message);
            this.result = result;
        }

        public Result result() {
            return result;
        }
    }

    private static void requireNext(NodeHandover h, int step) {
        if (h.closed()) {
            throw new RefusedException("NodeHandover " + h.name() + " was closed by " + h.spec().closed().by() + " at "
                    + h.spec().closed().at() + ": it takes no more steps");
        }
        int next = h.lastStep() + 1;
        if (step != next) {
            StepRecord last = h.step(h.lastStep()).orElse(null);
            throw new InputException("step " + step + ": the next step of " + h.name() + " is " + next
                    + (next <= Step.LAST ? " (" + Step.of(next).title() + ")" : " (none: every step is recorded)")
                    + (last == null ? "" : "; step " + last.step() + " was recorded by " + last.by() + " at "
                    + last.at()) + ". Steps are recorded in order, each once");
        }
    }

    /** Appends the step with the resourceVersion precondition; on a conflict re-reads and appends again. */
    private NodeHandover writeStep(NodeHandover h, StepRecord record, List<String> alertmanagers) {
        NodeHandover current = h;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                HandoverSpec spec = current.spec().withStep(record);
                if (record.step() == 1 && !alertmanagers.isEmpty() && spec.alertmanagers().isEmpty()) {
                    spec = spec.withAlertmanagers(alertmanagers);
                }
                return api.updateSpec(current.withSpec(spec));
            } catch (HandoverApi.Conflict | HandoverApi.Unclear e) {
                NodeHandover now = get(h.name());
                StepRecord there = now.step(record.step()).orElse(null);
                if (there != null && there.by().equals(record.by()) && there.at().equals(record.at())) {
                    return now;
                }
                if (there != null) {
                    throw new RefusedException("step " + record.step() + " of " + h.name() + " was recorded meanwhile "
                            + "by " + there.by() + " at " + there.at() + ": this run recorded nothing (" + e.getMessage()
                            + ")");
                }
                requireNext(now, record.step());
                current = now;
            }
        }
        throw new CollectionException("step " + record.step() + " of " + h.name() + " could not be recorded: the "
                + "object kept changing (" + ATTEMPTS + " conflicts)");
    }

    /**
     * Looks at a hand-over and (with {@code write}) records what was seen in its status. The silence is kept on
     * every replica when the looker may act.
     */
    public Result look(NodeHandover h, HandoverLooker looker, List<HandoverReading.HostReportSeen> reports,
                       boolean write, String observedBy) {
        HandoverReading reading = looker.look(h, reports);
        StatusBuilder.Look look = StatusBuilder.look(h, reading, observedBy);
        NodeHandover out = write ? writeStatus(h, look) : h.withStatus(StatusBuilder.next(h, look));
        return new Result(out, reading, look.checks(), look.violations(), List.of());
    }

    /**
     * Closes the hand-over: records who closed it and why (once), then expires the hand-over's silences on every
     * replica (only its own: anyone else's is left alone), and records that in the status.
     */
    public Result close(String name, String by, String reason, HandoverLooker looker, String observedBy) {
        NodeHandover h = get(name);
        List<String> notes = new ArrayList<>();
        Instant now = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        boolean wasClosed = h.closed();
        if (!h.closed()) {
            if (h.lastStep() < Step.LAST) {
                notes.add("closed at step " + h.lastStep() + " (" + Step.of(h.lastStep()).title() + "), before the "
                        + "procedure's end");
            }
            h = writeClose(h, new HandoverSpec.Closure(by, now, reason));
        } else {
            notes.add("already closed by " + h.spec().closed().by() + " at " + h.spec().closed().at());
        }
        List<HandoverStatus.HistoryEntry> events = new ArrayList<>();
        if (!wasClosed) {
            // a second close expires what is left, but the hand-over was closed once
            events.add(new HandoverStatus.HistoryEntry(now, "closed", null, "closed by " + by
                    + (reason == null ? "" : ": " + reason)));
        }
        List<String> urls = looker.alertmanagers(h);
        List<HandoverStatus.SilenceRow> rows = null;
        if (looker.silenceKeeper() != null && !urls.isEmpty()) {
            SilenceKeeper.Expired expired = looker.silenceKeeper().expireAll(HandoverLooker.plan(h), urls);
            events.addAll(expired.events());
            rows = expired.rows();
            if (expired.events().isEmpty()) {
                notes.add("no silence of this hand-over was left to expire");
            }
            if (!expired.errors().isEmpty()) {
                writeHistory(h, events, rows);
                throw new CollectionException("closed " + name + ", but its silences could not be expired everywhere: "
                        + String.join("; ", expired.errors()) + " (run `nodegate handover close " + name
                        + "` again when the replica answers)");
            }
        }
        NodeHandover written = writeHistory(h, events, rows);
        return new Result(written, null, List.of(), List.of(), notes);
    }

    private NodeHandover writeClose(NodeHandover h, HandoverSpec.Closure closure) {
        NodeHandover current = h;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                return api.updateSpec(current.withSpec(current.spec().withClosed(closure)));
            } catch (HandoverApi.Conflict | HandoverApi.Unclear e) {
                current = get(h.name());
                if (current.closed()) {
                    return current;
                }
            }
        }
        throw new CollectionException(h.name() + " could not be closed: the object kept changing");
    }

    /** Writes the status a look gives, re-reading and re-merging on a conflict. */
    public NodeHandover writeStatus(NodeHandover h, StatusBuilder.Look look) {
        return writeStatusWith(h, x -> StatusBuilder.next(x, look));
    }

    private NodeHandover writeHistory(NodeHandover h, List<HandoverStatus.HistoryEntry> entries) {
        return writeHistory(h, entries, null);
    }

    /** @param silences the silence rows to record instead of the last look's (a close's), or null to keep them */
    private NodeHandover writeHistory(NodeHandover h, List<HandoverStatus.HistoryEntry> entries,
                                      List<HandoverStatus.SilenceRow> silences) {
        return writeStatusWith(h, x -> {
            HandoverStatus s = StatusBuilder.withHistory(x.status(), entries);
            return new HandoverStatus(s.observedAt(), s.observedBy(), x.closed() ? HandoverStatus.CLOSED
                    : HandoverStatus.OPEN, Step.of(Math.max(0, x.lastStep())).label(), x.closed() ? null : s.next(),
                    s.verdict(), s.violationCount(), s.readErrors(), s.checks(), s.violations(),
                    silences == null ? s.silences() : silences,
                    s.alerts(), s.sightings(), s.history(), s.omitted());
        });
    }

    private NodeHandover writeStatusWith(NodeHandover h, Function<NodeHandover, HandoverStatus> build) {
        NodeHandover current = h;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                return api.updateStatus(current.withStatus(StatusBuilder.bounded(build.apply(current))));
            } catch (HandoverApi.Conflict | HandoverApi.Unclear e) {
                current = get(h.name());
            }
        }
        throw new CollectionException("the status of " + h.name() + " could not be written: the object kept "
                + "changing (" + ATTEMPTS + " conflicts)");
    }
}
