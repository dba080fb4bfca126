package io.nodegate.detect.probe;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.PodInfo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * NG214 leader-election-lost: a pod whose last container termination message says "leader election lost"
 * (case-insensitive), the error controller-runtime's manager returns when it could not renew its Lease within
 * the renew deadline. Its process then exits and the container restarts (seed 003: operators restarting 62
 * times). Info: it points at slow or unreachable apiservers, it does not prove one.
 */
public final class LeaderElectionLostDetector implements Detector {

    public static final FindingCode CODE = FindingCode.NG214;
    static final String NEEDLE = "leader election lost";

    @Override
    public FindingCode code() {
        return CODE;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        if (!state.pods().present()) {
            return List.of();
        }
        List<Finding> findings = new ArrayList<>();
        for (PodInfo p : state.pods().items()) {
            String message = p.lastTerminationMessage();
            if (message == null || !message.toLowerCase(Locale.ROOT).contains(NEEDLE)) {
                continue;
            }
            Map<String, Object> evidence = new LinkedHashMap<>();
            evidence.put("pod", p.namespace() + "/" + p.name());
            evidence.put("node", p.nodeName());
            evidence.put("lastTerminationMessage", excerpt(message));
            findings.add(new Finding(CODE, Severity.INFO,
                    p.nodeName() == null ? List.of() : List.of(p.nodeName()),
                    "pod " + p.namespace() + "/" + p.name() + " last terminated with \"leader election lost\": it "
                            + "could not renew its leader Lease in time and exited.",
                    evidence,
                    "Compare the apiservers' Lease renewal latencies (nodegate probe apiservers). controller-runtime defaults: "
                            + "LeaseDuration 15s, RenewDeadline 10s, RetryPeriod 2s; a renewal that stalls on one "
                            + "slow apiserver is enough."));
        }
        return findings;
    }

    private static String excerpt(String message) {
        String oneLine = message.strip().replaceAll("\\s+", " ");
        return oneLine.length() <= 300 ? oneLine : oneLine.substring(0, 300) + "…";
    }
}
