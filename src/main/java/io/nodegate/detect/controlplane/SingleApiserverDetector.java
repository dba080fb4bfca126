package io.nodegate.detect.controlplane;

import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * NG211 single-apiserver: the default/kubernetes endpoints list one kube-apiserver. Every client, kubelet and
 * k3s/RKE2 agent failover list depends on it, however many etcd voters there are.
 */
public final class SingleApiserverDetector extends RoleLayersDetector {

    public SingleApiserverDetector() {
        super(FindingCode.NG211);
    }

    @Override
    public List<Finding> detect(RoleLayers layers) {
        RoleLayers.Layer api = layers.apiservers();
        if (!api.known() || api.count() != 1) {
            return List.of();
        }
        String only = api.members().get(0);
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("apiservers", api.members());
        evidence.put("apiserverBasis", api.basis());
        evidence.put("etcdVoters", layers.etcdVoters().members());
        String failover = layers.agentFailover().known()
                ? " The " + layers.distribution() + " agents' failover list has only this one entry." : "";
        return List.of(finding(Severity.CRITICAL, List.of(only),
                "Only one kube-apiserver (" + only + ") is published in default/kubernetes: when it stops, "
                        + "nothing can read or write the cluster, whatever etcd's state." + failover,
                evidence,
                "Run kube-apiserver on at least one more server (k3s/RKE2: a server without disable-apiserver). "
                        + "If a second server should already serve the API, check why it is missing from the "
                        + "default/kubernetes endpoints (apiserver down, or started with disable-apiserver)."));
    }
}
