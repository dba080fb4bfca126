package io.nodegate.model;

import io.nodegate.model.bmc.BmcReadings;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One immutable snapshot of what nodegate read about a cluster, whatever the source (live API, kubectl
 * dumps, etcd). Detectors read only this. Lists are sorted by name so that equal inputs give equal output.
 *
 * @param now           the clock ages are computed against (collection time, or --now offline)
 * @param source        human description of where this came from
 * @param context       kubeconfig context name, if known
 * @param server        API server URL, if known
 * @param serverVersion apiserver gitVersion (e.g. v1.34.1+rke2r1), null when unknown
 * @param notes         things the reader should know: optional APIs absent, objects skipped
 * @param tombstones    hosts `nodegate remove` deleted here (ConfigMap nodegate-system/nodegate-tombstones);
 *                      absent when not read (offline input without them)
 * @param bmc           what the hosts' BMCs said over Redfish (--bmc); {@link BmcReadings#NOT_READ} when none was asked
 */
public record ClusterState(
        Instant now,
        String source,
        String context,
        String server,
        String serverVersion,
        List<NodeInfo> nodes,
        List<LeaseInfo> nodeLeases,
        List<SecretMeta> nodePasswordSecrets,
        Collected<CsiNodeInfo> csiNodes,
        ApiEndpoints apiEndpoints,
        List<DaemonSetInfo> daemonSets,
        Collected<JobInfo> cattleJobs,
        List<LeaseInfo> controlPlaneLeases,
        Collected<PodInfo> pods,
        List<EtcdEndpointReport> etcd,
        List<String> notes,
        Collected<Tombstone> tombstones,
        BmcReadings bmc) {

    /** A snapshot without tombstones read (etcd-only states, fixtures): NG302 then has nothing to compare. */
    public ClusterState(Instant now, String source, String context, String server, String serverVersion,
                        List<NodeInfo> nodes, List<LeaseInfo> nodeLeases, List<SecretMeta> nodePasswordSecrets,
                        Collected<CsiNodeInfo> csiNodes, ApiEndpoints apiEndpoints, List<DaemonSetInfo> daemonSets,
                        Collected<JobInfo> cattleJobs, List<LeaseInfo> controlPlaneLeases, Collected<PodInfo> pods,
                        List<EtcdEndpointReport> etcd, List<String> notes) {
        this(now, source, context, server, serverVersion, nodes, nodeLeases, nodePasswordSecrets, csiNodes,
                apiEndpoints, daemonSets, cattleJobs, controlPlaneLeases, pods, etcd, notes, Collected.absent());
    }

    /** A snapshot without BMC readings (no --bmc given). */
    public ClusterState(Instant now, String source, String context, String server, String serverVersion,
                        List<NodeInfo> nodes, List<LeaseInfo> nodeLeases, List<SecretMeta> nodePasswordSecrets,
                        Collected<CsiNodeInfo> csiNodes, ApiEndpoints apiEndpoints, List<DaemonSetInfo> daemonSets,
                        Collected<JobInfo> cattleJobs, List<LeaseInfo> controlPlaneLeases, Collected<PodInfo> pods,
                        List<EtcdEndpointReport> etcd, List<String> notes, Collected<Tombstone> tombstones) {
        this(now, source, context, server, serverVersion, nodes, nodeLeases, nodePasswordSecrets, csiNodes,
                apiEndpoints, daemonSets, cattleJobs, controlPlaneLeases, pods, etcd, notes, tombstones,
                BmcReadings.NOT_READ);
    }

    public ClusterState {
        tombstones = tombstones == null ? Collected.absent() : tombstones;
        bmc = bmc == null ? BmcReadings.NOT_READ : bmc;
        nodes = List.copyOf(nodes);
        nodeLeases = List.copyOf(nodeLeases);
        nodePasswordSecrets = List.copyOf(nodePasswordSecrets);
        csiNodes = csiNodes == null ? Collected.absent() : csiNodes;
        apiEndpoints = apiEndpoints == null ? ApiEndpoints.NONE : apiEndpoints;
        daemonSets = List.copyOf(daemonSets);
        cattleJobs = cattleJobs == null ? Collected.absent() : cattleJobs;
        controlPlaneLeases = controlPlaneLeases == null ? List.of() : List.copyOf(controlPlaneLeases);
        pods = pods == null ? Collected.absent() : pods;
        etcd = etcd == null ? List.of() : List.copyOf(etcd);
        notes = notes == null ? List.of() : List.copyOf(notes);
    }

    public Optional<NodeInfo> node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst();
    }

    /** The kubelet heartbeat Lease of a node (kube-node-lease/&lt;node&gt;). */
    public Optional<LeaseInfo> leaseOf(String nodeName) {
        return nodeLeases.stream().filter(l -> l.name().equals(nodeName)).findFirst();
    }

    /**
     * Node Leases by name (the first of a name, as {@link #leaseOf}): for lookups inside a loop over nodes, where
     * {@link #leaseOf} per node would cost 12.5 million compares at 5,000 nodes.
     */
    public Map<String, LeaseInfo> nodeLeasesByName() {
        Map<String, LeaseInfo> leases = new HashMap<>();
        nodeLeases.forEach(l -> leases.putIfAbsent(l.name(), l));
        return leases;
    }

    /** Nodes by name; the first of a repeated name wins, as in {@link #node(String)}. */
    public Map<String, NodeInfo> nodesByName() {
        return nodes.stream().collect(Collectors.toMap(NodeInfo::name, Function.identity(), (first, later) -> first,
                java.util.LinkedHashMap::new));
    }

    public ClusterState withEtcd(List<EtcdEndpointReport> reports) {
        return new ClusterState(now, source, context, server, serverVersion, nodes, nodeLeases,
                nodePasswordSecrets, csiNodes, apiEndpoints, daemonSets, cattleJobs, controlPlaneLeases, pods,
                reports, notes, tombstones, bmc);
    }

    public ClusterState withNow(Instant newNow) {
        return new ClusterState(newNow, source, context, server, serverVersion, nodes, nodeLeases,
                nodePasswordSecrets, csiNodes, apiEndpoints, daemonSets, cattleJobs, controlPlaneLeases, pods,
                etcd, notes, tombstones, bmc);
    }

    /** This snapshot with what the BMCs said (the BMCs are read apart from the API, by the source the command uses). */
    public ClusterState withBmc(BmcReadings readings) {
        return new ClusterState(now, source, context, server, serverVersion, nodes, nodeLeases,
                nodePasswordSecrets, csiNodes, apiEndpoints, daemonSets, cattleJobs, controlPlaneLeases, pods,
                etcd, notes, tombstones, readings);
    }
}
