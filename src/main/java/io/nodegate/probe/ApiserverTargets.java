package io.nodegate.probe;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.nodegate.model.probe.ApiserverTarget;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The apiservers to probe, from the default/kubernetes EndpointSlices. A slice's ports apply to every endpoint
 * in that slice (EndpointSlice semantics), so each address is paired with the port of the slice it is in:
 * a real cluster has one slice {@code kubernetes} with port {@code https} 6443; apiservers on different ports
 * appear as separate slices. The port named {@code https} is used when a slice has several.
 */
public final class ApiserverTargets {

    private ApiserverTargets() {
    }

    public static List<ApiserverTarget> fromSlices(List<EndpointSlice> slices) {
        Set<ApiserverTarget> targets = new LinkedHashSet<>();
        for (EndpointSlice slice : slices == null ? List.<EndpointSlice>of() : slices) {
            Integer port = port(slice);
            if (port == null || slice.getEndpoints() == null) {
                continue;
            }
            for (Endpoint e : slice.getEndpoints()) {
                // an endpoint not ready is an apiserver the cluster itself stopped sending traffic to
                boolean ready = e.getConditions() == null || !Boolean.FALSE.equals(e.getConditions().getReady());
                if (ready && e.getAddresses() != null) {
                    e.getAddresses().forEach(a -> targets.add(new ApiserverTarget(a, port)));
                }
            }
        }
        List<ApiserverTarget> sorted = new ArrayList<>(targets);
        sorted.sort(Comparator.comparing(ApiserverTarget::address).thenComparingInt(ApiserverTarget::port));
        return List.copyOf(sorted);
    }

    private static Integer port(EndpointSlice slice) {
        List<EndpointPort> ports = slice.getPorts();
        if (ports == null || ports.isEmpty()) {
            return null;
        }
        return ports.stream().filter(p -> "https".equals(p.getName()) && p.getPort() != null).findFirst()
                .or(() -> ports.stream().filter(p -> p.getPort() != null).findFirst())
                .map(EndpointPort::getPort).orElse(null);
    }
}
