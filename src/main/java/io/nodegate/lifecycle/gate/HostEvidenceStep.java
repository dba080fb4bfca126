package io.nodegate.lifecycle.gate;

import io.fabric8.kubernetes.client.Config;
import io.nodegate.lifecycle.ApiReader;
import io.nodegate.lifecycle.KubeletEvidence;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.model.KubeletAnswer;
import io.nodegate.CollectionException;
import io.nodegate.InputException;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The gate's host-evidence step around the API evidence: collect (probe the kubelet port when asked), decide (add
 * {@link HostEvidence}'s checks to the API checks) and record (keep the host report beside the gate record, byte
 * for byte, so its sha256 still holds; it never holds a token or password, `host inspect` does not read them).
 */
final class HostEvidenceStep {

    private HostEvidenceStep() {
    }

    /** A clean host report that records the removal time stands in for a --removed-at that was not given. */
    static GateRequest withReportedRemoval(GateRequest request, HostInputs host) {
        HostEvidence.Given given = given(host, null);
        Instant reported = HostEvidence.removalTime(given);
        if (request.removedAt() != null || reported == null) {
            return request;
        }
        return new GateRequest(request.node(), reported,
                request.replyFrom() != null ? request.replyFrom() : "host report " + host.report().file(),
                request.reply() != null ? request.reply()
                        : "clean; removed at " + reported + " (" + host.report().report().removal().source() + ")",
                request.matchWindow(), request.replyCovers(), request.batchWindow());
    }

    record Outcome(GateEvidence evidence, HostInputs host, KubeletAnswer kubelet, String apiServer) {

        GateResult decide(GateResult api) {
            if (evidence.collectionError() != null || evidence.target() == null) {
                return api;
            }
            List<Check> extra = HostEvidence.checks(given(host, kubelet), evidence.target(), evidence.targetLease(),
                    HostEvidence.clusterHosts(apiServer, evidence.nodes(), host.clusterAddresses()));
            List<Check> checks = new ArrayList<>(api.checks());
            checks.addAll(extra);
            Verdict verdict = api.verdict();
            for (Check c : extra) {
                verdict = Verdict.worst(verdict, c.outcome());
            }
            return new GateResult(api.node(), verdict, checks);
        }

        void keepReport(EvidenceStore store, String recordName) {
            if (host.report() == null) {
                return;
            }
            try {
                store.writeText(recordName + ".host-report.json", Files.readString(host.report().file()));
            } catch (IOException e) {
                throw new InputException("cannot copy host report " + host.report().file() + " into the evidence: "
                        + e.getMessage(), e);
            }
        }
    }

    /** Probes the target's kubelet port when asked; a failed CA read makes the whole run's evidence failed. */
    static Outcome collect(ApiReader api, Config config, HostInputs host, GateEvidence evidence) {
        if (host.probe() == null || evidence.collectionError() != null || evidence.target() == null) {
            return new Outcome(evidence, host, null, api.server());
        }
        try {
            KubeletEvidence kubelets = new KubeletEvidence(api, config, host.probe().port(), host.probe().timeout());
            KubeletAnswer answer = kubelets.probe(List.of(evidence.target()), kubelets.clusterCas()).get(0);
            return new Outcome(evidence, host, answer, api.server());
        } catch (CollectionException e) {
            return new Outcome(GateEvidence.failed(evidence.observedAt(), e.getMessage()), host, null, api.server());
        }
    }

    private static HostEvidence.Given given(HostInputs host, KubeletAnswer kubelet) {
        if (host.report() == null) {
            return new HostEvidence.Given(null, null, null, kubelet);
        }
        return new HostEvidence.Given(host.report().report(), host.report().file().toString(),
                host.report().actualSha256(), kubelet);
    }
}
