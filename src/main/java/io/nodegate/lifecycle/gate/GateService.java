package io.nodegate.lifecycle.gate;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.lifecycle.ApiReader;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.lifecycle.evidence.Json;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.CollectionException;

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

    /** What a run produced: the result, where its record is, and (with annotate) the annotation outcome. */
    public record Run(GateResult result, GateRecord record, Path recordFile, String sha256, String annotation) {
    }

    public Run run(Baseline baseline, Path baselineFile, GateRequest request, List<EtcdEndpointReport> etcd,
                   boolean annotate) {
        return run(baseline, baselineFile, request, etcd, annotate, HostInputs.NONE);
    }

    public Run run(Baseline baseline, Path baselineFile, GateRequest request, List<EtcdEndpointReport> etcd,
                   boolean annotate, HostInputs host) {
        return run(baseline, baselineFile, request, etcd, annotate, host, null, null);
    }

    /**
     * @param fleet      the other clusters' Nodes (--fleet-context); null when none was given
     * @param fleetError why reading one of them failed: the run is then INVALID
     */
    public Run run(Baseline baseline, Path baselineFile, GateRequest request, List<EtcdEndpointReport> etcd,
                   boolean annotate, HostInputs host, List<io.nodegate.detect.controlplane.NamedView> fleet,
                   String fleetError) {
        store.ensureWritable();
        GateEvidence evidence = new GateEvidenceCollector(api, clock).collect(baseline, request.node(), etcd);
        if (fleet != null || fleetError != null) {
            evidence = evidence.withFleet(fleet, fleetError == null ? null : "fleet cluster " + fleetError);
        }
        HostEvidenceStep.Outcome hostStep = HostEvidenceStep.collect(api, host, evidence);
        evidence = hostStep.evidence();
        GateResult result = GateDecision.decide(baseline, evidence, request, hostStep.given());
        GateRecord record = new GateRecord(GateRecord.KIND, request.node(), evidence.observedAt(), result.verdict(),
                result.reasons(), result.notChecked(), result.checks(),
                evidence.target() == null ? null : evidence.target().uid(),
                evidence.target() == null ? null : evidence.target().resourceVersion(),
                baselineFile == null ? null : baselineFile.toAbsolutePath().toString(),
                baselineFile == null ? null : EvidenceStore.sha256(baselineFile),
                baseline.baselineTs(), api.server(), request, null);
        String name = "gate-" + request.node() + "-" + EvidenceStore.stamp(evidence.observedAt());
        for (int n = 2; java.nio.file.Files.exists(store.dir().resolve(name + ".json")); n++) {
            name = "gate-" + request.node() + "-" + EvidenceStore.stamp(evidence.observedAt()) + "-" + n;
        }
        Path file = store.writeJson(name + ".json", record);
        hostStep.keepReport(store, name);
        String sha = EvidenceStore.sha256(file);
        String annotation = null;
        if (annotate) {
            annotation = annotate(record, name, sha,
                    evidence.target() == null ? null : evidence.target().systemInfo().bootId());
        }
        return new Run(result, record, file, sha, annotation);
    }

    /**
     * Writes the verdict onto the Node, conditional on the resourceVersion the gate saw (a merge patch carrying
     * metadata.resourceVersion is rejected with 409 if the Node changed), together with the uid and bootID it
     * judged and the time: the admission policy honours a PASS only for that object, that boot, and while no
     * heartbeat newer than gate-at arrived. Not done for INVALID: nothing the run saw can be trusted.
     *
     * <p>A PATCH whose answer is not a clean confirmation (a timeout, a 5xx, an empty or foreign 200) may still
     * have landed, and a PASS on the Node is what the admission policy honours. So the Node is read again and
     * what is really there is reported; if even that fails, the outcome is reported as unknown.
     */
    private String annotate(GateRecord record, String name, String sha, String bootId) {
        if (record.verdict() == Verdict.INVALID || record.nodeUid() == null) {
            return "not annotated: verdict " + record.verdict() + (record.nodeUid() == null ? " (Node not seen)" : "");
        }
        Map<String, String> annotations = new java.util.LinkedHashMap<>();
        annotations.put(ANN_VERDICT, record.verdict().name());
        annotations.put(ANN_AT, record.gatedAt().toString());
        annotations.put(ANN_EVIDENCE, "sha256:" + sha);
        annotations.put(ANN_UID, record.nodeUid());
        // null removes a bootID annotation left by an earlier run: a Node that reports none is bound by uid alone
        annotations.put(ANN_BOOT_ID, bootId == null || bootId.isBlank() ? null : bootId);
        // null removes an earlier run's list when this run checked everything
        annotations.put(ANN_NOT_CHECKED, record.notChecked().isEmpty() ? null : String.join(",", record.notChecked()));
        Map<String, Object> patch = Map.of("metadata", Map.of(
                "uid", record.nodeUid(),
                "resourceVersion", record.nodeResourceVersion(),
                "annotations", annotations));
        String path = "/api/v1/nodes/" + record.node();
        String unclear;
        try {
            var response = api.send(api.mergePatchRequest(path, patch));
            int code = response.code();
            if (code == 200) {
                var confirmed = carriesVerdict(parse(response.body()), record, sha);
                if (confirmed != null) {
                    return recordAnnotation(record, name, sha, confirmed, "annotated " + ANN_VERDICT + "="
                            + record.verdict());
                }
                unclear = "the PATCH answered HTTP 200 without the annotated Node";
            } else if (code >= 400 && code < 500 && code != 408) {
                throw new CollectionException("annotating Node " + record.node() + " failed (HTTP " + code
                        + (code == 409 ? ": the Node changed since the gate read it" : "") + "); the gate record "
                        + "is kept but the Node carries no new verdict");
            } else {
                unclear = "the PATCH answered HTTP " + code;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            unclear = "the PATCH was interrupted";
        } catch (CollectionException e) {
            throw e;
        } catch (Exception e) {
            unclear = "the PATCH failed (" + api.describe(e) + ")";
        }
        tools.jackson.databind.JsonNode now;
        try {
            now = api.reread("Node " + record.node(), path).orElse(null);
        } catch (CollectionException e) {
            throw new CollectionException("annotating Node " + record.node() + ": " + unclear + ", and " + e.getMessage()
                    + ". UNKNOWN whether the Node now carries " + ANN_VERDICT + "=" + record.verdict()
                    + ": check before anyone deletes it (kubectl get node " + record.node()
                    + " -o jsonpath='{.metadata.annotations}'; this run's evidence is sha256:" + sha + ")", e);
        }
        var confirmed = carriesVerdict(now, record, sha);
        if (confirmed != null) {
            return recordAnnotation(record, name, sha, confirmed, "annotated " + ANN_VERDICT + "=" + record.verdict()
                    + " (" + unclear + "; re-reading the Node shows the annotation landed)");
        }
        throw new CollectionException("annotating Node " + record.node() + " failed (" + unclear + "); re-reading the "
                + "Node shows " + (now == null ? "it is gone (NotFound)" : "it does not carry this run's verdict")
                + ": the gate record is kept but the Node carries no new verdict");
    }

    private static tools.jackson.databind.JsonNode parse(String body) {
        try {
            return Json.MAPPER.readTree(body);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The Node's resourceVersion when it is our Node and carries this run's verdict and evidence; else null. */
    private static String carriesVerdict(tools.jackson.databind.JsonNode obj, GateRecord record, String sha) {
        if (obj == null || !obj.isObject() || !"Node".equals(obj.path("kind").asString())) {
            return null;
        }
        var meta = obj.path("metadata");
        var ann = meta.path("annotations");
        boolean ours = record.node().equals(meta.path("name").asString())
                && record.nodeUid().equals(meta.path("uid").asString())
                && record.verdict().name().equals(ann.path(ANN_VERDICT).asString())
                && ("sha256:" + sha).equals(ann.path(ANN_EVIDENCE).asString());
        String rv = meta.path("resourceVersion").asString();
        return ours && rv != null && !rv.isEmpty() ? rv : null;
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

    /** The newest gate record for a node, with the resourceVersion its annotation left (if any). */
    public record Latest(GateRecord record, Path file, String annotatedResourceVersion) {
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
                best = new Latest(r, p, rv);
            }
        }
        return Optional.ofNullable(best);
    }
}
