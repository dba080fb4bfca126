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
 * @param later             the inputs read only when their source was given (other clusters' Nodes, the Rancher
 *                          Machine, BMC readings), each under the key of the check that reads it: see
 *                          {@code FleetCheck.INPUT}, {@code MachineCheck.INPUT}, {@code BmcPowerCheck.INPUT}
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
        ApiEndpoints apiEndpoints,
        LaterInputs later) {

    /** A later input's value; null when it was not given. */
    public <T> T input(LaterInputs.Key<T> key) {
        return later.get(key);
    }

    /**
     * This evidence with a later input (null: not given) and, when reading its source failed, that failure (the
     * first failure stays the collection error).
     */
    public <T> GateEvidence with(LaterInputs.Key<T> key, T value, String error) {
        return toBuilder().collectionError(collectionError != null ? collectionError : error)
                .later(later.with(key, value)).build();
    }

    /** {@link #with} for the other clusters' Nodes, as the gate's tests outside this package give them. */
    public GateEvidence withFleet(List<NamedView> views, String error) {
        return with(FleetCheck.INPUT, views == null ? null : List.copyOf(views), error);
    }

    /** {@link #with} for the hosts' BMC readings (null: no BMC was given), as the gate's tests give them. */
    public GateEvidence withBmc(BmcReadings readings) {
        return with(BmcPowerCheck.INPUT, readings, null);
    }

    public GateEvidence {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        daemonSets = daemonSets == null ? List.of() : List.copyOf(daemonSets);
        metallbAnnouncers = metallbAnnouncers == null ? null : List.copyOf(metallbAnnouncers);
        etcd = etcd == null ? List.of() : List.copyOf(etcd);
        nodeLeases = nodeLeases == null ? null : List.copyOf(nodeLeases);
        later = later == null ? LaterInputs.NONE : later;
    }

    public static GateEvidence failed(Instant at, String error) {
        return builder(at).collectionError(error).build();
    }

    /**
     * Evidence observed at {@code observedAt}, by name. What is not set was not read: nulls, as the fields above
     * say (no MetalLB API, no Lease list, no later input), empty node, DaemonSet and etcd lists.
     */
    public static Builder builder(Instant observedAt) {
        return new Builder().observedAt(observedAt);
    }

    /** A builder holding all of this evidence, to change a few parts by name. */
    public Builder toBuilder() {
        return new Builder().observedAt(observedAt).target(target).targetLease(targetLease).nodes(nodes)
                .daemonSets(daemonSets).metallbAnnouncers(metallbAnnouncers).etcd(etcd).control(control)
                .controlPods(controlPods).controlNodePassword(controlNodePassword).collectionError(collectionError)
                .nodeLeases(nodeLeases).apiEndpoints(apiEndpoints).later(later);
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
        private ApiEndpoints apiEndpoints;
        private LaterInputs later;

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

        public Builder apiEndpoints(ApiEndpoints value) {
            apiEndpoints = value;
            return this;
        }

        public Builder later(LaterInputs value) {
            later = value;
            return this;
        }

        public GateEvidence build() {
            return new GateEvidence(observedAt, target, targetLease, nodes, daemonSets, metallbAnnouncers, etcd,
                    control, controlPods, controlNodePassword, collectionError, nodeLeases, apiEndpoints,
                    later);
        }
    }
}
