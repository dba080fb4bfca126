package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInfo;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * NG120: several Nodes report the same InternalIP. Without --node-ip the kubelet takes the address of the NIC
 * holding the default route; on multi-NIC hosts whose first NIC is identical (seed 002: every lab VM had 10.0.2.2)
 * the Nodes collide and traffic to them goes to the wrong place.
 */
public final class DuplicateInternalIpDetector implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG120;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        Map<String, Set<String>> byIp = new TreeMap<>();
        for (NodeInfo node : state.nodes()) {
            for (String ip : node.internalIps()) {
                byIp.computeIfAbsent(ip, k -> new LinkedHashSet<>()).add(node.name());
            }
        }
        List<Finding> findings = new ArrayList<>();
        byIp.forEach((ip, names) -> {
            if (names.size() < 2) {
                return;
            }
            List<String> nodes = List.copyOf(names);
            findings.add(new Finding(code(), Severity.WARNING, nodes,
                    nodes.size() + " Nodes report InternalIP " + ip + ": the kubelet picked the NIC of the default "
                            + "route, so the apiserver, CNI and other nodes cannot tell these nodes apart.",
                    Evidence.of().put("internalIP", ip).put("nodes", nodes).build(),
                    "Set the address explicitly on each host (RKE2/k3s: node-ip in config.yaml; kubelet: --node-ip; "
                            + "also the CNI interface, e.g. flannel-iface) and restart the agent.").withDiscriminator(ip));
        });
        return findings;
    }
}
