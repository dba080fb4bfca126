package io.nodegate.lifecycle.gate;

import io.nodegate.detect.controlplane.NamedView;

import io.nodegate.model.ApiEndpoints;
import io.nodegate.model.DaemonSetInfo;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.model.bmc.BmcReadings;

import java.time.Instant;
import java.util.List;

/**
 * What the cluster says now, gathered by {@link GateEvidenceCollector}. Nullable object fields mean the API
 * answered NotFound. When {@code collectionError} is set, a call failed and the rest must not be trusted.
 *
 * @param metallbAnnouncers null when the MetalLB API is not served
 * @param etcd              per-endpoint answers; empty when no etcd source was given
 * @param nodeLeases        every Lease in kube-node-lease; null when not collected
 * @param fleet             the Nodes of the other clusters given with --fleet-context/--fleet-kubeconfig; null
 *                          when none was given (the fleet check then says "not checked")
 * @param bmc               what the hosts' BMCs said (--bmc/--bmc-inventory); null when none was given (the bmc check
 *                          then says "not checked"). A BMC that failed is in it with its error, not here as a
 *                          collection error: it makes the bmc check INVALID, and so the run
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
        String collectionError,
        List<LeaseInfo> nodeLeases,
        List<NamedView> fleet,
        ApiEndpoints apiEndpoints,
        MachineEvidence machine,
        BmcReadings bmc) {

    /** Evidence without the other node Leases: the batch check does not apply (tests of the other checks). */
    public GateEvidence(Instant observedAt, NodeInfo target, LeaseInfo targetLease, List<NodeInfo> nodes,
                        List<DaemonSetInfo> daemonSets, List<String> metallbAnnouncers, List<EtcdEndpointReport> etcd,
                        NodeInfo control, Integer controlPods, SecretMeta controlNodePassword, String collectionError) {
        this(observedAt, target, targetLease, nodes, daemonSets, metallbAnnouncers, etcd, control, controlPods,
                controlNodePassword, collectionError, null, null, null, null, null);
    }

    /** Evidence without a fleet: the fleet check says "not checked". */
    public GateEvidence(Instant observedAt, NodeInfo target, LeaseInfo targetLease, List<NodeInfo> nodes,
                        List<DaemonSetInfo> daemonSets, List<String> metallbAnnouncers, List<EtcdEndpointReport> etcd,
                        NodeInfo control, Integer controlPods, SecretMeta controlNodePassword, String collectionError,
                        List<LeaseInfo> nodeLeases) {
        this(observedAt, target, targetLease, nodes, daemonSets, metallbAnnouncers, etcd, control, controlPods,
                controlNodePassword, collectionError, nodeLeases, null, null, null, null);
    }

    /** Evidence with the apiserver endpoints read for a server target (nothing of a fleet or a Machine yet). */
    public GateEvidence(Instant observedAt, NodeInfo target, LeaseInfo targetLease, List<NodeInfo> nodes,
                        List<DaemonSetInfo> daemonSets, List<String> metallbAnnouncers, List<EtcdEndpointReport> etcd,
                        NodeInfo control, Integer controlPods, SecretMeta controlNodePassword, String collectionError,
                        List<LeaseInfo> nodeLeases, ApiEndpoints apiEndpoints) {
        this(observedAt, target, targetLease, nodes, daemonSets, metallbAnnouncers, etcd, control, controlPods,
                controlNodePassword, collectionError, nodeLeases, null, apiEndpoints, null, null);
    }

    /** This evidence with the other clusters' Nodes (or, when reading one failed, that failure). */
    public GateEvidence withFleet(List<NamedView> views, String error) {
        return new GateEvidence(observedAt, target, targetLease, nodes, daemonSets, metallbAnnouncers, etcd, control,
                controlPods, controlNodePassword, collectionError != null ? collectionError : error, nodeLeases,
                views == null ? null : List.copyOf(views), apiEndpoints, machine, bmc);
    }

    /** This evidence with what the management cluster said about the target's Machine (or why reading it failed). */
    public GateEvidence withMachine(MachineEvidence found, String error) {
        return new GateEvidence(observedAt, target, targetLease, nodes, daemonSets, metallbAnnouncers, etcd, control,
                controlPods, controlNodePassword, collectionError != null ? collectionError : error, nodeLeases, fleet,
                apiEndpoints, found, bmc);
    }

    /** This evidence with what the hosts' BMCs said (null: no BMC was given). */
    public GateEvidence withBmc(BmcReadings readings) {
        return new GateEvidence(observedAt, target, targetLease, nodes, daemonSets, metallbAnnouncers, etcd, control,
                controlPods, controlNodePassword, collectionError, nodeLeases, fleet, apiEndpoints, machine, readings);
    }

    public GateEvidence {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        daemonSets = daemonSets == null ? List.of() : List.copyOf(daemonSets);
        metallbAnnouncers = metallbAnnouncers == null ? null : List.copyOf(metallbAnnouncers);
        etcd = etcd == null ? List.of() : List.copyOf(etcd);
        nodeLeases = nodeLeases == null ? null : List.copyOf(nodeLeases);
    }

    public static GateEvidence failed(Instant at, String error) {
        return new GateEvidence(at, null, null, List.of(), List.of(), null, List.of(), null, null, null, error);
    }
}
