package io.nodegate.cli;

import io.nodegate.time.TimeFlags;
import io.nodegate.ExitCode;
import io.nodegate.InputException;
import io.nodegate.handover.HandoverChecks;
import io.nodegate.handover.HandoverReading;
import io.nodegate.handover.HandoverSpec;
import io.nodegate.handover.SilencePlan;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.HandoverType;
import io.nodegate.handover.NodeHandover;
import io.nodegate.handover.Step;
import io.nodegate.handover.StepCheck;
import io.nodegate.handover.StepRecord;
import io.nodegate.model.CordonOwner;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.handover.run.CordonReasons;
import io.nodegate.handover.run.HandoverApi;
import io.nodegate.handover.run.NodeAnnotationPatch;
import io.nodegate.handover.run.HandoverLooker;
import io.nodegate.handover.run.HandoverService;
import io.nodegate.handover.run.HostReportJudge;
import io.nodegate.model.alertmanager.AmMatcher;
import io.nodegate.render.HandoverHtml;
import io.nodegate.render.HandoverRenderer;
import io.nodegate.time.Durations;
import io.nodegate.CollectionException;
import io.nodegate.NodegateException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/**
 * `nodegate handover`: one NodeHandover per hand-over in the cluster giving the nodes, its six steps recorded as
 * they are done, each checked first, the procedure's don'ts checked on every look, and the hand-over's silence kept
 * on every Alertmanager replica. docs/handover.md has every field, check and violation.
 */
@Command(name = "handover", mixinStandardHelpOptions = true,
        header = "Run a node hand-over as one record: six checked steps, the don'ts checked on every look, "
                + "silences re-read on every Alertmanager replica.",
        description = {
                "A NodeHandover (nodegate.io/v1alpha1, cluster-scoped) in the cluster giving the nodes records the "
                        + "request (step 0), then each step's done with who, when, the message and what nodegate "
                        + "saw: 1 empty, 2 host cleanup, 3 gate/delete/first check, 4 host prepared, 5 admitted, "
                        + "6 record. A step is recorded only when its checks pass (or over them, with --override "
                        + "and a reason). Every look (status, the watch) checks the procedure's don'ts: a target "
                        + "renamed, re-addressed or rebooted before step 2; its host in another cluster before step "
                        + "3; a deletion without the owner's reply; a done that what nodegate reads contradicts.",
                "Install the CRD first: nodegate install --crds-only | kubectl apply -f -"},
        subcommands = {HandoverCommand.Open.class, HandoverCommand.RecordStep.class, HandoverCommand.Status.class,
                HandoverCommand.Close.class, HandoverCommand.Report.class},
        footer = {"", "Examples:",
                "  nodegate handover open a-to-b --nodes gpu-a07,gpu-a08,gpu-a09 --type move --to cluster-b \\",
                "      --to-context cluster-b --due 2026-11-05 --requester lee --ticket https://chat.example/t/123 \\",
                "      --alertmanager http://alertmanager-0.monitoring:9093 --alertmanager http://alertmanager-1.monitoring:9093",
                "  nodegate handover step a-to-b 1 --by kim",
                "  nodegate handover step a-to-b 2 --by infra-park --removed-at '2026-10-26 15:09' --tz Asia/Seoul",
                "  nodegate handover status a-to-b",
                "  nodegate handover report a-to-b --html a-to-b.html",
                "  nodegate handover close a-to-b --by lee"})
public final class HandoverCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        throw Nodegate.missingSubcommand(spec);
    }

    static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    static void checkName(String what, String name) {
        if (name == null || name.length() > 253 || !NAME.matcher(name).matches()) {
            throw new InputException(what + " '" + name + "' is not a valid object name (lower-case letters, digits, "
                    + "'-' and '.', at most 253 characters)");
        }
    }

    /**
     * A value the CRD bounds, checked before anything is written: the API server would refuse the write after the
     * silences were set (or, for a status, leave the record unwritten).
     */
    static void checkLength(String what, String value, int max) {
        if (value != null && value.length() > max) {
            throw new InputException(what + " is " + value.length() + " characters long; the record holds at most "
                    + max);
        }
    }

    static String who() {
        String user = System.getProperty("user.name");
        return user == null || user.isBlank() ? "unknown" : user;
    }

    /** Prints one hand-over in the chosen format. */
    static void print(PrintWriter w, OutputOptions output, NodeHandover h, List<String> notes) {
        output.print(w, new HandoverRenderer.Output(List.of(h), true, HandoverApi.JSON.valueToTree(h), notes));
    }

    /** -o for open, step, status and close: one hand-over in full, or (status) one line each. */
    static OutputOptions output() {
        return OutputOptions.of(HandoverRenderer.Output.class);
    }

    /** Exit 1 when the record holds violations or alerts a silence does not stop; 3 when a read failed. */
    static int exitOf(NodeHandover h) {
        HandoverStatus st = h.status();
        if (st == null) {
            return ExitCode.OK;
        }
        if (!st.readErrors().isEmpty()) {
            return ExitCode.COLLECTION;
        }
        boolean alertProblem = st.alerts().stream().anyMatch(a -> "active".equals(a.kind())
                || "mixed-group".equals(a.kind()));
        return !st.violations().isEmpty() || alertProblem ? ExitCode.FINDINGS : ExitCode.OK;
    }

    /**
     * The exit of a look that was printed; a read that failed also ends in the one-line error on stderr that every
     * command gives for exit 3 (a script reading stderr must not take a report of unknowns for a clean look).
     */
    static int finish(NodeHandover h) {
        int exit = exitOf(h);
        if (exit == ExitCode.COLLECTION) {
            List<String> errors = h.status().readErrors();
            throw new NodegateException(exit, "handover " + h.name() + ": " + errors.size()
                    + (errors.size() == 1 ? " read" : " reads") + " failed, nothing they would have shown is known: "
                    + errors.get(0));
        }
        return exit;
    }

    // ------------------------------------------------------------------------------------------------------ open

    @Command(name = "open", mixinStandardHelpOptions = true,
            header = "Record a hand-over's request (step 0) and keep its silence on the Alertmanagers.",
            description = "Reads every target in the giving cluster (each must exist) and records its identity "
                    + "(uid, systemUUID, machineID, InternalIPs, bootID, roles, taints, GPUs), then creates the "
                    + "NodeHandover with step 0 and, for each --alertmanager, one silence of the target nodes "
                    + "(node=~\"a|b\", plus --silence-matcher), createdBy nodegate, ending --silence-for ahead and "
                    + "extended while the hand-over is open. Exit 0 recorded, 5 refused (a target not found, the "
                    + "name taken), 2 bad input, 3 a read failed.",
            footer = {"", "Example:",
                    "  nodegate handover open a-to-b --nodes gpu-a07,gpu-a08,gpu-a09 --type move --to cluster-b \\",
                    "      --to-context cluster-b --due 2026-11-05 --requester lee --ticket https://chat.example/t/123"})
    static final class Open implements Callable<Integer> {
        private final Environment env;

        Open(Environment env) {
            this.env = env;
        }

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        HandoverSources sources = new HandoverSources();
        @Mixin
        OutputOptions output = output();

        @Parameters(index = "0", paramLabel = "NAME", description = "The hand-over's name (an object name).")
        String name;

        @Option(names = "--nodes", required = true, split = ",", paramLabel = "NODE[,NODE...]",
                description = "The target nodes.")
        List<String> nodes;

        @Option(names = "--type", required = true, paramLabel = "TYPE", description = "move, return or decommission.")
        String type;

        @Option(names = "--to", paramLabel = "CLUSTER",
                description = "The receiving cluster, as people name it (required unless --type decommission).")
        String to;

        @Option(names = "--due", required = true, paramLabel = "DATE", description = "The agreed date (YYYY-MM-DD).")
        String due;

        @Option(names = "--requester", required = true, paramLabel = "WHO", description = "Who asked for it.")
        String requester;

        @Option(names = "--ticket", paramLabel = "URL",
                description = "The one thread or ticket where every \"step N done\" goes.")
        String ticket;

        @Option(names = "--silence-matcher", paramLabel = "MATCHER",
                description = "An extra matcher ANDed with node=~\"<targets>\" (e.g. cluster=\"cluster-a\"); "
                        + "repeatable.")
        List<String> silenceMatchers = new ArrayList<>();

        @Option(names = "--silence-for", paramLabel = "DURATION", defaultValue = "4h",
                converter = DurationConverter.Positive.class,
                description = "How far ahead the silence ends; it is extended while open (default: ${DEFAULT-VALUE}).")
        java.time.Duration silenceFor;

        @Option(names = "--note", paramLabel = "TEXT", description = "The request's message.")
        String note;

        @Override
        public Integer call() {
            checkName("NAME", name);
            HandoverType t;
            try {
                t = HandoverType.of(type);
            } catch (IllegalArgumentException e) {
                throw new InputException("--type: " + e.getMessage());
            }
            List<String> targets = new ArrayList<>(new LinkedHashSet<>(nodes.stream().map(String::trim)
                    .filter(s -> !s.isEmpty()).toList()));
            if (targets.isEmpty()) {
                throw new InputException("--nodes: give at least one node");
            }
            targets.forEach(n -> checkName("--nodes", n));
            if (targets.size() > HandoverSpec.MAX_NODES) {
                throw new InputException("--nodes: " + targets.size() + " nodes given; one hand-over takes at most "
                        + HandoverSpec.MAX_NODES + " (split it into several)");
            }
            if (silenceMatchers.size() > HandoverSpec.MAX_MATCHERS) {
                throw new InputException("--silence-matcher: " + silenceMatchers.size() + " given; the record holds "
                        + "at most " + HandoverSpec.MAX_MATCHERS);
            }
            silenceMatchers.forEach(m -> checkLength("--silence-matcher '" + m + "'", m, 1024));
            checkLength("--to", to, 253);
            checkLength("--requester", requester, 253);
            checkLength("--ticket", ticket, 2048);
            checkLength("--note", note, 4096);
            if (t.hasDestination() && (to == null || to.isBlank())) {
                throw new InputException("--to CLUSTER: a " + t.text() + " needs the receiving cluster");
            }
            LocalDate dueDate;
            try {
                dueDate = LocalDate.parse(due);
            } catch (DateTimeParseException e) {
                throw new InputException("--due '" + due + "' is not a date (YYYY-MM-DD)");
            }
            // a day of slack: the date is the requester's, and their today may still be yesterday in UTC
            LocalDate today = LocalDate.ofInstant(env.clock().instant(), java.time.ZoneOffset.UTC);
            if (dueDate.isBefore(today.minusDays(1))) {
                throw new InputException("--due " + due + " is in the past (today is " + today + " UTC): give the "
                        + "agreed date the nodes are to be handed over by");
            }
            if (requester.isBlank()) {
                throw new InputException("--requester: who asked for the hand-over?");
            }
            if (ticket != null && !ticket.matches("https?://\\S+")) {
                throw new InputException("--ticket '" + ticket + "' is not an http(s) URL");
            }
            if (silenceFor.compareTo(SilencePlan.MIN_DURATION) < 0 || silenceFor.compareTo(SilencePlan.MAX_DURATION) > 0) {
                throw new InputException("--silence-for " + Durations.format(silenceFor) + ": a hand-over's silence "
                        + "lasts from " + SilencePlan.specText(SilencePlan.MIN_DURATION) + " to "
                        + SilencePlan.specText(SilencePlan.MAX_DURATION) + " (it is extended while the hand-over is "
                        + "open)");
            }
            for (String m : silenceMatchers) {
                try {
                    AmMatcher.parse(m);
                } catch (IllegalArgumentException e) {
                    throw new InputException("--silence-matcher " + e.getMessage());
                }
            }
            sources.checkAlertmanagers();
            ApiReader api = new ApiReader(LifecycleCommands.connect(env, sources.live));
            HandoverSpec.Destination dest = to == null ? null
                    : new HandoverSpec.Destination(to, sources.toContext);
            HandoverSpec.SilenceSpec silence = new HandoverSpec.SilenceSpec(silenceMatchers,
                    SilencePlan.specText(silenceFor));
            var request = new HandoverService.OpenRequest(name, targets, t, dest, due, requester, ticket,
                    sources.canonicalAlertmanagers(), silence, note);
            HandoverService service = new HandoverService(new HandoverApi(api), env.clock());
            var result = service.open(request, sources.liveLooker(api, sources.givingName(api), env.clock(), true),
                    "handover open (" + who() + ")");
            print(spec.commandLine().getOut(), output, result.handover(), result.notes());
            return ExitCode.OK;
        }
    }

    // ------------------------------------------------------------------------------------------------------ step

    @Command(name = "step", mixinStandardHelpOptions = true,
            header = "Record a step's done, after nodegate checked what a machine can see.",
            description = "Records step N (the next one) with who said it is done, the message and what nodegate "
                    + "saw. 1: each target cordoned, no pods but DaemonSet/mirror pods, silences effective. 2: the "
                    + "owner's reply with a removal time per node (--removed-at), host reports each clean. 3: the "
                    + "gate's PASS record per node, the removal record, verify-gone PASS (from the evidence "
                    + "directory). 4: infra's reply (--new-name, --new-ip, --os, --driver). 5: each host Ready in "
                    + "the destination with the expected version, roles, taints and GPUs, and verify-gone PASS "
                    + "again. 6: membership, period, return date. Exit 0 recorded, 4 HOLD / 5 FAIL (nothing "
                    + "recorded; --override REASON records it over them), 3 a read failed, 2 bad input.",
            footer = {"", "Examples:",
                    "  nodegate handover step a-to-b 1 --by kim",
                    "  nodegate handover step a-to-b 2 --by infra-park --removed-at gpu-a07=2026-10-26T15:09+09:00 \\",
                    "      --host-report gpu-a07-host-report.json",
                    "  nodegate handover step a-to-b 3 --by kim --baseline base.json",
                    "  nodegate handover step a-to-b 4 --by infra-park --new-name gpu-a07=b-gpu-07 --new-ip gpu-a07=198.51.100.27",
                    "  nodegate handover step a-to-b 5 --by team-b --baseline base.json",
                    "  nodegate handover step a-to-b 6 --by lee --term '2026-11 to 2027-04' --return-date 2027-04-30"})
    static final class RecordStep implements Callable<Integer> {
        private final Environment env;

        RecordStep(Environment env) {
            this.env = env;
        }

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        HandoverSources sources = new HandoverSources();
        @Mixin
        OutputOptions output = output();

        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Parameters(index = "1", paramLabel = "N", description = "The step (0-6): the next one.")
        int step;

        @Option(names = "--by", required = true, paramLabel = "WHO", description = "Who says the step is done.")
        String by;

        @Option(names = "--note", paramLabel = "TEXT", description = "The step's message.")
        String note;

        @Option(names = "--override", paramLabel = "REASON",
                description = "Record it although its checks hold or fail: a human decision, recorded with who and why.")
        String override;

        @Option(names = "--removed-at", paramLabel = "[NODE=]TIME",
                description = "Step 2: when RKE2 was removed or the agent stopped (not the reboot time), for every "
                        + "target or NODE=TIME per node; ISO-8601 with offset, or local with --tz. Repeatable.")
        List<String> removedAt = new ArrayList<>();

        @Option(names = "--tz", paramLabel = "ZONE", description = "Zone for times without offset (e.g. Asia/Seoul).")
        String tz;

        @Option(names = "--host-report", paramLabel = "FILE",
                description = "Step 2: a report of `nodegate host inspect` from a target host; repeatable.")
        List<Path> hostReports = new ArrayList<>();

        @Option(names = "--new-name", paramLabel = "NODE=NAME", description = "Step 4: the host's new name.")
        Map<String, String> newNames = new LinkedHashMap<>();

        @Option(names = "--new-ip", paramLabel = "NODE=IP", description = "Step 4: the host's new address.")
        Map<String, String> newIps = new LinkedHashMap<>();

        @Option(names = "--os", paramLabel = "TEXT", description = "Step 4: the OS the hosts were prepared with.")
        String os;

        @Option(names = "--driver", paramLabel = "TEXT", description = "Step 4: the GPU driver installed.")
        String driver;

        @Option(names = "--expect-role", paramLabel = "ROLE",
                description = "Step 5: a node-role.kubernetes.io/ROLE label each host must have in the destination "
                        + "(default: its roles at open); repeatable.")
        List<String> expectRoles = new ArrayList<>();

        @Option(names = "--expect-taint", paramLabel = "KEY[:EFFECT]",
                description = "Step 5: a taint each host must have in the destination (default: its taints at "
                        + "open); repeatable.")
        List<String> expectTaints = new ArrayList<>();

        @Option(names = "--membership", paramLabel = "TEXT",
                description = "Step 6: where the hosts belong now (default: the destination).")
        String membership;

        @Option(names = "--term", paramLabel = "TEXT",
                description = "Step 6: the period the hosts belong there (e.g. '2026-11 to 2027-04').")
        String period;

        @Option(names = "--return-date", paramLabel = "DATE|none", description = "Step 6: when they come back.")
        String returnDate;

        @Override
        public Integer call() {
            checkName("NAME", name);
            if (step < 0 || step > Step.LAST) {
                throw new InputException("step " + step + " does not exist: the procedure has steps 0 to " + Step.LAST);
            }
            if (step == 0) {
                throw new InputException("step 0 (the request) is recorded by `nodegate handover open`");
            }
            checkFlagsBelong();
            if (by.isBlank()) {
                throw new InputException("--by: who says step " + step + " is done?");
            }
            checkLength("--note", note, 4096);
            checkLength("--override", override, 1024);
            if (override != null && override.isBlank()) {
                throw new InputException("--override needs a reason (who decided, and why)");
            }
            ApiReader api = new ApiReader(LifecycleCommands.connect(env, sources.live));
            HandoverApi handovers = new HandoverApi(api);
            HandoverService service = new HandoverService(handovers, env.clock());
            NodeHandover h = service.get(name);
            if (step == 3 || step == 5) {
                sources.evidence(h, api.server(), true);
            }
            if (step == 5 && h.spec().type().hasDestination() && sources.toContext == null
                    && sources.toKubeconfig == null && (h.spec().destination() == null
                    || h.spec().destination().context() == null)) {
                throw new InputException("step 5 is checked in the destination: no context was recorded at open; give"
                        + " --to-context or --to-kubeconfig");
            }
            String givingName = sources.givingName(api);
            HandoverLooker looker = sources.liveLooker(api, givingName, env.clock(), true);
            List<HandoverReading.HostReportSeen> reports = new ArrayList<>();
            if (!hostReports.isEmpty()) {
                HandoverReading.Giving giving = looker.giving().read(h.spec().nodes());
                if (giving.error() != null) {
                    throw new CollectionException("reading " + givingName + " to judge the host reports: "
                            + giving.error());
                }
                var hosts = HostReportJudge.clusterHosts(api.server(), giving, sources.clusterAddresses);
                for (Path f : hostReports) {
                    reports.add(HostReportJudge.judge(f, h, hosts));
                }
            }
            StepRecord claim = claim(h, reports);
            PrintWriter w = spec.commandLine().getOut();
            try {
                var result = service.record(name, claim, reports, step == 1 ? sources.canonicalAlertmanagers()
                        : List.of(), looker, "handover step (" + who() + ")");
                List<String> notes = new ArrayList<>(result.notes());
                CordonReasons.Report reasons = step == Step.EMPTY.number()
                        ? cordonReasons(result, new NodeAnnotationPatch(api), notes) : null;
                print(w, output, result.handover(), notes);
                if (output.isTable() && !output.noHeaders()) {
                    w.printf("recorded step %d (%s) of %s%n", step, Step.of(step).title(), name);
                    w.flush();
                }
                if (reasons != null && reasons.failed()) {
                    throw new CollectionException("step " + step + " of " + name + " IS recorded, but "
                            + CordonOwner.REASON_ANNOTATION + " was not written on " + String.join("; ",
                            reasons.lines().stream().filter(l -> l.outcome() == CordonReasons.Outcome.CHANGED
                                    || l.outcome() == CordonReasons.Outcome.FAILED)
                                    .map(l -> l.node() + " (" + l.text() + ")").toList())
                            + ". Do not record the step again; write the reason by hand where the Node is still "
                            + "cordoned for this hand-over: kubectl annotate node NODE " + CordonOwner.REASON_ANNOTATION
                            + "='" + reasons.reason() + "'");
                }
                return ExitCode.OK;
            } catch (HandoverService.StepRefused refused) {
                print(w, output, refused.result().handover(), List.of());
                throw refused;
            }
        }

        /**
         * Step 1 says each target is cordoned; once it is recorded on checks that passed, each target's cordon is
         * explained on the Node itself ({@link CordonReasons}), from the very read those checks made. A step recorded
         * over its checks (--override) writes nothing: what they held or failed on may be the cordon itself.
         */
        private static CordonReasons.Report cordonReasons(HandoverService.Result result, CordonReasons.Writer writer,
                                                          List<String> notes) {
            NodeHandover h = result.handover();
            StepRecord recorded = h.step(Step.EMPTY.number()).orElse(null);
            Verdict verdict = StepCheck.worst(result.checks());
            if (recorded == null || result.reading() == null || result.reading().giving() == null
                    || result.reading().giving().error() != null) {
                notes.add(CordonOwner.REASON_ANNOTATION + " not written: the step's read of the Nodes is not at hand");
                return null;
            }
            if (verdict != Verdict.PASS) {
                notes.add(CordonOwner.REASON_ANNOTATION + " not written: the step was recorded over checks that said "
                        + verdict + " (write it by hand where the cordon is this hand-over's)");
                return null;
            }
            CordonReasons.Report report = CordonReasons.write(h.name(), recorded, h.spec().nodes(),
                    result.reading().giving(), writer);
            notes.addAll(report.notes());
            return report;
        }

        private void checkFlagsBelong() {
            Map<String, Boolean> given = new LinkedHashMap<>();
            given.put("--removed-at/--host-report/--tz:2", !removedAt.isEmpty() || !hostReports.isEmpty() || tz != null);
            given.put("--new-name/--new-ip/--os/--driver:4", !newNames.isEmpty() || !newIps.isEmpty() || os != null
                    || driver != null);
            given.put("--expect-role/--expect-taint:5", !expectRoles.isEmpty() || !expectTaints.isEmpty());
            given.put("--membership/--term/--return-date:6", membership != null || period != null
                    || returnDate != null);
            given.forEach((k, v) -> {
                String[] flagsStep = k.split(":");
                if (v && Integer.parseInt(flagsStep[1]) != step) {
                    throw new InputException(flagsStep[0] + " belong(s) to step " + flagsStep[1] + ", not step " + step);
                }
            });
        }

        private StepRecord claim(NodeHandover h, List<HandoverReading.HostReportSeen> reports) {
            Map<String, String> ev = new LinkedHashMap<>();
            switch (step) {
                case 2 -> {
                    for (String value : removedAt) {
                        int eq = value.indexOf('=');
                        String node = eq > 0 ? value.substring(0, eq) : null;
                        if (node != null && h.spec().nodes().contains(node)) {
                            ev.put(StepRecord.perNode(HandoverChecks.REMOVED_AT, node),
                                    time(value.substring(eq + 1)).toString());
                        } else if (node != null && !value.substring(0, eq).contains("T")
                                && !value.substring(0, eq).contains(" ")) {
                            throw new InputException("--removed-at " + value + ": " + node + " is not a target of "
                                    + h.name() + " " + h.spec().nodes());
                        } else {
                            Instant at = time(value);
                            h.spec().nodes().forEach(n -> ev.put(StepRecord.perNode(HandoverChecks.REMOVED_AT, n),
                                    at.toString()));
                        }
                    }
                    for (HandoverReading.HostReportSeen r : reports) {
                        ev.put(StepRecord.perNode(HandoverChecks.HOST_REPORT, r.node()), HostReportJudge.recorded(r));
                    }
                }
                case 4 -> {
                    perNode(h, ev, HandoverChecks.NEW_NAME, newNames, "--new-name");
                    perNode(h, ev, HandoverChecks.NEW_IP, newIps, "--new-ip");
                    if (os != null) {
                        ev.put(HandoverChecks.OS, os);
                    }
                    if (driver != null) {
                        ev.put(HandoverChecks.DRIVER, driver);
                    }
                }
                case 5 -> {
                    if (!expectRoles.isEmpty()) {
                        ev.put(HandoverChecks.EXPECT_ROLE, String.join(",", expectRoles));
                    }
                    if (!expectTaints.isEmpty()) {
                        ev.put(HandoverChecks.EXPECT_TAINT, String.join(",", expectTaints));
                    }
                }
                case 6 -> {
                    String member = membership != null ? membership : h.spec().destination() != null
                            ? h.spec().destination().cluster() : null;
                    if (member != null) {
                        ev.put(HandoverChecks.MEMBERSHIP, member);
                    }
                    if (period != null) {
                        ev.put(HandoverChecks.PERIOD, period);
                    }
                    if (returnDate != null) {
                        if (!"none".equals(returnDate)) {
                            try {
                                LocalDate.parse(returnDate);
                            } catch (DateTimeParseException e) {
                                throw new InputException("--return-date '" + returnDate + "' is not a date "
                                        + "(YYYY-MM-DD) or none");
                            }
                        }
                        ev.put(HandoverChecks.RETURN_DATE, returnDate);
                    }
                }
                default -> {
                    // steps 1 and 3 are recorded with what nodegate saw
                }
            }
            List<StepRecord.Evidence> evidence = new ArrayList<>();
            ev.forEach((k, v) -> evidence.add(new StepRecord.Evidence(k, v)));
            return new StepRecord(step, by, env.clock().instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS),
                    note, override, evidence);
        }

        private Instant time(String text) {
            return TimeFlags.parseTime(text, tz, "--removed-at");
        }

        private static void perNode(NodeHandover h, Map<String, String> ev, String what, Map<String, String> given,
                                    String flag) {
            given.forEach((node, value) -> {
                if (!h.spec().nodes().contains(node)) {
                    throw new InputException(flag + " " + node + "=" + value + ": " + node + " is not a target of "
                            + h.name() + " " + h.spec().nodes());
                }
                ev.put(StepRecord.perNode(what, node), value);
            });
        }
    }

    // ---------------------------------------------------------------------------------------------------- status

    @Command(name = "status", mixinStandardHelpOptions = true,
            header = "Look at a hand-over now: every check, the don'ts, the silence on each Alertmanager replica.",
            description = "Reads the giving cluster, the destination and any --fleet-context cluster, the evidence "
                    + "directory (when there is one), and each Alertmanager replica separately (re-creating the "
                    + "hand-over's silence where it is missing, expired early or changed, extending it when due, "
                    + "and expiring one of its silences that was widened to cover more than the targets), "
                    + "then records what it saw in the NodeHandover's status. Without NAME, one line per hand-over "
                    + "(open ones are looked at first). --record FILE with -f looks at saved files and writes nothing. "
                    + "Exit 0 nothing wrong, 1 violations or alerts a silence does not stop, 3 a read failed.",
            footer = {"", "Examples:",
                    "  nodegate handover status a-to-b",
                    "  nodegate handover status a-to-b -o yaml",
                    "  nodegate handover status",
                    "  nodegate handover status --record a-to-b.json -f cluster-a/ --to-dump cluster-b/"})
    static final class Status implements Callable<Integer> {
        private final Environment env;

        Status(Environment env) {
            this.env = env;
        }

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        HandoverSources sources = new HandoverSources();
        @Mixin
        OutputOptions output = output();
        @CommandLine.ArgGroup(exclusive = false, heading = "Offline (saved files):%n")
        HandoverSources.Offline offline = new HandoverSources.Offline();

        @Parameters(index = "0", arity = "0..1", paramLabel = "NAME")
        String name;

        @Option(names = "--read-only",
                description = "Look only: do not create, re-create or extend silences, and do not write the status.")
        boolean readOnly;

        @Override
        public Integer call() {
            PrintWriter w = spec.commandLine().getOut();
            if (offline != null && offline.given()) {
                if (offline.record == null) {
                    throw new InputException("-f/--to-dump/--fleet-dump look at saved files: give the hand-over as "
                            + "saved with --record FILE");
                }
                NodeHandover h = HandoverApi.readSaved(offline.record);
                if (name != null && !name.equals(h.name())) {
                    throw new InputException("NAME " + name + " is not the hand-over in --record (" + h.name() + ")");
                }
                HandoverLooker looker = sources.offlineLooker(offline, h);
                var result = new HandoverService(null, looker.clock()).look(h, looker, List.of(), false,
                        "handover status --record");
                print(w, output, result.handover(), List.of());
                return finish(result.handover());
            }
            ApiReader api = new ApiReader(LifecycleCommands.connect(env, sources.live));
            HandoverApi handovers = new HandoverApi(api);
            HandoverService service = new HandoverService(handovers, env.clock());
            HandoverLooker looker = sources.liveLooker(api, sources.givingName(api), env.clock(), !readOnly);
            String by = "handover status (" + who() + ")";
            if (name != null) {
                checkName("NAME", name);
                NodeHandover h = service.get(name);
                var result = service.look(h, looker, List.of(), !readOnly, by);
                print(w, output, result.handover(), List.of());
                return finish(result.handover());
            }
            List<NodeHandover> all = new ArrayList<>();
            int exit = ExitCode.OK;
            NodeHandover unread = null;
            for (NodeHandover h : handovers.list()) {
                NodeHandover now = h.closed() ? h : service.look(h, looker, List.of(), !readOnly, by).handover();
                all.add(now);
                int own = h.closed() ? ExitCode.OK : exitOf(now);
                exit = Math.max(exit, own);
                if (own == ExitCode.COLLECTION && unread == null) {
                    unread = now;
                }
            }
            output.print(w, new HandoverRenderer.Output(all, false, HandoverApi.JSON.valueToTree(Map.of("items", all)),
                    List.of()));
            if (unread != null) {
                finish(unread);
            }
            return exit;
        }
    }

    // ----------------------------------------------------------------------------------------------------- close

    @Command(name = "close", mixinStandardHelpOptions = true,
            header = "Close a hand-over and expire its silences (only its own).",
            description = "Records who closed the hand-over and why (a cancelled one is closed too), then expires, "
                    + "on every Alertmanager replica, the silences that carry this hand-over's marker; anyone else's "
                    + "silence, even on the same nodes, is left alone. Exit 0 closed, 3 a replica could not be "
                    + "read or written (run it again).",
            footer = {"", "Example:", "  nodegate handover close a-to-b --by lee"})
    static final class Close implements Callable<Integer> {
        private final Environment env;

        Close(Environment env) {
            this.env = env;
        }

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        HandoverSources sources = new HandoverSources();
        @Mixin
        OutputOptions output = output();

        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--by", required = true, paramLabel = "WHO", description = "Who closes it.")
        String by;

        @Option(names = "--reason", paramLabel = "TEXT", description = "Why (e.g. cancelled).")
        String reason;

        @Override
        public Integer call() {
            checkName("NAME", name);
            ApiReader api = new ApiReader(LifecycleCommands.connect(env, sources.live));
            HandoverService service = new HandoverService(new HandoverApi(api), env.clock());
            HandoverLooker looker = sources.liveLooker(api, sources.givingName(api), env.clock(), true);
            var result = service.close(name, by, reason, looker, "handover close (" + who() + ")");
            print(spec.commandLine().getOut(), output, result.handover(), result.notes());
            return ExitCode.OK;
        }
    }

    // ---------------------------------------------------------------------------------------------------- report

    @Command(name = "report", mixinStandardHelpOptions = true,
            header = "Write the hand-over as one self-contained HTML page: a timeline per target node.",
            description = "One page with no external assets (inline CSS and SVG): per target node the cordon, the "
                    + "Lease stop, the owner's reply and stated removal time, the gate, the DELETE, both verify-gone "
                    + "runs, the first sighting in the destination, the silences (created, vanished, re-created) and "
                    + "each violation, from what the NodeHandover recorded (run `handover status` first to refresh "
                    + "it). --record FILE reads a saved NodeHandover instead.",
            footer = {"", "Example:", "  nodegate handover report a-to-b --html a-to-b.html"})
    static final class Report implements Callable<Integer> {
        private final Environment env;

        Report(Environment env) {
            this.env = env;
        }

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        LiveOptions live = new LiveOptions();
        @Mixin
        OutputOptions output = OutputOptions.of(HandoverRenderer.PageOutput.class);

        @Parameters(index = "0", arity = "0..1", paramLabel = "NAME")
        String name;

        @Option(names = "--html", required = true, paramLabel = "FILE", description = "Where to write the page.")
        Path html;

        @Option(names = "--record", paramLabel = "FILE",
                description = "A NodeHandover saved as JSON or YAML, instead of reading the cluster.")
        Path record;

        @Override
        public Integer call() {
            NodeHandover h;
            if (record != null) {
                h = HandoverApi.readSaved(record);
                if (name != null && !name.equals(h.name())) {
                    throw new InputException("NAME " + name + " is not the hand-over in --record (" + h.name() + ")");
                }
            } else {
                if (name == null) {
                    throw new InputException("NAME: which hand-over? (or --record FILE)");
                }
                checkName("NAME", name);
                ApiReader api = new ApiReader(LifecycleCommands.connect(env, live));
                h = new HandoverService(new HandoverApi(api), env.clock()).get(name);
            }
            String page = HandoverHtml.render(h, env.clock().instant());
            try {
                Path parent = html.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                Files.writeString(html, page, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new InputException("cannot write --html " + html + ": " + e.getMessage(), e);
            }
            output.print(spec.commandLine().getOut(), new HandoverRenderer.PageOutput(html.toString(),
                    page.getBytes(StandardCharsets.UTF_8).length, h.name(), h.spec().nodes().size(),
                    h.status() == null ? 0 : h.status().violations().size()));
            return ExitCode.OK;
        }
    }
}
