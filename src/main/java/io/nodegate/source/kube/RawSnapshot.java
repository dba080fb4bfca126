package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.nodegate.source.json.KubeJson;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Kubernetes objects a source read whole, before they become a {@link io.nodegate.model.ClusterState}, one
 * list per row of {@link Kinds}: what `collect` writes, and what {@link StateAssembler#assemble} maps. Objects are
 * held as plain JSON values ({@link KubeJson}: everything the server sent but Secret values). A source that
 * still has fabric8 objects may pass them: they are turned into plain values here, once, by {@link FabricJson}.
 *
 * <p>A kind with no entry (or a null list) was not present / not collected (optional APIs, pods); an empty list
 * means "present, and nothing there".
 *
 * <p>Two times, because the reads take a while and the cluster moves meanwhile: {@code readsStarted} is the
 * snapshot's time (`collect` writes it as collectedAt; a Node created after it may be missing, so nothing may treat
 * a later time as "what the cluster held"), and {@code agesJudgedAt}, no earlier than the last read's answer, is the
 * clock ages are judged against (a kubelet that renews its Lease during the reads gives a renewTime after the
 * start: judged at the start its age would be negative).
 */
public record RawSnapshot(
        Instant readsStarted,
        Instant agesJudgedAt,
        String source,
        String context,
        String server,
        String serverVersion,
        Map<ReadKind<?, ?>, ? extends List<?>> objects,
        List<String> notes) {

    public RawSnapshot {
        if (readsStarted != null && agesJudgedAt != null && agesJudgedAt.isBefore(readsStarted)) {
            throw new IllegalArgumentException("ages judged at " + agesJudgedAt + ", before the reads started at "
                    + readsStarted);
        }
        Map<ReadKind<?, ?>, List<Map<String, Object>>> plain = new LinkedHashMap<>();
        objects.forEach((kind, items) -> plain.put(kind, items == null ? null : plain(items)));
        objects = Collections.unmodifiableMap(plain);
        notes = notes == null ? List.of() : List.copyOf(notes);
    }

    /** A snapshot read at one instant (objects made up, or a source whose reads take no time worth judging). */
    public RawSnapshot(Instant at, String source, String context, String server, String serverVersion,
                       Map<ReadKind<?, ?>, ? extends List<?>> objects, List<String> notes) {
        this(at, at, source, context, server, serverVersion, objects, notes);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> plain(List<?> items) {
        List<Map<String, Object>> out = new ArrayList<>(items.size());
        for (Object item : items) {
            if (item instanceof HasMetadata typed) {
                out.add(FabricJson.toPlain(typed, KubeJson.EVIDENCE));
            } else if (item instanceof Map<?, ?> map) {
                out.add((Map<String, Object>) map);
            } else if (item != null) {
                throw new IllegalArgumentException("not a Kubernetes object: " + item.getClass().getName());
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** The objects of one kind as plain JSON values, or null when that kind was absent or not collected. */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> plainItems(ReadKind<?, ?> kind) {
        return (List<Map<String, Object>>) objects.get(kind);
    }

    /**
     * The objects of one kind as fabric8 objects (converted on each call; for tests and callers that want the typed
     * model), or null when that kind was absent or not collected.
     */
    public <T extends HasMetadata> List<T> items(ReadKind<T, ?> kind) {
        List<Map<String, Object>> plain = plainItems(kind);
        return plain == null ? null : plain.stream().map(o -> FabricJson.toTyped(o, kind.type())).toList();
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
