package io.nodegate.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.CollectionException;
import io.nodegate.source.kube.KubeConnection;

import java.util.List;
import java.util.stream.Collectors;

/** Shared plumbing for baseline/gate/remove/verify-gone/readmit. */
final class LifecycleCommands {
    private LifecycleCommands() {
    }

    static KubeConnection connect(Environment env, LiveOptions source) {
        return env.connect().apply(source);
    }

    /**
     * etcd answers for the lifecycle's member comparisons. Unlike `nodegate etcd`, where a silent endpoint is a
     * finding, here it is missing evidence: one endpoint that did not answer makes the whole run invalid.
     */
    static List<EtcdEndpointReport> etcdEvidence(EtcdOptions etcd) {
        if (!etcd.live()) {
            return List.of();
        }
        List<EtcdEndpointReport> reports = etcd.read();
        List<EtcdEndpointReport> failed = reports.stream().filter(r -> !r.ok()).toList();
        if (!failed.isEmpty()) {
            throw new CollectionException("etcd endpoint(s) did not answer: " + failed.stream()
                    .map(r -> r.endpoint() + " (" + r.error() + ")").collect(Collectors.joining(", ")));
        }
        return reports;
    }
}
