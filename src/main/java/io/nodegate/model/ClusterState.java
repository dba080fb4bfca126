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
 * Build one by name with {@link #builder}, or change a copy with {@link #toBuilder} / the {@code with...} methods.
 *
 * @param now           the clock ages are judged against: no earlier than the newest read's answer (live), the
 *                      reads' end written by `collect`, or --now offline. Not the snapshot's time: see readsStarted
 * @param readsStarted  the snapshot's time: when its first read was sent (collectedAt offline). A Node created after
 *                      it may be missing, so a baseline or "created since" taken from a snapshot is this, never
 *                      {@code now}; the same as {@code now} when the source has one time (a watch pass, --now)
 * @param source        human description of where this came from
 * @param context       kubeconfig context name, if known
 * @param server        API server URL, if known
 * @param serverVersion apiserver gitVersion (e.g. v1.34.1+rke2r1), null when unknown
 * @param notes         things the reader should know: optional APIs absent, objects skipped
 * @param tombstones    hosts `nodegate remove` deleted here (ConfigMap nodegate-system/nodegate-tombstones);
 *                      absent when not read (offline input without them)
 * @param bmc           what the hosts' BMCs said over Redfish (--bmc); {@link BmcReadings#NOT_READ} when none was asked
 * @param handovers     which Nodes are part of an open NodeHandover; {@link OpenHandovers#NOT_READ} when not read
 * @param inventory     the declared hosts (ConfigMap nodegate-system/nodegate-inventory, read with the tombstones);
 *                      null when none is declared or it was not read: then nothing is compared with it
 */
public record ClusterState(
        Instant now,
        Instant readsStarted,
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
        BmcReadings bmc,
        OpenHandovers handovers,
        NodeInventory inventory) {

    public ClusterState {
        readsStarted = readsStarted == null ? now : readsStarted;
        tombstones = tombstones == null ? Collected.absent() : tombstones;
        bmc = bmc == null ? BmcReadings.NOT_READ : bmc;
        handovers = handovers == null ? OpenHandovers.NOT_READ : handovers;
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
        return toBuilder().etcd(reports).build();
    }

    /** This snapshot judged at {@code newNow}, and taken then: both times (tests that compare two reads' results). */
    public ClusterState withNow(Instant newNow) {
        return toBuilder().now(newNow).readsStarted(newNow).build();
    }

    /** This snapshot with what the BMCs said (the BMCs are read apart from the API, by the source the command uses). */
    public ClusterState withBmc(BmcReadings readings) {
        return toBuilder().bmc(readings).build();
    }

    /** This snapshot with the open hand-overs read beside it. */
    public ClusterState withHandovers(OpenHandovers value) {
        return toBuilder().handovers(value).build();
    }

    /**
     * A snapshot taken at {@code now} from {@code source}, by name: every part not set is not read (empty lists,
     * {@link Collected#absent()}, {@link ApiEndpoints#NONE}, {@link BmcReadings#NOT_READ}), as the canonical
     * constructor makes of nulls. Use this, not the 18-argument constructor, so that a new part is one setter.
     */
    public static Builder builder(Instant now, String source) {
        return new Builder().now(now).source(source);
    }

    /** A builder holding every part of this snapshot, to change a few by name. */
    public Builder toBuilder() {
        return new Builder().now(now).readsStarted(readsStarted).source(source).context(context).server(server)
                .serverVersion(serverVersion)
                .nodes(nodes).nodeLeases(nodeLeases).nodePasswordSecrets(nodePasswordSecrets).csiNodes(csiNodes)
                .apiEndpoints(apiEndpoints).daemonSets(daemonSets).cattleJobs(cattleJobs)
                .controlPlaneLeases(controlPlaneLeases).pods(pods).etcd(etcd).notes(notes).tombstones(tombstones)
                .bmc(bmc).handovers(handovers).inventory(inventory);
    }

    /** Named construction of a {@link ClusterState}; see {@link #builder}. Not shared between threads. */
    public static final class Builder {
        private Instant now;
        private Instant readsStarted;
        private String source;
        private String context;
        private String server;
        private String serverVersion;
        private List<NodeInfo> nodes = List.of();
        private List<LeaseInfo> nodeLeases = List.of();
        private List<SecretMeta> nodePasswordSecrets = List.of();
        private Collected<CsiNodeInfo> csiNodes;
        private ApiEndpoints apiEndpoints;
        private List<DaemonSetInfo> daemonSets = List.of();
        private Collected<JobInfo> cattleJobs;
        private List<LeaseInfo> controlPlaneLeases;
        private Collected<PodInfo> pods;
        private List<EtcdEndpointReport> etcd;
        private List<String> notes;
        private Collected<Tombstone> tombstones;
        private NodeInventory inventory;
        private BmcReadings bmc;
        private OpenHandovers handovers;

        private Builder() {
        }

        public Builder now(Instant value) {
            now = value;
            return this;
        }

        /** The snapshot's time when it is earlier than {@code now} (live reads that took a while); default now. */
        public Builder readsStarted(Instant value) {
            readsStarted = value;
            return this;
        }

        public Builder source(String value) {
            source = value;
            return this;
        }

        public Builder context(String value) {
            context = value;
            return this;
        }

        public Builder server(String value) {
            server = value;
            return this;
        }

        public Builder serverVersion(String value) {
            serverVersion = value;
            return this;
        }

        public Builder nodes(List<NodeInfo> value) {
            nodes = value == null ? List.of() : value;
            return this;
        }

        public Builder nodeLeases(List<LeaseInfo> value) {
            nodeLeases = value == null ? List.of() : value;
            return this;
        }

        public Builder nodePasswordSecrets(List<SecretMeta> value) {
            nodePasswordSecrets = value == null ? List.of() : value;
            return this;
        }

        public Builder csiNodes(Collected<CsiNodeInfo> value) {
            csiNodes = value;
            return this;
        }

        public Builder apiEndpoints(ApiEndpoints value) {
            apiEndpoints = value;
            return this;
        }

        public Builder daemonSets(List<DaemonSetInfo> value) {
            daemonSets = value == null ? List.of() : value;
            return this;
        }

        public Builder cattleJobs(Collected<JobInfo> value) {
            cattleJobs = value;
            return this;
        }

        public Builder controlPlaneLeases(List<LeaseInfo> value) {
            controlPlaneLeases = value;
            return this;
        }

        public Builder pods(Collected<PodInfo> value) {
            pods = value;
            return this;
        }

        public Builder etcd(List<EtcdEndpointReport> value) {
            etcd = value;
            return this;
        }

        public Builder notes(List<String> value) {
            notes = value;
            return this;
        }

        public Builder tombstones(Collected<Tombstone> value) {
            tombstones = value;
            return this;
        }

        public Builder bmc(BmcReadings value) {
            bmc = value;
            return this;
        }

        public Builder handovers(OpenHandovers value) {
            handovers = value;
            return this;
        }

        public Builder inventory(NodeInventory value) {
            inventory = value;
            return this;
        }

        public ClusterState build() {
            return new ClusterState(now, readsStarted, source, context, server, serverVersion, nodes, nodeLeases,
                    nodePasswordSecrets, csiNodes, apiEndpoints, daemonSets, cattleJobs, controlPlaneLeases, pods,
                    etcd, notes, tombstones, bmc, handovers, inventory);
        }
    }
}
