package io.nodegate.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.nodegate.handover.HandoverStatus;
import io.nodegate.handover.NodeHandover;
import io.nodegate.handover.HandoverSpec;
import io.nodegate.handover.SilencePlan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The CustomResourceDefinition of {@link NodeHandover}, the one source of truth for its schema: `nodegate install`
 * emits it (with the watch, or alone with --crds-only), and the tests parse this very object to evaluate its
 * validation rules with CEL and its printer columns against recorded objects.
 *
 * <p>The rules live in the CRD itself ({@code x-kubernetes-validations}, Kubernetes docs "Extend the Kubernetes API
 * with CustomResourceDefinitions", section "Validation rules"): a recorded step cannot be changed (a transition
 * rule on the items of {@code spec.steps}, a list of type map keyed by step, so the API server pairs each item with
 * its old self), nor removed, and steps are recorded in order. Transition rules reference {@code oldSelf} and run
 * only on an update where the old value exists. Every list, map and string a rule reaches has a maxItems or
 * maxLength: the API server estimates each rule's worst-case cost from those bounds when the CRD is written and
 * refuses rules over the per-expression limit (StaticEstimatedCostLimit, 10,000,000 in
 * staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go), and evaluates them
 * within a per-call budget (PerCallLimit, 1,000,000, staging/src/k8s.io/apiserver/pkg/apis/cel/config.go).
 */
public final class HandoverCrd {

    public static final String NAME = NodeHandover.PLURAL + "." + NodeHandover.GROUP;

    /** Bounds the rules' cost is estimated from (and the tests check against the per-call budget). */
    static final int MAX_NODES = HandoverSpec.MAX_NODES;
    static final int MAX_STEPS = 7;
    static final int MAX_EVIDENCE = 512;
    static final int NAME_LENGTH = 253;
    static final int EVIDENCE_NAME_LENGTH = 128;
    static final int EVIDENCE_VALUE_LENGTH = 1024;
    static final int MESSAGE_LENGTH = 4096;

    private HandoverCrd() {
    }

    /** The printer columns: `kubectl get nodehandovers` shows name, step, nodes, destination, due, violations, age. */
    public static List<Map<String, Object>> printerColumns() {
        return List.of(
                column("Step", "string", ".status.step", "The last recorded step", 0),
                column("Nodes", "string", ".spec.nodes", "The target nodes", 0),
                column("Destination", "string", ".spec.destination.cluster", "The receiving cluster", 0),
                column("Due", "string", ".spec.due", "The agreed date", 0),
                column("Violations", "integer", ".status.violationCount",
                        "Violations of the procedure's don'ts seen so far", 0),
                column("Age", "date", ".metadata.creationTimestamp", null, 0),
                column("Next", "string", ".status.next", "The next step and whether its checks pass", 1),
                column("Phase", "string", ".status.phase", "Open or Closed", 1));
    }

    public static GenericKubernetesResource crd() {
        Map<String, Object> version = new LinkedHashMap<>();
        version.put("name", NodeHandover.VERSION);
        version.put("served", true);
        version.put("storage", true);
        version.put("subresources", Map.of("status", Map.of()));
        version.put("additionalPrinterColumns", printerColumns());
        version.put("schema", Map.of("openAPIV3Schema", schema()));
        Map<String, Object> names = new LinkedHashMap<>();
        names.put("plural", NodeHandover.PLURAL);
        names.put("singular", NodeHandover.SINGULAR);
        names.put("kind", NodeHandover.KIND);
        names.put("listKind", NodeHandover.KIND + "List");
        names.put("shortNames", List.of("nho"));
        names.put("categories", List.of("nodegate"));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("group", NodeHandover.GROUP);
        spec.put("scope", "Cluster");
        spec.put("names", names);
        spec.put("versions", List.of(version));
        Map<String, String> labels = new TreeMap<>();
        labels.put("app.kubernetes.io/name", "nodegate");
        labels.put("app.kubernetes.io/component", "handover");
        return new GenericKubernetesResourceBuilder()
                .withApiVersion("apiextensions.k8s.io/v1").withKind("CustomResourceDefinition")
                .withNewMetadata().withName(NAME).withLabels(labels).endMetadata()
                .addToAdditionalProperties("spec", spec)
                .build();
    }

    static Map<String, Object> schema() {
        return object("A hand-over of nodes from this cluster to another cluster, team or the scrap heap, with the "
                        + "six steps of seed 000's procedure recorded as they are done, and what nodegate read "
                        + "(docs/handover.md).",
                props("apiVersion", string(null, 0), "kind", string(null, 0), "metadata", Map.of("type", "object"),
                        "spec", spec(), "status", status()),
                List.of("spec"), List.of());
    }

    // ------------------------------------------------------------------------------------------------ spec

    private static Map<String, Object> spec() {
        Map<String, Object> nodes = array("The target Node names in this cluster. Cannot change after open.",
                string(null, NAME_LENGTH), MAX_NODES, "set");
        nodes.put("minItems", 1);
        nodes.put("x-kubernetes-validations", List.of(rule("self == oldSelf", "spec.nodes cannot change after open")));
        Map<String, Object> type = string("move, return or decommission. Cannot change after open.", 0);
        type.put("enum", List.of("move", "return", "decommission"));
        type.put("x-kubernetes-validations", List.of(rule("self == oldSelf", "spec.type cannot change after open")));
        Map<String, Object> cluster = string("The receiving cluster as people name it. Cannot change after open.",
                NAME_LENGTH);
        cluster.put("minLength", 1);
        cluster.put("x-kubernetes-validations", List.of(rule("self == oldSelf",
                "spec.destination.cluster cannot change after open")));
        Map<String, Object> destination = object("The receiving cluster (none for a decommission).",
                props("cluster", cluster, "context", string("The kubeconfig context the operator reaches it by.",
                        NAME_LENGTH)), List.of("cluster"), List.of());
        Map<String, Object> due = string("The agreed date, YYYY-MM-DD.", 0);
        due.put("format", "date");
        Map<String, Object> requester = string("Who asked for the hand-over.", NAME_LENGTH);
        requester.put("minLength", 1);
        Map<String, Object> silence = object("The Alertmanager silence kept while the hand-over is open.",
                props("matchers", array("Extra matchers ANDed with node=~\"<targets>\" (e.g. cluster=\"a\").",
                                string(null, 1024), HandoverSpec.MAX_MATCHERS, "atomic"),
                        "duration", silenceDuration()),
                List.of(), List.of());
        Map<String, Object> targets = array("Each target's identity at open. Cannot change.", target(), MAX_NODES,
                "map");
        targets.put("x-kubernetes-list-map-keys", List.of("node"));
        targets.put("x-kubernetes-validations", List.of(rule("self == oldSelf",
                "spec.targets (the identities read at open) cannot change")));
        Map<String, Object> closed = object("Who closed the hand-over, when and why. Cannot change once set.",
                props("by", nonEmpty("Who closed it."), "at", time("When."), "reason",
                        string("Why (a cancelled hand-over is closed too).", MESSAGE_LENGTH)),
                List.of("by", "at"), List.of(rule("self == oldSelf", "a close cannot be changed")));
        return object("What people recorded: the request, each target's identity at open, every step's done, the "
                        + "close.",
                props("nodes", nodes, "type", type, "destination", destination, "due", due, "requester", requester,
                        "ticket", string("The one thread or ticket where every \"step N done\" goes.", 2048),
                        "alertmanagers", array("Alertmanager replicas (base URLs) that keep the hand-over's silence.",
                                string(null, 2048), HandoverStatus.SILENCE_LIMIT, "atomic"),
                        "silence", silence, "targets", targets, "steps", steps(), "closed", closed),
                List.of("nodes", "type", "due", "requester", "steps"),
                List.of(rule("self.type == 'decommission' || has(self.destination)",
                                "a move or a return needs spec.destination"),
                        // the list's own rule pairs old and new only when both exist: removing the targets, then
                        // adding others, would pass it in two updates
                        rule("has(self.targets) == has(oldSelf.targets)",
                                "spec.targets (the identities read at open) cannot be removed or added after open"),
                        rule("!has(oldSelf.closed) || (has(self.closed) && size(self.steps) == size(oldSelf.steps))",
                                "a closed hand-over takes no more steps and cannot be reopened")));
    }

    /** The longest silence a hand-over may plan: it is extended while open, so a long one only outlives a close. */
    static final String MAX_SILENCE = SilencePlan.specText(
            SilencePlan.MAX_DURATION);
    static final String MIN_SILENCE = SilencePlan.specText(
            SilencePlan.MIN_DURATION);

    /**
     * A duration CEL's {@code duration()} reads (Go's syntax: h, m, s, ms; kube-apiserver's CEL has no day unit),
     * from {@link #MIN_SILENCE} to {@link #MAX_SILENCE}: a silence of 30 days silences the targets long after the
     * hand-over, and one of seconds is re-created on every look. nodegate writes it in this form.
     */
    private static Map<String, Object> silenceDuration() {
        Map<String, Object> d = string("How far ahead the silence ends, " + MIN_SILENCE + " to " + MAX_SILENCE
                + " (e.g. 4h, 1h30m); extended while open.", 32);
        d.put("x-kubernetes-validations", List.of(rule("self.matches('^([0-9]+(\\\\.[0-9]+)?(h|m|s|ms))+$') "
                        + "&& duration(self) >= duration('" + MIN_SILENCE + "') && duration(self) <= duration('"
                        + MAX_SILENCE + "')",
                "spec.silence.duration must be a duration from " + MIN_SILENCE + " to " + MAX_SILENCE
                        + " written with h, m, s or ms (e.g. 4h)")));
        return d;
    }

    private static Map<String, Object> target() {
        Map<String, Object> gpus = new LinkedHashMap<>();
        gpus.put("type", "integer");
        gpus.put("minimum", 0);
        gpus.put("description", "GPUs (extended resources with gpu in their name) in the Node's capacity.");
        Map<String, Object> server = new LinkedHashMap<>();
        server.put("type", "boolean");
        server.put("description", "A control-plane/etcd/master node: its etcd member goes first.");
        return object(null, props("node", nonEmpty("The Node name."), "uid", string(null, 64),
                        "systemUUID", string(null, 64), "machineID", string(null, 64),
                        "internalIPs", array(null, string(null, 64), 8, "atomic"), "bootID", string(null, 64),
                        "roles", array(null, string(null, 63), 16, "atomic"),
                        "taints", array(null, string(null, 512), 32, "atomic"), "gpus", gpus,
                        "kubeletVersion", string(null, 64), "server", server),
                List.of("node"), List.of());
    }

    private static Map<String, Object> steps() {
        Map<String, Object> step = new LinkedHashMap<>();
        step.put("type", "integer");
        step.put("minimum", 0);
        step.put("maximum", 6);
        step.put("description", "0 request, 1 empty, 2 host cleanup, 3 gate/delete/first check, 4 host prepared, "
                + "5 admitted, 6 record.");
        Map<String, Object> evidenceItem = object(null, props("name", nonEmpty(null, EVIDENCE_NAME_LENGTH),
                "value", string(null, EVIDENCE_VALUE_LENGTH)), List.of("name", "value"), List.of());
        Map<String, Object> evidence = array("What nodegate saw when the step was recorded, as named values "
                + "(\"removedAt/gpu-a07\", \"gate/gpu-a07\").", evidenceItem, MAX_EVIDENCE, "map");
        evidence.put("x-kubernetes-list-map-keys", List.of("name"));
        Map<String, Object> item = object("One step's done.", props("step", step, "by", nonEmpty("Who said it's done."),
                        "at", time("When it was recorded."), "message", string("The message.", MESSAGE_LENGTH),
                        "override", string("Recorded over a check that did not pass: who decided and why.", 1024),
                        "evidence", evidence),
                List.of("step", "by", "at"), List.of(rule("self == oldSelf", "a recorded step cannot be changed")));
        Map<String, Object> steps = array("The recorded steps, in order; a recorded step cannot be changed or "
                + "removed.", item, MAX_STEPS, "map");
        steps.put("minItems", 1);
        steps.put("x-kubernetes-list-map-keys", List.of("step"));
        steps.put("x-kubernetes-validations", List.of(
                rule("oldSelf.all(o, self.exists(s, s.step == o.step))", "a recorded step cannot be removed"),
                rule("self.all(s, s.step < size(self))", "steps are recorded in order: step N needs steps 0 to N-1")));
        return steps;
    }

    // ---------------------------------------------------------------------------------------------- status

    private static Map<String, Object> status() {
        Map<String, Object> count = new LinkedHashMap<>();
        count.put("type", "integer");
        count.put("minimum", 0);
        Map<String, Object> checkRow = object(null, props("step", Map.of("type", "integer"), "id", text(),
                "node", text(), "outcome", text(), "title", text(), "reasons", array(null, text(),
                        HandoverStatus.REASON_LIMIT, "atomic")),
                List.of(), List.of());
        Map<String, Object> violation = object(null, props("key", text(), "kind", text(), "node", text(),
                "message", text(), "happenedAt", time(null), "firstSeenAt", time(null), "lastSeenAt", time(null),
                "seenNow", Map.of("type", "boolean")), List.of(), List.of());
        Map<String, Object> silence = object(null, props("alertmanager", text(), "state", text(),
                "silenceIDs", array(null, text(), HandoverStatus.SILENCE_ID_LIMIT, "atomic"), "endsAt", time(null),
                "detail", text()),
                List.of(), List.of());
        Map<String, Object> alert = object(null, props("kind", text(), "alertmanagers", array(null, text(),
                        HandoverStatus.ROW_ALERTMANAGER_LIMIT, "atomic"), "message", text(), "labels",
                array(null, text(), HandoverStatus.LABEL_LIMIT, "atomic"), "receiver", text(),
                "groupBy", array(null, text(), HandoverStatus.GROUP_BY_LIMIT, "atomic"), "otherNodes",
                array(null, text(), HandoverStatus.OTHER_NODE_LIMIT, "atomic")),
                List.of(), List.of());
        Map<String, Object> sighting = object(null, props("node", text(), "cluster", text(), "name", text(),
                "created", time(null), "firstSeenAt", time(null), "ready", text(),
                "destination", Map.of("type", "boolean")), List.of(), List.of());
        Map<String, Object> history = object(null, props("at", time(null), "type", text(), "node", text(),
                "message", text()), List.of(), List.of());
        Map<String, Object> omitted = object("How many items each list left out to stay within these bounds.",
                props("readErrors", count, "checks", count, "violations", count, "silences", count, "alerts", count,
                        "sightings", count, "history", count, "withinRows", count), List.of(), List.of());
        return object("What nodegate read the last time it looked (a handover command or the watch).",
                props("observedAt", time(null), "observedBy", text(), "phase", text(), "step", text(),
                        "next", text(), "verdict", text(), "violationCount", count,
                        "readErrors", array(null, text(), HandoverStatus.READ_ERROR_LIMIT, "atomic"),
                        "checks", array(null, checkRow, HandoverStatus.CHECK_LIMIT, "atomic"),
                        "violations", array(null, violation, HandoverStatus.VIOLATION_LIMIT, "atomic"),
                        "silences", array(null, silence, HandoverStatus.SILENCE_LIMIT, "atomic"),
                        "alerts", array(null, alert, HandoverStatus.ALERT_LIMIT, "atomic"),
                        "sightings", array(null, sighting, HandoverStatus.SIGHTING_LIMIT, "atomic"),
                        "history", array(null, history, HandoverStatus.HISTORY_LIMIT, "atomic"),
                        "omitted", omitted),
                List.of(), List.of());
    }

    // --------------------------------------------------------------------------------------------- helpers

    private static Map<String, Object> column(String name, String type, String jsonPath, String description,
                                              int priority) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("name", name);
        c.put("type", type);
        c.put("jsonPath", jsonPath);
        if (description != null) {
            c.put("description", description);
        }
        if (priority != 0) {
            c.put("priority", priority);
        }
        return c;
    }

    private static Map<String, Object> rule(String rule, String message) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("rule", rule);
        r.put("message", message);
        return r;
    }

    private static Map<String, Object> props(Object... nameThenSchema) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < nameThenSchema.length; i += 2) {
            out.put((String) nameThenSchema[i], nameThenSchema[i + 1]);
        }
        return out;
    }

    private static Map<String, Object> object(String description, Map<String, Object> properties,
                                              List<String> required, List<Map<String, Object>> rules) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("type", "object");
        if (description != null) {
            o.put("description", description);
        }
        if (!required.isEmpty()) {
            o.put("required", new ArrayList<>(required));
        }
        o.put("properties", properties);
        if (!rules.isEmpty()) {
            o.put("x-kubernetes-validations", new ArrayList<>(rules));
        }
        return o;
    }

    private static Map<String, Object> array(String description, Map<String, Object> items, int maxItems,
                                             String listType) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("type", "array");
        if (description != null) {
            a.put("description", description);
        }
        a.put("maxItems", maxItems);
        a.put("x-kubernetes-list-type", listType);
        a.put("items", items);
        return a;
    }

    private static Map<String, Object> string(String description, int maxLength) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", "string");
        if (description != null) {
            s.put("description", description);
        }
        if (maxLength > 0) {
            s.put("maxLength", maxLength);
        }
        return s;
    }

    private static Map<String, Object> nonEmpty(String description) {
        return nonEmpty(description, NAME_LENGTH);
    }

    private static Map<String, Object> nonEmpty(String description, int maxLength) {
        Map<String, Object> s = string(description, maxLength);
        s.put("minLength", 1);
        return s;
    }

    private static Map<String, Object> time(String description) {
        Map<String, Object> s = string(description, 0);
        s.put("format", "date-time");
        return s;
    }

    /** Status strings: written by nodegate only, cut to this length before they are written. */
    private static Map<String, Object> text() {
        return string(null, HandoverStatus.TEXT_LENGTH);
    }
}
