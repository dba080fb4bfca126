package io.nodegate.source;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.storage.CSINode;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Kubernetes objects a source read, before they become a {@link io.nodegate.model.ClusterState}, one list per
 * row of {@link Kinds}. Live and offline sources both produce this, and {@link StateAssembler} is the single place
 * that turns it into the model: that is why a live audit and an audit of its `collect` output agree.
 *
 * <p>A kind with no entry (or a null list) was not present / not collected (optional APIs, pods); an empty list
 * means "present, and nothing there".
 */
public record RawSnapshot(
        Instant now,
        String source,
        String context,
        String server,
        String serverVersion,
        Map<ReadKind<?, ?>, List<? extends HasMetadata>> objects,
        List<String> notes) {

    public RawSnapshot {
        objects = Collections.unmodifiableMap(new LinkedHashMap<>(objects));
        notes = notes == null ? List.of() : List.copyOf(notes);
    }

    /** The objects of one kind, or null when that kind was absent or not collected. */
    @SuppressWarnings("unchecked")
    public <T extends HasMetadata> List<T> items(ReadKind<T, ?> kind) {
        return (List<T>) objects.get(kind);
    }

    public List<Node> nodes() {
        return items(Kinds.NODES);
    }

    public List<Lease> nodeLeases() {
        return items(Kinds.NODE_LEASES);
    }

    public List<Secret> kubeSystemSecrets() {
        return items(Kinds.KUBE_SYSTEM_SECRETS);
    }

    public List<CSINode> csiNodes() {
        return items(Kinds.CSINODES);
    }

    public List<EndpointSlice> kubernetesEndpointSlices() {
        return items(Kinds.API_ENDPOINT_SLICES);
    }

    public List<DaemonSet> daemonSets() {
        return items(Kinds.DAEMONSETS);
    }

    public List<Job> cattleJobs() {
        return items(Kinds.CATTLE_JOBS);
    }

    public List<Lease> kubeSystemLeases() {
        return items(Kinds.KUBE_SYSTEM_LEASES);
    }

    public List<Pod> pods() {
        return items(Kinds.PODS);
    }
}
