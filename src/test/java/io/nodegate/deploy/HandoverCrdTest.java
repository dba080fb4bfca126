package io.nodegate.deploy;

import io.nodegate.handover.HandoverSpec;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.HandoverType;
import io.nodegate.handover.NodeHandover;
import io.nodegate.handover.StepRecord;
import io.nodegate.handover.run.HandoverApi;
import io.nodegate.testing.PrinterColumns;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The NodeHandover CRD's own validation rules, evaluated with CEL as kube-apiserver evaluates them ({@link CrdRules}),
 * on the CRD exactly as `nodegate install` prints it (parsed back from its YAML), and its printer columns against an
 * object as nodegate writes it.
 */
class HandoverCrdTest {

    private static final Instant T0 = Instant.parse("2026-10-08T01:00:00Z");

    private final CrdRules rules = new CrdRules(CrdRules.handoverSchema());

    static StepRecord step(int n, String by, Instant at) {
        return new StepRecord(n, by, at, "step " + n + " done", null,
                List.of(new StepRecord.Evidence("note", "n" + n)));
    }

    static NodeHandover handover(List<StepRecord> steps) {
        HandoverSpec spec = new HandoverSpec(List.of("gpu-a07", "gpu-a08"), HandoverType.MOVE,
                new HandoverSpec.Destination("cluster-b", "cluster-b"), "2026-11-05", "lee",
                "https://chat.example/t/123", List.of("http://127.0.0.1:9093"),
                new HandoverSpec.SilenceSpec(List.of("cluster=\"cluster-a\""), "4h"),
                List.of(new HandoverSpec.Target("gpu-a07", "uid-7", "ed7f385e-0000-4000-8000-000000000007",
                                "m7", List.of("192.0.2.7"), "boot-7", List.of("burnin"), List.of(), 8L, "v1.34.3+rke2r3",
                                null),
                        new HandoverSpec.Target("gpu-a08", "uid-8", "feb06a68-0000-4000-8000-000000000008", "m8",
                                List.of("192.0.2.8"), "boot-8", List.of("burnin"), List.of(), 8L, "v1.34.3+rke2r3",
                                null)),
                steps, null);
        return new NodeHandover(NodeHandover.API_VERSION, NodeHandover.KIND,
                new NodeHandover.Meta("a-to-b", "uid-h", "7", T0), spec, null);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> json(NodeHandover h) {
        return HandoverApi.JSON.convertValue(h, Map.class);
    }

    private List<String> update(NodeHandover old, NodeHandover now) {
        return rules.review(json(old), json(now));
    }

    private static List<StepRecord> steps(int upTo) {
        List<StepRecord> out = new ArrayList<>();
        for (int i = 0; i <= upTo; i++) {
            out.add(step(i, i == 0 ? "lee" : "kim", T0.plusSeconds(3600L * i)));
        }
        return out;
    }

    @Test
    void appendingTheNextStepIsAdmitted() {
        assertThat(update(handover(steps(1)), handover(steps(2)))).isEmpty();
    }

    @Test
    void aRewrittenStepIsRejected() {
        List<StepRecord> rewritten = new ArrayList<>(steps(1));
        rewritten.set(1, new StepRecord(1, "someone-else", rewritten.get(1).at(), "step 1 done", null,
                rewritten.get(1).evidence()));

        assertThat(update(handover(steps(1)), handover(rewritten)))
                .containsExactly(".spec.steps[1]: a recorded step cannot be changed");
    }

    @Test
    void aStepsEvidenceCannotBeEditedEither() {
        List<StepRecord> edited = new ArrayList<>(steps(1));
        edited.set(1, new StepRecord(1, "kim", edited.get(1).at(), "step 1 done", null,
                List.of(new StepRecord.Evidence("note", "changed later"))));

        assertThat(update(handover(steps(1)), handover(edited))).contains(".spec.steps[1]: a recorded step cannot be "
                + "changed");
    }

    @Test
    void aRecordedStepCannotBeRemoved() {
        assertThat(update(handover(steps(2)), handover(steps(1))))
                .containsExactly(".spec.steps: a recorded step cannot be removed");
    }

    @Test
    void stepsAreRecordedInOrder() {
        List<StepRecord> skip = new ArrayList<>(steps(1));
        skip.add(step(3, "kim", T0.plusSeconds(9000)));

        assertThat(update(handover(steps(1)), handover(skip)))
                .containsExactly(".spec.steps: steps are recorded in order: step N needs steps 0 to N-1");
        // the same rule holds on create (it needs no oldSelf)
        assertThat(rules.review(null, json(handover(skip)))).containsExactly(
                ".spec.steps: steps are recorded in order: step N needs steps 0 to N-1");
    }

    @Test
    void transitionRulesDoNotRunOnCreate() {
        assertThat(rules.review(null, json(handover(steps(0))))).isEmpty();
    }

    @Test
    void whatIdentifiesTheHandOverCannotChangeButHowItIsReachedCan() {
        NodeHandover old = handover(steps(1));
        HandoverSpec s = old.spec();
        NodeHandover otherNodes = old.withSpec(new HandoverSpec(List.of("gpu-a07"), s.type(), s.destination(), s.due(),
                s.requester(), s.ticket(), s.alertmanagers(), s.silence(), s.targets(), s.steps(), null));
        NodeHandover otherType = old.withSpec(new HandoverSpec(s.nodes(), HandoverType.RETURN, s.destination(),
                s.due(), s.requester(), s.ticket(), s.alertmanagers(), s.silence(), s.targets(), s.steps(), null));
        NodeHandover otherCluster = old.withSpec(new HandoverSpec(s.nodes(), s.type(),
                new HandoverSpec.Destination("cluster-c", "cluster-b"), s.due(), s.requester(), s.ticket(),
                s.alertmanagers(), s.silence(), s.targets(), s.steps(), null));
        NodeHandover otherTargets = old.withSpec(new HandoverSpec(s.nodes(), s.type(), s.destination(), s.due(),
                s.requester(), s.ticket(), s.alertmanagers(), s.silence(), s.targets().subList(0, 1), s.steps(), null));
        NodeHandover reached = old.withSpec(new HandoverSpec(s.nodes(), s.type(),
                new HandoverSpec.Destination("cluster-b", "b-admin@cluster-b"), "2026-11-12", s.requester(),
                s.ticket(), List.of("http://127.0.0.1:19093", "http://127.0.0.1:29093"), s.silence(), s.targets(),
                s.steps(), null));

        assertThat(update(old, otherNodes)).containsExactly(".spec.nodes: spec.nodes cannot change after open");
        assertThat(update(old, otherType)).containsExactly(".spec.type: spec.type cannot change after open");
        assertThat(update(old, otherCluster)).containsExactly(
                ".spec.destination.cluster: spec.destination.cluster cannot change after open");
        assertThat(update(old, otherTargets)).containsExactly(
                ".spec.targets: spec.targets (the identities read at open) cannot change");
        assertThat(update(old, reached)).isEmpty();
    }

    private static NodeHandover withTargets(NodeHandover h, List<HandoverSpec.Target> targets) {
        HandoverSpec s = h.spec();
        return h.withSpec(new HandoverSpec(s.nodes(), s.type(), s.destination(), s.due(), s.requester(), s.ticket(),
                s.alertmanagers(), s.silence(), targets, s.steps(), null));
    }

    @SuppressWarnings("unchecked")
    private List<String> updateWithout(NodeHandover old, NodeHandover now, String field, boolean oldToo) {
        Map<String, Object> o = json(old);
        Map<String, Object> n = json(now);
        ((Map<String, Object>) n.get("spec")).remove(field);
        if (oldToo) {
            ((Map<String, Object>) o.get("spec")).remove(field);
        }
        return rules.review(o, n);
    }

    /**
     * The targets' own rule pairs old and new only when both exist, so it alone lets them go in two updates:
     * remove spec.targets, then add forged ones (an all-zero systemUUID identifies nothing, so the host seen in
     * another cluster would no longer be a violation). The spec-level rule refuses both updates.
     */
    @Test
    void theTargetsCannotBeRemovedAndThenReplacedInTwoUpdates() {
        NodeHandover old = handover(steps(1));
        HandoverSpec.Target t = old.spec().targets().get(0);
        NodeHandover forged = withTargets(old, List.of(new HandoverSpec.Target(t.node(), t.uid(),
                "00000000-0000-0000-0000-000000000000", "", t.internalIps(), t.bootId(), t.roles(), t.taints(),
                t.gpus(), t.kubeletVersion(), null)));

        assertThat(updateWithout(old, old, "targets", false)).containsExactly(
                ".spec: spec.targets (the identities read at open) cannot be removed or added after open");
        // the second update of the bypass: from an object without targets to one with forged ones
        assertThat(updateWithout(forged, forged, "targets", true)).isEmpty();
        @SuppressWarnings("unchecked")
        Map<String, Object> without = json(old);
        ((Map<String, Object>) without.get("spec")).remove("targets");
        assertThat(rules.review(without, json(forged))).containsExactly(
                ".spec: spec.targets (the identities read at open) cannot be removed or added after open");
        // changed in place: the list's own rule
        assertThat(update(old, forged)).containsExactly(
                ".spec.targets: spec.targets (the identities read at open) cannot change");
        // unchanged, and emptied
        assertThat(update(old, old)).isEmpty();
        assertThat(update(old, withTargets(old, List.of()))).containsExactly(
                ".spec.targets: spec.targets (the identities read at open) cannot change");
        // a create without targets is not refused by the transition rule (it needs an old object)
        @SuppressWarnings("unchecked")
        Map<String, Object> created = json(old);
        ((Map<String, Object>) created.get("spec")).remove("targets");
        assertThat(rules.review(null, created)).isEmpty();
    }

    private NodeHandover withSilenceFor(NodeHandover h, String duration) {
        HandoverSpec s = h.spec();
        return h.withSpec(new HandoverSpec(s.nodes(), s.type(), s.destination(), s.due(), s.requester(), s.ticket(),
                s.alertmanagers(), new HandoverSpec.SilenceSpec(s.silence().matchers(), duration), s.targets(),
                s.steps(), null));
    }

    @Test
    void theSilencesLengthIsBoundedOnCreateAndUpdate() {
        NodeHandover h = handover(steps(1));
        String refused = ".spec.silence.duration: spec.silence.duration must be a duration from 1m to 168h written "
                + "with h, m, s or ms (e.g. 4h)";
        for (String ok : List.of("4h", "1h30m", "168h", "1m", "90m", "2.5h")) {
            assertThat(rules.review(null, json(withSilenceFor(h, ok)))).as(ok).isEmpty();
        }
        for (String bad : List.of("720h", "30d", "169h", "59s", "4 hours", "-4h", "P1D")) {
            assertThat(rules.review(null, json(withSilenceFor(h, bad)))).as(bad).containsExactly(refused);
        }
        assertThat(update(h, withSilenceFor(h, "720h"))).containsExactly(refused);
        assertThat(update(h, withSilenceFor(h, "8h"))).isEmpty();
    }

    @Test
    void aClosedHandOverTakesNoMoreStepsAndStaysClosed() {
        NodeHandover open = handover(steps(2));
        NodeHandover closed = open.withSpec(open.spec().withClosed(new HandoverSpec.Closure("lee",
                T0.plusSeconds(86400), "cancelled")));
        NodeHandover stepAfterClose = closed.withSpec(closed.spec().withStep(step(3, "kim", T0.plusSeconds(90000))));
        NodeHandover reopened = closed.withSpec(open.spec());
        NodeHandover reasonChanged = closed.withSpec(open.spec().withClosed(new HandoverSpec.Closure("lee",
                T0.plusSeconds(86400), "done after all")));

        assertThat(update(open, closed)).isEmpty();
        assertThat(update(closed, stepAfterClose)).containsExactly(
                ".spec: a closed hand-over takes no more steps and cannot be reopened");
        assertThat(update(closed, reopened)).containsExactly(
                ".spec: a closed hand-over takes no more steps and cannot be reopened");
        assertThat(update(closed, reasonChanged)).containsExactly(".spec.closed: a close cannot be changed");
    }

    @Test
    void aMoveNeedsADestinationADecommissionDoesNot() {
        NodeHandover h = handover(steps(0));
        HandoverSpec s = h.spec();
        NodeHandover noDest = h.withSpec(new HandoverSpec(s.nodes(), HandoverType.MOVE, null, s.due(), s.requester(),
                s.ticket(), s.alertmanagers(), s.silence(), s.targets(), s.steps(), null));
        NodeHandover decommission = h.withSpec(new HandoverSpec(s.nodes(), HandoverType.DECOMMISSION, null, s.due(),
                s.requester(), s.ticket(), s.alertmanagers(), s.silence(), s.targets(), s.steps(), null));

        assertThat(rules.review(null, json(noDest))).containsExactly(".spec: a move or a return needs spec.destination");
        assertThat(rules.review(null, json(decommission))).isEmpty();
    }

    /**
     * The API server refuses a CRD whose rules' estimated cost is over the limit, and estimates from maxItems and
     * maxLength (unbounded means the largest request). Every list and string a rule can reach is bounded here, and a
     * conservative size of what each rule compares (every string at its maxLength, every list full) stays well under
     * one call's budget (PerCallLimit, 1,000,000: staging/src/k8s.io/apiserver/pkg/apis/cel/config.go): a list or
     * string comparison costs about one unit per ten bytes in CEL's cost model.
     */
    @Test
    void everyValueARuleReachesIsBoundedAndTheRulesFitTheBudget() {
        for (CrdRules.Rule r : rules.rules()) {
            List<String> unbounded = new ArrayList<>();
            unboundedUnder(r.at(), r.path(), unbounded);
            assertThat(unbounded).as("rule %s at %s", r.rule(), r.path()).isEmpty();
            long cost = comparedBytes(r) / 10 * timesEvaluated(r.path());
            assertThat(cost).as("estimated cost of %s at %s", r.rule(), r.path()).isLessThan(1_000_000 / 2);
        }
    }

    @SuppressWarnings("unchecked")
    private static void unboundedUnder(Map<String, Object> s, String path, List<String> out) {
        String type = (String) s.get("type");
        if ("string".equals(type) && s.get("maxLength") == null && s.get("enum") == null
                && !"date-time".equals(s.get("format")) && !"date".equals(s.get("format"))) {
            out.add(path);
        }
        if ("array".equals(type) && s.get("maxItems") == null) {
            out.add(path);
        }
        if (s.get("properties") instanceof Map<?, ?> p) {
            ((Map<String, Object>) p).forEach((k, v) -> unboundedUnder((Map<String, Object>) v, path + "." + k, out));
        }
        if (s.get("items") instanceof Map<?, ?> items) {
            unboundedUnder((Map<String, Object>) items, path + "[]", out);
        }
    }

    /**
     * What a rule reads at most: the whole value when it compares or iterates {@code self} itself, else the fields
     * it names ({@code self.steps == oldSelf.steps} reads the steps).
     */
    @SuppressWarnings("unchecked")
    private static long comparedBytes(CrdRules.Rule r) {
        // size() is constant time (it reads a length): a rule that only counts does not read what it counts
        String rule = r.rule().replaceAll("size\\((self|oldSelf)(\\.\\w+)?\\)", "N");
        if ("string".equals(r.at().get("type"))) {
            // a rule on a string reads it once per mention (a regular expression, a parse)
            return maxBytes(r.at()) * rule.split("\\bself\\b", -1).length;
        }
        if (rule.matches(".*\\b(self|oldSelf)(\\s*==|\\.all\\(|\\.exists\\().*")) {
            return maxBytes(r.at());
        }
        Map<String, Object> props = (Map<String, Object>) r.at().get("properties");
        long sum = 0;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\b(?:self|oldSelf)\\.(\\w+)").matcher(rule);
        while (m.find()) {
            sum += maxBytes((Map<String, Object>) props.get(m.group(1)));
        }
        return sum;
    }

    @SuppressWarnings("unchecked")
    private static long maxBytes(Map<String, Object> s) {
        String type = (String) s.get("type");
        if ("string".equals(type)) {
            return s.get("maxLength") != null ? ((Number) s.get("maxLength")).longValue() : 64;
        }
        if ("array".equals(type)) {
            return ((Number) s.get("maxItems")).longValue() * maxBytes((Map<String, Object>) s.get("items"));
        }
        if (s.get("properties") instanceof Map<?, ?> p) {
            long sum = 0;
            for (Object v : p.values()) {
                sum += maxBytes((Map<String, Object>) v);
            }
            return sum;
        }
        return 8;
    }

    /** A rule on list items runs once per item: steps hold at most 7. */
    private static long timesEvaluated(String path) {
        return path.contains("steps[]") ? HandoverCrd.MAX_STEPS : path.contains("[]") ? HandoverCrd.MAX_NODES : 1;
    }

    @Test
    void printerColumnsShowStepNodesDestinationDueViolationsAndAge() {
        NodeHandover h = handover(steps(1)).withStatus(new HandoverStatus(T0.plusSeconds(60), "test", "Open",
                "1: empty", "2: host cleanup: HOLD", "HOLD", 2, null, null, null, null, null, null, null));
        JsonNode object = HandoverApi.JSON.valueToTree(h);
        List<Map<String, Object>> columns = HandoverCrd.printerColumns();

        assertThat(columns).extracting(c -> c.get("name")).startsWith("Step", "Nodes", "Destination", "Due",
                "Violations", "Age");
        assertThat(PrinterColumns.cell(object, columns.get(0))).isEqualTo("1: empty");
        assertThat(PrinterColumns.cell(object, columns.get(1))).isEqualTo("[\"gpu-a07\",\"gpu-a08\"]");
        assertThat(PrinterColumns.cell(object, columns.get(2))).isEqualTo("cluster-b");
        assertThat(PrinterColumns.cell(object, columns.get(3))).isEqualTo("2026-11-05");
        assertThat(PrinterColumns.cell(object, columns.get(4))).isEqualTo(2L);
        assertThat((String) PrinterColumns.cell(object, columns.get(5))).matches("\\d+d");
        // before nodegate wrote a status, the status columns are empty, not an error
        JsonNode fresh = HandoverApi.JSON.valueToTree(handover(steps(0)));
        assertThat(PrinterColumns.cell(fresh, columns.get(0))).isNull();
        assertThat(PrinterColumns.cell(fresh, columns.get(4))).isNull();
    }

    @Test
    void installCrdsOnlyPrintsTheCrdAloneAndTheWatchBundleStartsWithIt() {
        io.nodegate.testing.CliRun alone = io.nodegate.testing.CliRun.run("install", "--crds-only");
        assertThat(alone.exitCode()).as(alone.all()).isZero();
        List<io.fabric8.kubernetes.api.model.HasMetadata> objects = AlertRulesPromtoolTest.parse(alone.out());
        assertThat(objects).extracting(o -> o.getKind() + "/" + o.getMetadata().getName())
                .containsExactly("CustomResourceDefinition/nodehandovers.nodegate.io");
        assertThat(alone.out()).contains("a recorded step cannot be changed", "jsonPath: .status.step",
                "scope: Cluster");

        io.nodegate.testing.CliRun withWatch = io.nodegate.testing.CliRun.run("install", "--image",
                "registry.example.com/ops/nodegate:0.1.0");
        assertThat(AlertRulesPromtoolTest.parse(withWatch.out()).get(0).getMetadata().getName())
                .isEqualTo("nodehandovers.nodegate.io");

        io.nodegate.testing.CliRun mixed = io.nodegate.testing.CliRun.run("install", "--crds-only", "--image",
                "registry.example.com/ops/nodegate:0.1.0");
        assertThat(mixed.exitCode()).isEqualTo(2);
        assertThat(mixed.err()).contains("--crds-only prints the CRDs alone");
    }
}
