package io.nodegate.source;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.storage.CSINode;

import java.time.Instant;
import java.util.List;

/**
 * The Kubernetes objects a source read, before they become a {@link io.nodegate.model.ClusterState}.
 * Live and offline sources both produce this, and {@link StateAssembler} is the single place that turns it
 * into the model: that is why a live audit and an audit of its `collect` output agree.
 *
 * <p>A null list for an optional API (csiNodes, cattleJobs, pods) means "not present / not collected";
 * an empty list means "present, and nothing there".
 */
public record RawSnapshot(
        Instant now,
        String source,
        String context,
        String server,
        String serverVersion,
        List<Node> nodes,
        List<Lease> nodeLeases,
        List<Secret> kubeSystemSecrets,
        List<CSINode> csiNodes,
        List<EndpointSlice> kubernetesEndpointSlices,
        List<DaemonSet> daemonSets,
        List<Job> cattleJobs,
        List<Lease> kubeSystemLeases,
        List<Pod> pods,
        List<String> notes) {
}
