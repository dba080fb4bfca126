package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.KubeVersion;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * NG130: a kubelet outside the supported skew: newer than the apiserver, or more than three minors older.
 * RKE2/k3s bundle the kubelet, so a skewed host was installed from another cluster's release (seed 000: a host
 * came back from cluster B with v1.30 against a v1.34 cluster). Without a known apiserver version it says nothing.
 */
public final class KubeletSkewDetector implements Detector {

    static final int MAX_MINORS_OLDER = 3;

    @Override
    public FindingCode code() {
        return FindingCode.NG130;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        Optional<KubeVersion> server = KubeVersion.parse(state.serverVersion());
        if (server.isEmpty()) {
            return List.of();
        }
        Map<String, List<String>> skewedByVersion = new TreeMap<>();
        for (NodeInfo node : state.nodes()) {
            String kubelet = node.systemInfo().kubeletVersion();
            KubeVersion.parse(kubelet).filter(k -> skew(server.get(), k) != null)
                    .ifPresent(k -> skewedByVersion.computeIfAbsent(kubelet, x -> new ArrayList<>()).add(node.name()));
        }
        List<Finding> findings = new ArrayList<>();
        skewedByVersion.forEach((kubelet, nodes) -> {
            KubeVersion k = KubeVersion.parse(kubelet).orElseThrow();
            String problem = skew(server.get(), k);
            findings.add(new Finding(code(), Severity.WARNING, nodes,
                    "kubelet " + kubelet + " is " + problem + " than apiserver " + state.serverVersion()
                            + " (supported: same minor down to " + MAX_MINORS_OLDER + " minors older, never newer).",
                    Evidence.of().put("kubeletVersion", kubelet).put("apiserverVersion", state.serverVersion())
                            .put("minorsOlder", server.get().major() == k.major() ? server.get().minor() - k.minor() : null).build(),
                    "RKE2/k3s bundle the kubelet: reinstall the agent on these hosts at the cluster's exact version ("
                            + state.serverVersion() + ").").withDiscriminator(kubelet));
        });
        return findings;
    }

    /** Server minor minus kubelet minor, with majors folded in so 2.0 vs 1.34 still compares. */
    private static int minorDistance(KubeVersion server, KubeVersion kubelet) {
        return (server.major() - kubelet.major()) * 1000 + server.minor() - kubelet.minor();
    }

    private static String skew(KubeVersion server, KubeVersion kubelet) {
        int distance = minorDistance(server, kubelet);
        if (distance < 0) {
            return "newer";
        }
        if (distance > MAX_MINORS_OLDER) {
            return (distance >= 1000 ? "a major version" : distance + " minors") + " older";
        }
        return null;
    }
}
