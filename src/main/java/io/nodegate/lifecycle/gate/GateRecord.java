package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import java.time.Instant;
import java.util.List;

/**
 * One gate run as written to the evidence directory (gate-&lt;node&gt;-&lt;time&gt;.json). {@code nodeUid} and
 * {@code nodeResourceVersion} are the object the verdict is about: remove deletes only that object.
 * {@code notChecked} names the checks whose input was not given (host, fleet): a PASS says nothing about them. With
 * --machine-context, {@code machine} is the Node's Rancher Machine as the gate saw it: `remove --machine-context`
 * deletes only that Machine (null when no management cluster was given, or no single Machine was found).
 */
public record GateRecord(
        String kind,
        String node,
        Instant gatedAt,
        Verdict verdict,
        List<String> reasons,
        List<String> notChecked,
        List<Check> checks,
        String nodeUid,
        String nodeResourceVersion,
        String baselineFile,
        String baselineSha256,
        Instant baselineTs,
        String server,
        GateRequest request,
        String override,
        MachineRef machine) {

    public static final String KIND = "nodegate.io/gate-record";

    public GateRecord {
        reasons = List.copyOf(reasons);
        // records written before notChecked was recorded read as none
        notChecked = notChecked == null ? List.of() : List.copyOf(notChecked);
        checks = List.copyOf(checks);
    }

    /** Without a Machine (no --machine-context): every record before it had none. */
    public GateRecord(String kind, String node, Instant gatedAt, Verdict verdict, List<String> reasons,
                      List<String> notChecked, List<Check> checks, String nodeUid, String nodeResourceVersion,
                      String baselineFile, String baselineSha256, Instant baselineTs, String server,
                      GateRequest request, String override) {
        this(kind, node, gatedAt, verdict, reasons, notChecked, checks, nodeUid, nodeResourceVersion, baselineFile,
                baselineSha256, baselineTs, server, request, override, null);
    }

    /**
     * The Rancher Machine a verdict is also about.
     *
     * @param server          the management cluster's API server the Machine was read from
     * @param cluster         the downstream cluster's name in Rancher (spec.clusterName)
     * @param nodeRefUid      null where Cluster API records none (v1.11+)
     */
    public record MachineRef(String server, String namespace, String name, String uid, String resourceVersion,
                             String cluster, String nodeRefName, String nodeRefUid, String bootId, String phase) {
    }

    /** Written after --annotate changed the Machine: the resourceVersion `remove --machine-context` must then see. */
    public record MachineAnnotation(String kind, String node, String gateRecord, String sha256, String namespace,
                                    String name, String machineUid, String machineResourceVersion,
                                    Instant annotatedAt) {
        public static final String KIND = "nodegate.io/gate-machine-annotation";
    }

    /** Written after --annotate changed the Node: the resourceVersion remove must then see. */
    public record Annotation(String kind, String node, String gateRecord, String sha256, String nodeUid,
                             String nodeResourceVersion, Instant annotatedAt) {
        public static final String KIND = "nodegate.io/gate-annotation";
    }
}
