package io.nodegate.lifecycle.gate;

import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.bmc.BmcReadings;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything one gate run is given, by name: the baseline and the operator's request, and each optional source
 * of evidence. What was not given is null (the check that reads it then says "not checked"), never a guess. A new
 * gate input is a field here, the part of the run that collects it, and the check that judges it.
 *
 * @param baselineFile where the baseline was read from (its hash goes into the record); null when not from a file
 * @param etcd         per-endpoint etcd answers; empty when no etcd source was given
 * @param annotate     write the verdict on the Node (and its Machine) as well as in the record
 * @param host         host-side evidence (--host-report, --probe-kubelet); {@link HostInputs#NONE} without
 * @param fleet        the other clusters' Nodes (--fleet-context); null when none was given
 * @param fleetError   why reading one of them failed: the run is then INVALID
 * @param machines     Rancher's management cluster (--machine-context), where the Node's Machine is checked and,
 *                     with annotate, annotated too; null when none was given
 * @param bmc          what the hosts' BMCs said (--bmc), read before the run; null when none was given
 */
public record GateRunInputs(Baseline baseline, Path baselineFile, GateRequest request, List<EtcdEndpointReport> etcd,
                            boolean annotate, HostInputs host, List<NamedView> fleet, String fleetError,
                            MachineSource machines, BmcReadings bmc) {

    public GateRunInputs {
        host = host == null ? HostInputs.NONE : host;
    }

    /** The inputs of a run on this baseline and request; every optional source not given. */
    public static Builder builder(Baseline baseline, GateRequest request) {
        return new Builder(baseline, request);
    }

    /** Named construction of {@link GateRunInputs}; see {@link #builder}. */
    public static final class Builder {
        private final Baseline baseline;
        private final GateRequest request;
        private Path baselineFile;
        private List<EtcdEndpointReport> etcd;
        private boolean annotate;
        private HostInputs host = HostInputs.NONE;
        private List<NamedView> fleet;
        private String fleetError;
        private MachineSource machines;
        private BmcReadings bmc;

        private Builder(Baseline baseline, GateRequest request) {
            this.baseline = baseline;
            this.request = request;
        }

        public Builder baselineFile(Path value) {
            baselineFile = value;
            return this;
        }

        public Builder etcd(List<EtcdEndpointReport> value) {
            etcd = value;
            return this;
        }

        public Builder annotate(boolean value) {
            annotate = value;
            return this;
        }

        public Builder host(HostInputs value) {
            host = value;
            return this;
        }

        /** The other clusters' Nodes, or (views null) why reading one of them failed. */
        public Builder fleet(List<NamedView> views, String error) {
            fleet = views;
            fleetError = error;
            return this;
        }

        public Builder machines(MachineSource value) {
            machines = value;
            return this;
        }

        public Builder bmc(BmcReadings value) {
            bmc = value;
            return this;
        }

        public GateRunInputs build() {
            return new GateRunInputs(baseline, baselineFile, request, etcd, annotate, host, fleet, fleetError,
                    machines, bmc);
        }
    }
}
