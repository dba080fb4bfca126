package io.nodegate.detect.controlplane;

import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * NG210 apiserver-layers-below-etcd: fewer kube-apiservers than etcd voters (seed 003: a server runs with
 * disable-apiserver, so etcd has 3 layers and the API 2). The etcd count hides the thinner API layer:
 * clients, kubelets and agents reach etcd only through an apiserver.
 */
public final class ApiserverLayersBelowEtcdDetector extends RoleLayersDetector {

    public ApiserverLayersBelowEtcdDetector() {
        super(FindingCode.NG210);
    }

    @Override
    public List<Finding> detect(RoleLayers layers) {
        RoleLayers.Layer etcd = layers.etcdVoters();
        RoleLayers.Layer api = layers.apiservers();
        if (!etcd.known() || !api.known() || api.count() == 0 || api.count() >= etcd.count()) {
            return List.of();
        }
        List<String> votersWithoutApi = etcd.members().stream().filter(v -> !api.members().contains(v)).toList();
        String apiList = String.join(", ", api.members());
        StringBuilder msg = new StringBuilder()
                .append("etcd has ").append(etcd.count()).append(" voters but only ").append(api.count())
                .append(" kube-apiserver(s) (").append(apiList).append(")");
        if (!votersWithoutApi.isEmpty()) {
            msg.append("; ").append(String.join(", ", votersWithoutApi))
                    .append(votersWithoutApi.size() == 1 ? " votes" : " vote")
                    .append(" in etcd but serve").append(votersWithoutApi.size() == 1 ? "s" : "")
                    .append(" no API");
        }
        msg.append(". etcd tolerates ").append(etcd.tolerates()).append(" failure(s), the API ")
                .append(api.tolerates()).append(": if ").append(apiserversStop(api.members()))
                .append(", kubelets, controllers, operators and ")
                .append(layers.distribution() == null ? "clients" : layers.distribution() + " agents")
                .append(" have nothing to connect to, even while etcd keeps quorum.");
        if (RoleLayers.BASIS_ETCD_INFERRED.equals(etcd.basis())) {
            msg.append(" (etcd voters inferred from role labels.)");
        }
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("etcdVoters", etcd.members());
        evidence.put("etcdBasis", etcd.basis());
        evidence.put("apiservers", api.members());
        evidence.put("apiserverBasis", api.basis());
        evidence.put("votersWithoutApiserver", votersWithoutApi);
        evidence.put("etcdTolerates", etcd.tolerates());
        evidence.put("apiTolerates", api.tolerates());
        return List.of(finding(Severity.WARNING, votersWithoutApi, msg.toString(), evidence,
                "Count the API layer, not the etcd layer, as the cluster's redundancy. To thicken it, run "
                        + "kube-apiserver on the voter(s) without one (remove disable-apiserver from the server "
                        + "config and restart) if their hardware can serve requests fast enough, or add a "
                        + "server with the apiserver enabled."));
    }

    private static String apiserversStop(List<String> apiservers) {
        if (apiservers.size() == 1) {
            return "the kube-apiserver on " + apiservers.get(0) + " stops";
        }
        String names = String.join(", ", apiservers.subList(0, apiservers.size() - 1)) + " and "
                + apiservers.get(apiservers.size() - 1);
        return "the kube-apiservers on " + names + (apiservers.size() == 2 ? " both" : " all") + " stop";
    }
}
