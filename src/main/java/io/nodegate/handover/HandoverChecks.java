package io.nodegate.handover;

import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.PodInfo;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What nodegate checks at each step, so a person only confirms what a machine cannot see (the table in
 * docs/handover.md). Pure: the hand-over, the step's claim (what the person records, or recorded) and one
 * {@link HandoverReading} go in, checks come out. A read that failed makes the checks that depend on it INVALID;
 * nothing is judged on an absence that was not read.
 */
public final class HandoverChecks {

    /** Evidence names a step records (per node they are "name/node", {@link StepRecord#perNode}). */
    public static final String REMOVED_AT = "removedAt";
    public static final String HOST_REPORT = "hostReport";
    public static final String EVIDENCE_DIR = "evidenceDir";
    public static final String GATE = "gate";
    public static final String LEASE_STOPPED = "leaseStopped";
    public static final String REMOVAL = "removal";
    public static final String HANDED_TO = "handedTo";
    public static final String VERIFY_GONE = "verifyGone";
    public static final String NEW_NAME = "newName";
    public static final String NEW_IP = "newIP";
    public static final String OS = "os";
    public static final String DRIVER = "driver";
    public static final String ADMITTED = "admitted";
    public static final String EXPECT_ROLE = "expectRole";
    public static final String EXPECT_TAINT = "expectTaint";
    public static final String MEMBERSHIP = "membership";
    public static final String PERIOD = "period";
    public static final String RETURN_DATE = "returnDate";
    public static final String CORDONED = "cordoned";
    public static final String PODS = "pods";
    public static final String SILENCES = "silences";
    public static final String TICKET = "ticket";

    /** One class a step, as the gate's checks are one class each; adding a step is its class and a row here. */
    private static final Map<Step, StepChecks> STEPS = byStep(List.of(new RequestChecks(), new EmptyChecks(),
            new HostCleanupChecks(), new GateDeleteChecks(), new HostPreparedChecks(), new AdmittedChecks(),
            new RecordChecks()));

    private HandoverChecks() {
    }

    private static Map<Step, StepChecks> byStep(List<StepChecks> steps) {
        Map<Step, StepChecks> out = new EnumMap<>(Step.class);
        for (StepChecks s : steps) {
            out.put(s.step(), s);
        }
        if (out.size() != Step.values().length) {
            throw new IllegalStateException("a hand-over step has no checks: " + out.keySet());
        }
        return out;
    }

    /**
     * Every check {@code handover status} shows: those of the recorded steps that still say something (a step
     * about the Nodes stops once they are removed) and those of the next step, which say whether it can be recorded.
     */
    public static List<StepCheck> all(NodeHandover h, HandoverReading r) {
        List<StepCheck> out = new ArrayList<>();
        int last = h.lastStep();
        for (int n = 0; n <= Math.min(last + 1, Step.LAST); n++) {
            if (n <= last && n < 3 && h.recorded(3)) {
                continue;
            }
            if (n == 1 && n <= last && !stillMeaningful(h, r)) {
                continue;
            }
            StepRecord recorded = h.step(n).orElse(null);
            for (StepCheck c : check(Step.of(n), h, recorded, r)) {
                out.add(recorded == null ? c : notJudgedAgain(c, recorded, r));
            }
        }
        return out;
    }

    /**
     * A recorded step is not judged again against a Node that has since left the cluster: its "exists" and
     * "cordoned" checks held when it was recorded, and the Node's going is the procedure moving on (step 3), not the
     * step failing. What contradicts a recorded step while the Node is there is a violation (step-contradicted), and
     * a Node gone outside the procedure is one too (deleted-outside-the-procedure).
     */
    private static StepCheck notJudgedAgain(StepCheck c, StepRecord recorded, HandoverReading r) {
        boolean gone = c.node() != null && !givingFailed(r) && r.giving().node(c.node()) == null;
        Verdict v = c.check().outcome();
        if (!gone || v == Verdict.PASS || v == Verdict.NOT_CHECKED || v == Verdict.INVALID) {
            return c;
        }
        return new StepCheck(c.step(), c.node(), new Check(c.check().id(), c.check().title(), Verdict.NOT_CHECKED,
                List.of("recorded by " + recorded.by() + " at " + recorded.at() + "; " + c.node() + " has left the "
                        + "cluster since (NotFound): a recorded step is not judged again"), c.check().evidence()));
    }

    private static boolean stillMeaningful(NodeHandover h, HandoverReading r) {
        return r.giving() == null || r.giving().error() != null
                || h.spec().nodes().stream().anyMatch(n -> r.giving().node(n) != null);
    }

    /**
     * The checks of one step.
     *
     * @param claim what the person records for the step (a draft while recording), or its record; null when the
     *              step is not recorded (the checks then say whether it could be)
     */
    public static List<StepCheck> check(Step step, NodeHandover h, StepRecord claim, HandoverReading r) {
        return STEPS.get(step).check(h, claim, r);
    }

    // ---------------------------------------------------------------------------------------------- helpers

    /**
     * Pods still bound to the node, other than DaemonSet pods (they go with the Node) and mirror pods (owned by the
     * Node: the kubelet's static pods, pkg/kubelet/pod/mirror_client.go), and other than finished ones.
     */
    static List<PodInfo> workloadPods(List<PodInfo> pods) {
        return pods.stream().filter(p -> !"DaemonSet".equals(p.ownerKind()) && !"Node".equals(p.ownerKind())
                && !"Succeeded".equals(p.phase()) && !"Failed".equals(p.phase())).toList();
    }

    /** How a group a silence cannot help is said everywhere (status, the report, Events). */
    public static String mixedGroupText(SilenceDecision.MixedGroup g) {
        return "receiver " + g.receiver() + " keeps getting group " + labels(g.labels()) + " (group_by: "
                + g.groupBy() + "): besides the silenced target alert(s) of " + String.join(", ", g.targets())
                + " it holds " + (g.otherNodes().stream().anyMatch(o -> o.endsWith("silence)")) ? "" : "active ")
                + "alerts of " + String.join(", ", g.otherNodes()) + ", so silencing the targets "
                + "does not stop its notifications";
    }

    static String labels(Map<String, String> labels) {
        return new TreeMap<>(labels).entrySet().stream().map(e -> e.getKey() + "=\"" + e.getValue() + "\"")
                .collect(Collectors.joining(", ", "{", "}"));
    }


    static boolean givingFailed(HandoverReading r) {
        return r.giving() == null || r.giving().error() != null;
    }

    static String givingName(HandoverReading r) {
        return r.giving() == null || r.giving().name() == null ? "the giving cluster" : r.giving().name();
    }

    static Check invalid(String id, String title, String error) {
        return new Check(id, title, Verdict.INVALID, List.of("read failed: " + error + "; nothing it would have "
                + "shown is known"), Map.of());
    }

    static List<String> prepend(String first, List<String> rest) {
        List<String> out = new ArrayList<>();
        out.add(first);
        out.addAll(rest);
        return out;
    }

    static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
