package io.nodegate.lifecycle.gate;

import io.nodegate.source.host.HostReportJson;

import java.time.Duration;
import java.util.List;

/**
 * Host-side evidence the operator asked the gate to use: a host report (--host-report), a kubelet-port probe
 * (--probe-kubelet) and extra names this cluster is reached by (--cluster-address, e.g. a registration VIP).
 *
 * @param report the report as read, its sha256 recomputed (null without --host-report)
 * @param probe  how to probe the kubelet port (null without --probe-kubelet)
 */
public record HostInputs(HostReportJson.Loaded report, Probe probe, List<String> clusterAddresses) {

    public static final HostInputs NONE = new HostInputs(null, null, List.of());

    public HostInputs {
        clusterAddresses = clusterAddresses == null ? List.of() : List.copyOf(clusterAddresses);
    }

    public record Probe(int port, Duration timeout) {
    }
}
