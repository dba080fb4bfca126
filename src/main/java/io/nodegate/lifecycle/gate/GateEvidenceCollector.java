package io.nodegate.lifecycle.gate;

import io.nodegate.lifecycle.ApiReader;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.CollectionException;

import java.time.Clock;
import java.util.List;

/** Gathers the gate's evidence. A failed call does not throw: it becomes the evidence's collectionError. */
public final class GateEvidenceCollector {

    private final ApiReader api;
    private final Clock clock;

    public GateEvidenceCollector(ApiReader api, Clock clock) {
        this.api = api;
        this.clock = clock;
    }

    public GateEvidence collect(Baseline baseline, String node, List<EtcdEndpointReport> etcd) {
        try {
            NodeInfo target = api.node(node).orElse(null);
            var lease = api.lease(node).orElse(null);
            List<NodeInfo> nodes = api.nodes();
            var ds = api.daemonSets();
            var metallb = api.metallbAnnouncers();
            String controlName = baseline.control().name();
            NodeInfo control = api.node(controlName).orElse(null);
            Integer controlPods = control == null ? null : api.podsOn(controlName).size();
            SecretMeta controlSecret = control == null ? null : api.nodePasswordSecret(controlName).orElse(null);
            var nodeLeases = api.nodeLeases();
            // what removing a server leaves (its apiserver among them) is judged only for servers
            var apiEndpoints = target != null && ServerRedundancyCheck.isServer(target, baseline.target(node))
                    ? api.apiEndpoints() : null;
            return new GateEvidence(clock.instant(), target, lease, nodes, ds, metallb.present() ? metallb.items() : null,
                    etcd, control, controlPods, controlSecret, null, nodeLeases, apiEndpoints);
        } catch (CollectionException e) {
            return GateEvidence.failed(clock.instant(), e.getMessage());
        }
    }
}
