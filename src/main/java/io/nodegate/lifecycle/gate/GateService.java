package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.lifecycle.evidence.Json;
import io.nodegate.CollectionException;
import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.source.rancher.RancherMachines;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Runs the gate: gather evidence, decide, record the run, optionally annotate the Node with the verdict. */
public final class GateService {

    public static final String ANN_VERDICT = "nodegate.io/gate-verdict";
    public static final String ANN_AT = "nodegate.io/gate-at";
    public static final String ANN_EVIDENCE = "nodegate.io/gate-evidence";
    /** The uid of the Node object the verdict is about; the admission policy denies DELETE of any other. */
    public static final String ANN_UID = "nodegate.io/gate-uid";
    /** The bootID the gate judged; a host that booted since (and reported it) is no longer what was judged. */
    public static final String ANN_BOOT_ID = "nodegate.io/gate-boot-id";
    /** On a Machine: the Node (name and uid) the verdict judged; its status.nodeRef must still name it. */
    public static final String ANN_NODE_NAME = "nodegate.io/gate-node-name";
    public static final String ANN_NODE_UID = "nodegate.io/gate-node-uid";
    /**
     * The checks the run did not make because their input was not given ("host,fleet"), next to the verdict, so
     * that a PASS read off the Node says what it does not cover. Absent when every check ran.
     */
    public static final String ANN_NOT_CHECKED = "nodegate.io/gate-not-checked";

    private final ApiReader api;
    private final EvidenceStore store;
    private final Clock clock;

    /** Reads go over the reader's lean layer; a fabric8 client is built only to annotate (--annotate). */
    public GateService(ApiReader api, EvidenceStore store, Clock clock) {
        this.api = api;
        this.store = store;
        this.clock = clock;
    }

    public GateService(KubernetesClient client, EvidenceStore store, Clock clock) {
        this(new ApiReader(client), store, clock);
    }

    /**
     * What a run produced: the result, where its record is, and (with annotate) the annotation outcome.
     *
     * @param annotationFailure with annotate, for a verdict other than PASS: why the verdict could not be written
     *                          on the Node or its Machine, and what they carry now (an earlier PASS may still be in
     *                          force there); null when every write landed or there was nothing to write on
     */
    public record Run(GateResult result, GateRecord record, Path recordFile, String sha256, String annotation,
                      String annotationFailure) {

        public Run(GateResult result, GateRecord record, Path recordFile, String sha256, String annotation) {
            this(result, record, recordFile, sha256, annotation, null);
        }
    }

    /**
     * How many times a PASS is judged from fresh reads when its annotation is refused because the Node changed
     * since the gate read it. A Node that just went Unknown is still being written by the node lifecycle
     * controller (the Ready condition, then the unreachable NoSchedule and NoExecute taints, each a new
     * resourceVersion), exactly when an operator gates it; a verdict is never written on a version it did not judge,
     * so the gate reads and decides again instead.
     */
    static final int PASS_ATTEMPTS = 3;

    /**
     * One gate run on what it was given (see {@link GateRunInputs}: null parts were not given). With annotate, a PASS
     * whose annotation met a 409 is judged again from fresh reads, up to {@link #PASS_ATTEMPTS} times; each record is
     * kept, and the annotation line says how many were refused. The last refusal is thrown as it came.
     */
    public Run run(GateRunInputs in) {
        List<String> refused = new java.util.ArrayList<>();
        while (true) {
            try {
                Run run = runOnce(in);
                if (refused.isEmpty() || run.annotation() == null) {
                    return run;
                }
                return new Run(run.result(), run.record(), run.recordFile(), run.sha256(), "judged again from fresh"
                        + " reads after " + refused.size() + " refused annotation" + (refused.size() == 1 ? "" : "s")
                        + " (" + String.join("; ", refused) + ")\n" + run.annotation(), run.annotationFailure());
            } catch (ConfirmedPatch.Conflict conflict) {
                if (refused.size() + 1 >= PASS_ATTEMPTS) {
                    throw conflict;
                }
                refused.add(conflict.getMessage());
            }
        }
    }

    private Run runOnce(GateRunInputs in) {
        Baseline baseline = in.baseline();
        Path baselineFile = in.baselineFile();
        GateRequest request = in.request();
        boolean annotate = in.annotate();
        List<NamedView> fleet = in.fleet();
        String fleetError = in.fleetError();
        MachineSource machines = in.machines();
        store.ensureWritable();
        GateEvidence evidence = new GateEvidenceCollector(api, clock).collect(baseline, request.node(), in.etcd());
        if (fleet != null || fleetError != null) {
            evidence = evidence.withFleet(fleet, fleetError == null ? null : "fleet cluster " + fleetError);
        }
        if (machines != null && evidence.target() != null && evidence.collectionError() == null) {
            MachineEvidence.Outcome found = MachineEvidence.collect(machines, evidence.target());
            evidence = evidence.with(MachineCheck.INPUT, found.evidence(), found.error());
        }
        HostEvidenceStep.Outcome hostStep = HostEvidenceStep.collect(api, in.host(), evidence);
        evidence = hostStep.evidence().withBmc(in.bmc());
        GateResult result = GateDecision.decide(baseline, evidence, request, hostStep.given());
        GateRecord record = new GateRecord(GateRecord.KIND, request.node(), evidence.observedAt(), result.verdict(),
                result.reasons(), result.notChecked(), result.checks(),
                evidence.target() == null ? null : evidence.target().uid(),
                evidence.target() == null ? null : evidence.target().resourceVersion(),
                baselineFile == null ? null : baselineFile.toAbsolutePath().toString(),
                baselineFile == null ? null : EvidenceStore.sha256(baselineFile),
                baseline.baselineTs(), api.server(), request, null, machineRef(machines, evidence));
        String name = "gate-" + request.node() + "-" + EvidenceStore.stamp(evidence.observedAt());
        for (int n = 2; java.nio.file.Files.exists(store.dir().resolve(name + ".json")); n++) {
            name = "gate-" + request.node() + "-" + EvidenceStore.stamp(evidence.observedAt()) + "-" + n;
        }
        Path file = store.writeJson(name + ".json", record);
        hostStep.keepReport(store, name);
        String sha = EvidenceStore.sha256(file);
        String annotation = null;
        String failure = null;
        if (annotate) {
            String bootId = evidence.target() == null ? null : evidence.target().systemInfo().bootId();
            if (record.verdict() == Verdict.PASS) {
                annotation = annotate(record, name, sha, bootId);
                if (record.machine() != null) {
                    annotation += "\n" + annotateMachine(machines.api(), record, name, sha, bootId);
                }
            } else {
                Replaced replaced = replace(record, name, sha, bootId, evidence, machines);
                annotation = replaced.said();
                failure = replaced.failure();
            }
        }
        return new Run(result, record, file, sha, annotation, failure);
    }

    /** What a non-PASS run wrote, and what it could not (null when nothing failed). */
    private record Replaced(String said, String failure) {
    }

    /**
     * Writes a HOLD, FAIL or INVALID verdict over whatever an earlier run left on the Node and its Machine: the newest
     * verdict is the one the admission policies must honour, and they admit a DELETE only on PASS. The same binding
     * (uid, boot, gate-at, the record's hash) and the same confirmation by re-reading as a PASS, except that an
     * object that changed since the gate read it is written again on its current version ({@link
     * ConfirmedPatch#replace}). Both objects are tried even when the first write fails. Nothing can be written on an
     * object the run could not read: that, and every failed write, is returned as the failure with what the object
     * carries now, so that the user is told an earlier PASS may still be in force there.
     */
    private Replaced replace(GateRecord record, String name, String sha, String bootId, GateEvidence evidence,
                             MachineSource machines) {
        List<String> said = new java.util.ArrayList<>();
        List<String> failed = new java.util.ArrayList<>();
        String node = "Node " + record.node();
        if (record.nodeUid() == null) {
            if (evidence.collectionError() != null) {
                said.add("not annotated: " + node + " could not be read, so its annotations could not be replaced");
                failed.add(node + " could not be read (" + evidence.collectionError() + "), so this run's verdict "
                        + record.verdict() + " was not written on it: an earlier " + ANN_VERDICT + "=PASS on it, if"
                        + " any, is STILL IN FORCE and the admission policy admits its DELETE. Check: kubectl get node "
                        + record.node() + " -o jsonpath='{.metadata.annotations}'");
            } else {
                said.add("not annotated: " + node + " not seen (nothing carries a verdict for it)");
            }
        } else if (record.verdict() == Verdict.INVALID && evidence.target().annotation(ANN_VERDICT) == null) {
            // nothing to replace, and a run that met an error changes nothing it does not have to
            said.add("not annotated: verdict INVALID (" + node + " carries no earlier verdict to replace)");
        } else {
            ConfirmedPatch patch = new ConfirmedPatch(api, "Node", node, "/api/v1/nodes/" + record.node(),
                    record.node(), record.nodeUid(), record.nodeResourceVersion(), "kubectl get node " + record.node());
            try {
                ConfirmedPatch.Landed landed = patch.replace(verdictAnnotations(record, sha, record.nodeUid(), bootId),
                        record.verdict().name(), sha);
                if (landed.resourceVersion() == null) {
                    said.add("not annotated: " + landed.unclear() + "; an earlier verdict bound to the object judged"
                            + " is not honoured on anything now");
                } else {
                    said.add(recordAnnotation(record, name, sha, landed.resourceVersion(), "annotated " + ANN_VERDICT
                            + "=" + record.verdict() + " (replacing any earlier verdict: no DELETE is admitted on it)"
                            + (landed.unclear() == null ? "" : " (" + landed.unclear() + ")")));
                }
            } catch (RuntimeException e) {
                failed.add(stillInForce(node, record, e, patch));
            }
        }
        if (machines != null) {
            GateRecord.MachineRef m = record.machine();
            boolean machineHasVerdict = m != null && evidence.input(MachineCheck.INPUT).ofCluster().get(0).annotations()
                    .containsKey(ANN_VERDICT);
            boolean boundElsewhere = m != null && m.nodeRefUid() != null && !m.nodeRefUid().equals(record.nodeUid());
            if (m != null && (boundElsewhere || record.verdict() == Verdict.INVALID && !machineHasVerdict)) {
                // a Machine that points at another Node object is not this Node's to judge (and a PASS on it is
                // bound to that object); an INVALID run writes only to replace an earlier verdict
                said.add("Machine " + m.namespace() + "/" + m.name() + " not annotated: " + (boundElsewhere
                        ? "it points at another Node object (uid " + m.nodeRefUid() + ")"
                        : "verdict INVALID and it carries no earlier verdict to replace"));
            } else if (m != null) {
                String what = "Machine " + m.namespace() + "/" + m.name();
                Map<String, String> annotations = verdictAnnotations(record, sha, m.uid(), bootId);
                annotations.put(ANN_NODE_NAME, record.node());
                annotations.put(ANN_NODE_UID, record.nodeUid());
                ConfirmedPatch patch = new ConfirmedPatch(machines.api(), "Machine", what,
                        RancherMachines.machinePath(m.namespace(), m.name()), m.name(),
                        m.uid(), m.resourceVersion(), "kubectl get machines.cluster.x-k8s.io -n " + m.namespace()
                        + " " + m.name());
                try {
                    ConfirmedPatch.Landed landed = patch.replace(annotations, record.verdict().name(), sha);
                    if (landed.resourceVersion() == null) {
                        said.add("not annotated: " + landed.unclear());
                    } else {
                        store.writeJson(name + ".machine.annotation.json", new GateRecord.MachineAnnotation(
                                GateRecord.MachineAnnotation.KIND, record.node(), name + ".json", sha, m.namespace(),
                                m.name(), m.uid(), landed.resourceVersion(), clock.instant()));
                        said.add("annotated " + what + " " + ANN_VERDICT + "=" + record.verdict()
                                + " (replacing any earlier verdict)"
                                + (landed.unclear() == null ? "" : " (" + landed.unclear() + ")"));
                    }
                } catch (RuntimeException e) {
                    failed.add(stillInForce(what, record, e, patch));
                }
            } else if (evidence.input(MachineCheck.INPUT) == null || evidence.input(MachineCheck.INPUT).ofCluster().size() > 1) {
                // the Machine could not be read, or it is not known which one judges this Node: none was written
                String why = evidence.input(MachineCheck.INPUT) == null ? "the management cluster's Machines were not read"
                        : evidence.input(MachineCheck.INPUT).ofCluster().size() + " Machines of cluster " + evidence.input(MachineCheck.INPUT).cluster()
                        + " name this Node";
                said.add("Machine not annotated: " + why);
                failed.add("Machine not annotated (" + why + "), so this run's verdict " + record.verdict()
                        + " was not written on it: an earlier " + ANN_VERDICT + "=PASS on " + record.node()
                        + "'s Machine, if any, is STILL IN FORCE and the Machine admission policy admits its DELETE."
                        + " Check: kubectl get machines.cluster.x-k8s.io -n " + machines.namespace()
                        + " -o custom-columns='NAME:.metadata.name,NODE:.status.nodeRef.name,VERDICT:.metadata"
                        + ".annotations.nodegate\\.io/gate-verdict'");
            }
        }
        return new Replaced(String.join("\n", said), failed.isEmpty() ? null : String.join("\n", failed));
    }

    /** The message for a verdict that could not replace an earlier one, with what the object carries now. */
    private static String stillInForce(String what, GateRecord record, RuntimeException e, ConfirmedPatch patch) {
        String now = patch.verdictNow();
        boolean pass = now.startsWith(Verdict.PASS.name() + " ");
        return "writing " + ANN_VERDICT + "=" + record.verdict() + " on " + what + " failed: " + e.getMessage()
                + ". " + what + " now carries: " + now + (pass ? ". That earlier PASS is STILL IN FORCE: the admission"
                + " policy admits its DELETE. Withdraw it by hand ("
                + patch.checkByHand().replaceFirst("^kubectl get ", "kubectl annotate ") + " " + ANN_VERDICT
                + "-) or run the gate again" : now.startsWith("unknown") ? ". An earlier PASS may still"
                + " be in force: check before anyone deletes it (" + patch.checkByHand()
                + " -o jsonpath='{.metadata.annotations}')" : "");
    }

    /** The one Machine of the gated cluster that names the Node, as the record keeps it; else null. */
    private static GateRecord.MachineRef machineRef(MachineSource machines, GateEvidence evidence) {
        if (evidence.input(MachineCheck.INPUT) == null || evidence.input(MachineCheck.INPUT).ofCluster().size() != 1) {
            return null;
        }
        var m = evidence.input(MachineCheck.INPUT).ofCluster().get(0);
        return new GateRecord.MachineRef(machines.api().server(), m.namespace(), m.name(), m.uid(),
                m.resourceVersion(), evidence.input(MachineCheck.INPUT).cluster(), m.nodeRefName(), m.nodeRefUid(), m.bootId(),
                m.phase());
    }

    /**
     * Writes the verdict onto the Node's Machine as on the Node: the same fields, bound to the Machine's uid, with the
     * Node it judged ({@value #ANN_NODE_NAME}, {@value #ANN_NODE_UID}) and the Node's bootID, conditional on the
     * Machine's resourceVersion and confirmed the same way. The Machine admission policy (`policy --machines`)
     * honours a PASS only for that Machine while it still points at that Node object and boot.
     */
    private String annotateMachine(ApiReader management, GateRecord record, String name, String sha, String bootId) {
        GateRecord.MachineRef m = record.machine();
        String what = "Machine " + m.namespace() + "/" + m.name();
        Map<String, String> annotations = verdictAnnotations(record, sha, m.uid(), bootId);
        annotations.put(ANN_NODE_NAME, record.node());
        annotations.put(ANN_NODE_UID, record.nodeUid());
        ConfirmedPatch.Landed landed;
        try {
            landed = new ConfirmedPatch(management, "Machine", what,
                    RancherMachines.machinePath(m.namespace(), m.name()), m.name(), m.uid(),
                    m.resourceVersion(), "kubectl get machines.cluster.x-k8s.io -n " + m.namespace() + " " + m.name())
                    .apply(annotations, record.verdict().name(), sha);
        } catch (CollectionException e) {
            throw new CollectionException("Node " + record.node() + " carries " + ANN_VERDICT + "=" + record.verdict()
                    + ", but " + e.getMessage(), e);
        }
        try {
            store.writeJson(name + ".machine.annotation.json", new GateRecord.MachineAnnotation(
                    GateRecord.MachineAnnotation.KIND, record.node(), name + ".json", sha, m.namespace(), m.name(),
                    m.uid(), landed.resourceVersion(), clock.instant()));
        } catch (RuntimeException e) {
            throw new CollectionException(what + " NOW CARRIES " + ANN_VERDICT + "=" + record.verdict()
                    + " (resourceVersion " + landed.resourceVersion() + "), but writing " + name
                    + ".machine.annotation.json failed: " + e.getMessage() + ". 'nodegate remove --machine-context'"
                    + " will refuse this Machine until the gate runs again", e);
        }
        return "annotated " + what + " " + ANN_VERDICT + "=" + record.verdict() + (landed.unclear() == null ? ""
                : " (" + landed.unclear() + "; re-reading the Machine shows the annotation landed)");
    }

    /**
     * Writes a PASS onto the Node, conditional on the resourceVersion the gate saw (a merge patch carrying
     * metadata.resourceVersion is rejected with 409 if the Node changed), together with the uid and bootID it
     * judged and the time: the admission policy honours a PASS only for that object, that boot, and while no
     * heartbeat newer than gate-at arrived. A PATCH without a clean answer is confirmed by reading the Node again
     * ({@link ConfirmedPatch}). Any other verdict goes through {@link #replace}.
     */
    private String annotate(GateRecord record, String name, String sha, String bootId) {
        if (record.nodeUid() == null) {
            return "not annotated: verdict " + record.verdict() + " (Node not seen)";
        }
        ConfirmedPatch.Landed landed = new ConfirmedPatch(api, "Node", "Node " + record.node(),
                "/api/v1/nodes/" + record.node(), record.node(), record.nodeUid(), record.nodeResourceVersion(),
                "kubectl get node " + record.node()).apply(verdictAnnotations(record, sha, record.nodeUid(), bootId),
                record.verdict().name(), sha);
        return recordAnnotation(record, name, sha, landed.resourceVersion(), "annotated " + ANN_VERDICT + "="
                + record.verdict() + (landed.unclear() == null ? ""
                : " (" + landed.unclear() + "; re-reading the Node shows the annotation landed)"));
    }

    /**
     * The annotations a verdict is written as: verdict, time, the record's hash, the uid of the object it is written
     * on, and the bootID judged (null removes one left by an earlier run: a Node that reports none is bound by uid
     * alone).
     */
    static Map<String, String> verdictAnnotations(GateRecord record, String sha, String objectUid, String bootId) {
        Map<String, String> annotations = new java.util.LinkedHashMap<>();
        annotations.put(ANN_VERDICT, record.verdict().name());
        annotations.put(ANN_AT, record.gatedAt().toString());
        annotations.put(ANN_EVIDENCE, "sha256:" + sha);
        annotations.put(ANN_UID, objectUid);
        annotations.put(ANN_BOOT_ID, bootId == null || bootId.isBlank() ? null : bootId);
        // null removes an earlier run's list when this run checked everything
        annotations.put(ANN_NOT_CHECKED, record.notChecked().isEmpty() ? null : String.join(",", record.notChecked()));
        return annotations;
    }

    private String recordAnnotation(GateRecord record, String name, String sha, String resourceVersion, String said) {
        try {
            store.writeJson(name + ".annotation.json", new GateRecord.Annotation(GateRecord.Annotation.KIND,
                    record.node(), name + ".json", sha, record.nodeUid(), resourceVersion, clock.instant()));
        } catch (RuntimeException e) {
            throw new CollectionException("Node " + record.node() + " NOW CARRIES " + ANN_VERDICT + "=" + record.verdict()
                    + " (resourceVersion " + resourceVersion + "), but writing " + name + ".annotation.json failed: "
                    + e.getMessage() + ". 'nodegate remove' will refuse this Node until the gate runs again; remove"
                    + " the annotation (as an operator) if the verdict should not stand", e);
        }
        return said;
    }

    /**
     * The newest gate record for a node, with the resourceVersions its annotations left on the Node and on its
     * Machine (null where none was written, or its file does not match the record's hash).
     */
    public record Latest(GateRecord record, Path file, String annotatedResourceVersion,
                         String annotatedMachineResourceVersion) {
    }

    public static Optional<Latest> latest(EvidenceStore store, String node) {
        Latest best = null;
        for (Path p : store.list("gate-" + node + "-")) {
            if (p.getFileName().toString().endsWith(".annotation.json")) {
                continue;
            }
            GateRecord r = EvidenceStore.readJson(p, GateRecord.class);
            if (!GateRecord.KIND.equals(r.kind()) || !node.equals(r.node())) {
                continue;
            }
            if (best == null || r.gatedAt().isAfter(best.record().gatedAt())) {
                Path ann = p.resolveSibling(p.getFileName().toString().replaceAll("\\.json$", ".annotation.json"));
                String rv = null;
                if (java.nio.file.Files.exists(ann)) {
                    GateRecord.Annotation a = EvidenceStore.readJson(ann, GateRecord.Annotation.class);
                    if (a.sha256().equals(EvidenceStore.sha256(p))) {
                        rv = a.nodeResourceVersion();
                    }
                }
                Path machineAnn = p.resolveSibling(p.getFileName().toString()
                        .replaceAll("\\.json$", ".machine.annotation.json"));
                String machineRv = null;
                if (java.nio.file.Files.exists(machineAnn)) {
                    GateRecord.MachineAnnotation a = EvidenceStore.readJson(machineAnn,
                            GateRecord.MachineAnnotation.class);
                    if (a.sha256().equals(EvidenceStore.sha256(p))) {
                        machineRv = a.machineResourceVersion();
                    }
                }
                best = new Latest(r, p, rv, machineRv);
            }
        }
        return Optional.ofNullable(best);
    }
}
