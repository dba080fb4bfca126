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
 * answered NotFound. When {@code collectionError} is set, a call failed and the rest must not be trusted. Built by
 * name with {@link #builder}.
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

    /** This evidence with the other clusters' Nodes (or, when reading one failed, that failure). */
    public GateEvidence withFleet(List<NamedView> views, String error) {
        return toBuilder().collectionError(collectionError != null ? collectionError : error)
                .fleet(views == null ? null : List.copyOf(views)).build();
    }

    /** This evidence with what the management cluster said about the target's Machine (or why reading it failed). */
    public GateEvidence withMachine(MachineEvidence found, String error) {
        return toBuilder().collectionError(collectionError != null ? collectionError : error).machine(found).build();
    }

    /** This evidence with what the hosts' BMCs said (null: no BMC was given). */
    public GateEvidence withBmc(BmcReadings readings) {
        return toBuilder().bmc(readings).build();
    }

    public GateEvidence {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        daemonSets = daemonSets == null ? List.of() : List.copyOf(daemonSets);
        metallbAnnouncers = metallbAnnouncers == null ? null : List.copyOf(metallbAnnouncers);
        etcd = etcd == null ? List.of() : List.copyOf(etcd);
        nodeLeases = nodeLeases == null ? null : List.copyOf(nodeLeases);
    }

    public static GateEvidence failed(Instant at, String error) {
        return builder(at).collectionError(error).build();
    }

    /**
     * Evidence observed at {@code observedAt}, by name. What is not set was not read: nulls, as the fields above
     * say (no MetalLB API, no Lease list, no fleet, no Machine, no BMC), empty node, DaemonSet and etcd lists.
     */
    public static Builder builder(Instant observedAt) {
        return new Builder().observedAt(observedAt);
    }

    /** A builder holding all of this evidence, to change a few parts by name. */
    public Builder toBuilder() {
        return new Builder().observedAt(observedAt).target(target).targetLease(targetLease).nodes(nodes)
                .daemonSets(daemonSets).metallbAnnouncers(metallbAnnouncers).etcd(etcd).control(control)
                .controlPods(controlPods).controlNodePassword(controlNodePassword).collectionError(collectionError)
                .nodeLeases(nodeLeases).fleet(fleet).apiEndpoints(apiEndpoints).machine(machine).bmc(bmc);
    }

    /** Named construction of {@link GateEvidence}; see {@link #builder}. */
    public static final class Builder {
        private Instant observedAt;
        private NodeInfo target;
        private LeaseInfo targetLease;
        private List<NodeInfo> nodes;
        private List<DaemonSetInfo> daemonSets;
        private List<String> metallbAnnouncers;
        private List<EtcdEndpointReport> etcd;
        private NodeInfo control;
        private Integer controlPods;
        private SecretMeta controlNodePassword;
        private String collectionError;
        private List<LeaseInfo> nodeLeases;
        private List<NamedView> fleet;
        private ApiEndpoints apiEndpoints;
        private MachineEvidence machine;
        private BmcReadings bmc;

        private Builder() {
        }

        public Builder observedAt(Instant value) {
            observedAt = value;
            return this;
        }

        public Builder target(NodeInfo value) {
            target = value;
            return this;
        }

        public Builder targetLease(LeaseInfo value) {
            targetLease = value;
            return this;
        }

        public Builder nodes(List<NodeInfo> value) {
            nodes = value;
            return this;
        }

        public Builder daemonSets(List<DaemonSetInfo> value) {
            daemonSets = value;
            return this;
        }

        public Builder metallbAnnouncers(List<String> value) {
            metallbAnnouncers = value;
            return this;
        }

        public Builder etcd(List<EtcdEndpointReport> value) {
            etcd = value;
            return this;
        }

        public Builder control(NodeInfo value) {
            control = value;
            return this;
        }

        public Builder controlPods(Integer value) {
            controlPods = value;
            return this;
        }

        public Builder controlNodePassword(SecretMeta value) {
            controlNodePassword = value;
            return this;
        }

        public Builder collectionError(String value) {
            collectionError = value;
            return this;
        }

        public Builder nodeLeases(List<LeaseInfo> value) {
            nodeLeases = value;
            return this;
        }

        public Builder fleet(List<NamedView> value) {
            fleet = value;
            return this;
        }

        public Builder apiEndpoints(ApiEndpoints value) {
            apiEndpoints = value;
            return this;
        }

        public Builder machine(MachineEvidence value) {
            machine = value;
            return this;
        }

        public Builder bmc(BmcReadings value) {
            bmc = value;
            return this;
        }

        public GateEvidence build() {
            return new GateEvidence(observedAt, target, targetLease, nodes, daemonSets, metallbAnnouncers, etcd,
                    control, controlPods, controlNodePassword, collectionError, nodeLeases, fleet, apiEndpoints,
                    machine, bmc);
        }
    }
}
