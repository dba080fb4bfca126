package io.nodegate.lifecycle.gate;

import io.nodegate.model.DaemonSetInfo;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.SecretMeta;

import java.time.Instant;
import java.util.List;

/**
 * What the cluster says now, gathered by {@link GateEvidenceCollector}. Nullable object fields mean the API
 * answered NotFound. When {@code collectionError} is set, a call failed and the rest must not be trusted.
 *
 * @param metallbAnnouncers null when the MetalLB API is not served
 * @param etcd              per-endpoint answers; empty when no etcd source was given
 */
public record GateEvidence(
        Instant observedAt,
        NodeInfo target,
        LeaseInfo targetLease,
        List<NodeInfo> nodes,
        List<DaemonSetInfo> daemonSets,
        List<String> metallbAnnouncers,
        List<EtcdEndpointReport> etcd,
        NodeInfo control,
        Integer controlPods,
        SecretMeta controlNodePassword,
        String collectionError) {

    public GateEvidence {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        daemonSets = daemonSets == null ? List.of() : List.copyOf(daemonSets);
        metallbAnnouncers = metallbAnnouncers == null ? null : List.copyOf(metallbAnnouncers);
        etcd = etcd == null ? List.of() : List.copyOf(etcd);
    }

    public static GateEvidence failed(Instant at, String error) {
        return new GateEvidence(at, null, null, List.of(), List.of(), null, List.of(), null, null, null, error);
    }
}
