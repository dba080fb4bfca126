package io.nodegate.lifecycle.gate;

import io.nodegate.source.kube.ApiReader;
import io.nodegate.probe.KubeletEvidence;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.model.KubeletAnswer;
import io.nodegate.CollectionException;

import java.util.List;

/**
 * The gate's host-evidence step around the API evidence: collect (probe the kubelet port when asked), hand the
 * checks their input ({@link HostReportCheck}, {@link KubeletPortCheck}, {@link NoHostEvidenceCheck}) and record (keep the host report beside the gate record, byte
 * for byte, so its sha256 still holds; it never holds a token or password, `host inspect` does not read them).
 */
final class HostEvidenceStep {

    private HostEvidenceStep() {
    }

    record Outcome(GateEvidence evidence, HostInputs host, KubeletAnswer kubelet, String apiServer) {

        /** What the gate's host checks read. */
        HostEvidence.Given given() {
            return HostEvidenceStep.given(host, kubelet, apiServer);
        }

        void keepReport(EvidenceStore store, String recordName) {
            if (host.report() == null) {
                return;
            }
            store.writeText(recordName + ".host-report.json", host.report().text());
        }
    }

    /** Probes the target's kubelet port when asked; a failed CA read makes the whole run's evidence failed. */
    static Outcome collect(ApiReader api, HostInputs host, GateEvidence evidence) {
        if (host.probe() == null || evidence.collectionError() != null || evidence.target() == null) {
            return new Outcome(evidence, host, null, api.server());
        }
        try {
            KubeletEvidence kubelets = new KubeletEvidence(api, host.probe().port(), host.probe().timeout());
            KubeletAnswer answer = kubelets.probe(List.of(evidence.target()), kubelets.clusterCas()).get(0);
            return new Outcome(evidence, host, answer, api.server());
        } catch (CollectionException e) {
            return new Outcome(GateEvidence.failed(evidence.observedAt(), e.getMessage()), host, null, api.server());
        }
    }

    static HostEvidence.Given given(HostInputs host, KubeletAnswer kubelet, String apiServer) {
        if (host.report() == null) {
            return new HostEvidence.Given(null, null, null, kubelet, apiServer, host.clusterAddresses());
        }
        return new HostEvidence.Given(host.report().report(), host.report().file().toString(),
                host.report().actualSha256(), kubelet, apiServer, host.clusterAddresses());
    }
}
