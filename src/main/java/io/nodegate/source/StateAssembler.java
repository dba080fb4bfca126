package io.nodegate.source;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.NodeSystemInfo;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.nodegate.model.ApiEndpoints;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.Condition;
import io.nodegate.model.CsiNodeInfo;
import io.nodegate.model.DaemonSetInfo;
import io.nodegate.model.JobInfo;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.PodInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.model.Taint;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** Turns fabric8 objects into the immutable model. The only place that knows both shapes. */
public final class StateAssembler {

    private final List<String> notes = new ArrayList<>();

    private StateAssembler() {
    }

    public static ClusterState assemble(RawSnapshot raw) {
        return new StateAssembler().build(raw);
    }

    private ClusterState build(RawSnapshot raw) {
        notes.addAll(raw.notes() == null ? List.of() : raw.notes());
        List<NodeInfo> nodes = sorted(raw.nodes(), this::node, NodeInfo::name);
        List<LeaseInfo> leases = sorted(raw.nodeLeases(), this::lease, LeaseInfo::name);
        List<SecretMeta> secrets = sorted(raw.kubeSystemSecrets(), StateAssembler::secret, SecretMeta::name)
                .stream().filter(s -> s.nodePasswordOwner().isPresent()).toList();
        Collected<CsiNodeInfo> csiNodes = raw.csiNodes() == null ? Collected.absent()
                : Collected.of(sorted(raw.csiNodes(), this::csiNode, CsiNodeInfo::name));
        List<DaemonSetInfo> daemonSets = sorted(raw.daemonSets(), StateAssembler::daemonSet,
                d -> d.namespace() + "/" + d.name());
        Collected<JobInfo> jobs = raw.cattleJobs() == null ? Collected.absent()
                : Collected.of(sorted(raw.cattleJobs(), this::job, JobInfo::name));
        List<LeaseInfo> cpLeases = sorted(raw.kubeSystemLeases(), this::lease, LeaseInfo::name);
        Collected<PodInfo> pods = raw.pods() == null ? Collected.absent()
                : Collected.of(sorted(raw.pods(), StateAssembler::pod, p -> p.namespace() + "/" + p.name()));
        return new ClusterState(raw.now(), raw.source(), raw.context(), raw.server(), raw.serverVersion(),
                nodes, leases, secrets, csiNodes, apiEndpoints(raw.kubernetesEndpointSlices()), daemonSets, jobs,
                cpLeases, pods, List.of(), List.copyOf(new LinkedHashSet<>(notes)));
    }

    private static <R, T> List<T> sorted(List<R> raw, java.util.function.Function<R, T> map,
                                         java.util.function.Function<T, String> key) {
        if (raw == null) {
            return List.of();
        }
        return raw.stream().filter(Objects::nonNull).map(map).sorted(Comparator.comparing(key)).toList();
    }

    private NodeInfo node(Node n) {
        ObjectMeta m = meta(n);
        NodeStatus st = n.getStatus();
        String where = "Node " + m.getName();
        if (st == null) {
            notes.add(where + " has no status: the kubelet never reported, or the object was written by hand");
        }
        List<Taint> taints = new ArrayList<>();
        boolean unschedulable = false;
        String podCidr = null;
        if (n.getSpec() != null) {
            unschedulable = Boolean.TRUE.equals(n.getSpec().getUnschedulable());
            podCidr = n.getSpec().getPodCIDR();
            if (n.getSpec().getTaints() != null) {
                for (var t : n.getSpec().getTaints()) {
                    taints.add(new Taint(t.getKey(), t.getValue(), t.getEffect(), time(t.getTimeAdded(), where)));
                }
            }
        }
        List<NodeInfo.NodeAddress> addresses = new ArrayList<>();
        List<Condition> conditions = new ArrayList<>();
        io.nodegate.model.NodeSystemInfo info = null;
        Map<String, String> capacity = new LinkedHashMap<>();
        if (st != null) {
            if (st.getAddresses() != null) {
                st.getAddresses().forEach(a -> addresses.add(new NodeInfo.NodeAddress(a.getType(), a.getAddress())));
            }
            if (st.getConditions() != null) {
                st.getConditions().forEach(c -> conditions.add(new Condition(c.getType(), c.getStatus(),
                        c.getReason(), c.getMessage(), time(c.getLastHeartbeatTime(), where),
                        time(c.getLastTransitionTime(), where))));
            }
            NodeSystemInfo ni = st.getNodeInfo();
            if (ni != null) {
                info = new io.nodegate.model.NodeSystemInfo(ni.getBootID(), ni.getSystemUUID(), ni.getMachineID(),
                        ni.getKernelVersion(), ni.getOsImage(), ni.getKubeletVersion(), ni.getContainerRuntimeVersion());
            } else {
                notes.add(where + " has no status.nodeInfo: identity (bootID, systemUUID) unknown");
            }
            if (st.getCapacity() != null) {
                st.getCapacity().forEach((k, q) -> capacity.put(k, quantity(q)));
            }
        }
        return new NodeInfo(m.getName(), m.getUid(), m.getResourceVersion(), time(m.getCreationTimestamp(), where),
                m.getLabels(), m.getAnnotations(), taints, unschedulable, podCidr, addresses, conditions, info, capacity);
    }

    private LeaseInfo lease(Lease l) {
        ObjectMeta m = meta(l);
        String where = "Lease " + m.getNamespace() + "/" + m.getName();
        var spec = l.getSpec();
        Instant renew = null;
        String holder = null;
        Integer duration = null;
        if (spec != null) {
            holder = spec.getHolderIdentity();
            duration = spec.getLeaseDurationSeconds();
            if (spec.getRenewTime() != null) {
                renew = spec.getRenewTime().toInstant();
            }
        }
        if (renew == null) {
            notes.add(where + " has no renewTime: its heartbeat age is unknown");
        }
        return new LeaseInfo(m.getNamespace(), m.getName(), m.getUid(), time(m.getCreationTimestamp(), where),
                holder, renew, duration);
    }

    private static SecretMeta secret(Secret s) {
        ObjectMeta m = meta(s);
        return new SecretMeta(m.getNamespace(), m.getName(), m.getUid(), parseOrNull(m.getCreationTimestamp()),
                s.getType(), m.getLabels());
    }

    private CsiNodeInfo csiNode(CSINode c) {
        ObjectMeta m = meta(c);
        List<String> drivers = c.getSpec() == null || c.getSpec().getDrivers() == null ? List.of()
                : c.getSpec().getDrivers().stream().map(d -> d.getName()).toList();
        return new CsiNodeInfo(m.getName(), m.getUid(), time(m.getCreationTimestamp(), "CSINode " + m.getName()),
                drivers);
    }

    private static DaemonSetInfo daemonSet(DaemonSet d) {
        ObjectMeta m = meta(d);
        var st = d.getStatus();
        return new DaemonSetInfo(m.getNamespace(), m.getName(),
                st == null || st.getDesiredNumberScheduled() == null ? 0 : st.getDesiredNumberScheduled(),
                st == null || st.getCurrentNumberScheduled() == null ? 0 : st.getCurrentNumberScheduled(),
                st == null || st.getNumberReady() == null ? 0 : st.getNumberReady());
    }

    private JobInfo job(Job j) {
        ObjectMeta m = meta(j);
        boolean failed = false;
        String reason = null;
        if (j.getStatus() != null && j.getStatus().getConditions() != null) {
            for (var c : j.getStatus().getConditions()) {
                if ("Failed".equals(c.getType()) && "True".equals(c.getStatus())) {
                    failed = true;
                    reason = c.getReason();
                }
            }
        }
        return new JobInfo(m.getNamespace(), m.getName(), m.getUid(),
                time(m.getCreationTimestamp(), "Job " + m.getName()), failed, reason);
    }

    private static PodInfo pod(Pod p) {
        ObjectMeta m = meta(p);
        String owner = m.getOwnerReferences() == null ? null
                : m.getOwnerReferences().stream().map(OwnerReference::getKind).findFirst().orElse(null);
        String lastTermination = null;
        if (p.getStatus() != null && p.getStatus().getContainerStatuses() != null) {
            for (var cs : p.getStatus().getContainerStatuses()) {
                if (cs.getLastState() != null && cs.getLastState().getTerminated() != null
                        && cs.getLastState().getTerminated().getMessage() != null) {
                    lastTermination = cs.getLastState().getTerminated().getMessage();
                }
            }
        }
        return new PodInfo(m.getNamespace(), m.getName(), m.getUid(),
                p.getSpec() == null ? null : p.getSpec().getNodeName(),
                p.getStatus() == null ? null : p.getStatus().getPhase(), owner, lastTermination);
    }

    private static ApiEndpoints apiEndpoints(List<EndpointSlice> slices) {
        if (slices == null || slices.isEmpty()) {
            return ApiEndpoints.NONE;
        }
        Set<String> addresses = new java.util.TreeSet<>();
        Integer port = null;
        for (EndpointSlice s : slices) {
            if (s.getEndpoints() != null) {
                for (var e : s.getEndpoints()) {
                    boolean ready = e.getConditions() == null || !Boolean.FALSE.equals(e.getConditions().getReady());
                    if (ready && e.getAddresses() != null) {
                        addresses.addAll(e.getAddresses());
                    }
                }
            }
            if (s.getPorts() != null && !s.getPorts().isEmpty() && port == null) {
                port = s.getPorts().get(0).getPort();
            }
        }
        return new ApiEndpoints(List.copyOf(addresses), port);
    }

    private static ObjectMeta meta(HasMetadata o) {
        return o.getMetadata() == null ? new ObjectMeta() : o.getMetadata();
    }

    private static String quantity(Quantity q) {
        if (q == null) {
            return null;
        }
        return q.getFormat() == null ? q.getAmount() : q.getAmount() + q.getFormat();
    }

    private Instant time(String text, String where) {
        if (text == null || text.isBlank()) {
            return null;
        }
        Instant parsed = parseOrNull(text);
        if (parsed == null) {
            notes.add(where + ": unparsable timestamp '" + text + "' ignored");
        }
        return parsed;
    }

    static Instant parseOrNull(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
