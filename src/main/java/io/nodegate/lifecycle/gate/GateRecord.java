package io.nodegate.lifecycle.gate;

import java.time.Instant;
import java.util.List;

/**
 * One gate run as written to the evidence directory (gate-&lt;node&gt;-&lt;time&gt;.json). {@code nodeUid} and
 * {@code nodeResourceVersion} are the object the verdict is about: remove deletes only that object.
 * {@code notChecked} names the checks whose input was not given (host, fleet): a PASS says nothing about them.
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
        String override) {

    public static final String KIND = "nodegate.io/gate-record";

    public GateRecord {
        reasons = List.copyOf(reasons);
        // records written before notChecked was recorded read as none
        notChecked = notChecked == null ? List.of() : List.copyOf(notChecked);
        checks = List.copyOf(checks);
    }

    /** Written after --annotate changed the Node: the resourceVersion remove must then see. */
    public record Annotation(String kind, String node, String gateRecord, String sha256, String nodeUid,
                             String nodeResourceVersion, Instant annotatedAt) {
        public static final String KIND = "nodegate.io/gate-annotation";
    }
}
