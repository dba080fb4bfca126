package io.nodegate.lifecycle.gate;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
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

    private final KubernetesClient client;
    private final EvidenceStore store;
    private final Clock clock;

    public GateService(KubernetesClient client, EvidenceStore store, Clock clock) {
        this.client = client;
        this.store = store;
        this.clock = clock;
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
        ApiReader api = new ApiReader(client);
        request = HostEvidenceStep.withReportedRemoval(request, host);
        GateEvidence evidence = new GateEvidenceCollector(api, clock).collect(baseline, request.node(), etcd);
        if (fleet != null || fleetError != null) {
            evidence = evidence.withFleet(fleet, fleetError == null ? null : "fleet cluster " + fleetError);
        }
        HostEvidenceStep.Outcome hostStep = HostEvidenceStep.collect(api, client.getConfiguration(), host, evidence);
        evidence = hostStep.evidence();
        GateResult result = GateDecision.decide(baseline, evidence, request, hostStep.given());
        GateRecord record = new GateRecord(GateRecord.KIND, request.node(), evidence.observedAt(), result.verdict(),
                result.reasons(), result.checks(),
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
            annotation = annotate(record, name, sha);
        }
        return new Run(result, record, file, sha, annotation);
    }

    /**
     * Writes the verdict onto the Node, conditional on the resourceVersion the gate saw (a merge patch carrying
     * metadata.resourceVersion is rejected with 409 if the Node changed). Not done for INVALID: nothing the run
     * saw can be trusted, so it writes nothing.
     */
    private String annotate(GateRecord record, String name, String sha) {
        if (record.verdict() == Verdict.INVALID || record.nodeUid() == null) {
            return "not annotated: verdict " + record.verdict() + (record.nodeUid() == null ? " (Node not seen)" : "");
        }
        Map<String, Object> patch = Map.of("metadata", Map.of(
                "uid", record.nodeUid(),
                "resourceVersion", record.nodeResourceVersion(),
                "annotations", Map.of(ANN_VERDICT, record.verdict().name(),
                        ANN_AT, record.gatedAt().toString(), ANN_EVIDENCE, "sha256:" + sha)));
        io.fabric8.kubernetes.api.model.Node patched;
        try {
            patched = client.nodes().withName(record.node())
                    .patch(PatchContext.of(PatchType.JSON_MERGE), Json.MAPPER.writeValueAsString(patch));
        } catch (RuntimeException e) {
            boolean conflict = e instanceof KubernetesClientException k && k.getCode() == 409;
            throw new CollectionException("annotating Node " + record.node() + " failed (" + ApiReader.describe(e)
                    + (conflict ? ": the Node changed since the gate read it" : "") + "); the gate record "
                    + "is kept but the Node carries no new verdict", e);
        }
        if (patched == null || patched.getMetadata() == null) {
            throw new CollectionException("annotating Node " + record.node() + ": unparsable answer");
        }
        store.writeJson(name + ".annotation.json", new GateRecord.Annotation(GateRecord.Annotation.KIND, record.node(),
                name + ".json", sha, patched.getMetadata().getUid(), patched.getMetadata().getResourceVersion(),
                clock.instant()));
        return "annotated " + ANN_VERDICT + "=" + record.verdict();
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
