package io.nodegate.lifecycle.gate;

import io.nodegate.source.kube.ApiReader;
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
            if (nodes.isEmpty()) {
                throw new CollectionException("LIST nodes at " + server() + " answered no Node at all: a live cluster "
                        + "has Nodes (the baseline's control node among them), so this is no answer to judge by");
            }
            requireListed("LIST nodes", nodes.stream().map(NodeInfo::name).toList(), target == null ? null : node,
                    "Node");
            var ds = api.daemonSets();
            var metallb = api.metallbAnnouncers();
            String controlName = baseline.control().name();
            NodeInfo control = api.node(controlName).orElse(null);
            requireListed("LIST nodes", nodes.stream().map(NodeInfo::name).toList(),
                    control == null ? null : controlName, "Node");
            Integer controlPods = control == null ? null : api.podsOn(controlName).size();
            SecretMeta controlSecret = control == null ? null : api.nodePasswordSecret(controlName).orElse(null);
            var nodeLeases = api.nodeLeases();
            // the batch check compares the target's Lease with every other: a Lease LIST without it compares nothing
            requireListed("LIST leases in " + ApiReader.NODE_LEASE_NS, nodeLeases.stream().map(l -> l.name()).toList(),
                    lease == null ? null : node, "Lease");
            // what removing a server leaves (its apiserver among them) is judged only for servers
            var apiEndpoints = target != null && ServerRedundancyCheck.isServer(target, baseline.target(node))
                    ? api.apiEndpoints() : null;
            return GateEvidence.builder(clock.instant()).target(target).targetLease(lease).nodes(nodes).daemonSets(ds)
                    .metallbAnnouncers(metallb.present() ? metallb.items() : null).etcd(etcd).control(control)
                    .controlPods(controlPods).controlNodePassword(controlSecret).nodeLeases(nodeLeases)
                    .apiEndpoints(apiEndpoints).build();
        } catch (CollectionException e) {
            return GateEvidence.failed(clock.instant(), e.getMessage());
        }
    }

    /**
     * A LIST must hold what a GET of the same server found a moment before. One that does not is a broken answer (a
     * proxy or cache serving an old or empty list), even when well formed: the checks that read it (the batch stop
     * over every Lease, the cluster compared with the baseline) would pass on what it leaves out.
     *
     * @param found the name a GET found, or null when it found nothing (then there is nothing to require)
     */
    private void requireListed(String list, List<String> names, String found, String kind) {
        if (found != null && !names.contains(found)) {
            throw new CollectionException(list + " at " + server() + " lacks " + kind + " " + found + ", which GET "
                    + "found a moment before (" + names.size() + " listed): the two answers disagree (a proxy or cache "
                    + "answering in the API server's place?)");
        }
    }

    private String server() {
        return api.connection().server();
    }
}
