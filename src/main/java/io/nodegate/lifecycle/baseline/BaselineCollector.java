package io.nodegate.lifecycle.baseline;

import io.nodegate.source.kube.ApiReader;
import io.nodegate.model.Gpu;
import io.nodegate.model.Condition;
import io.nodegate.model.DaemonSetInfo;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdIds;
import io.nodegate.model.EtcdMember;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.model.Taint;
import io.nodegate.CollectionException;
import io.nodegate.ExitCode;
import io.nodegate.InputException;
import io.nodegate.NodegateException;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/** Reads the live cluster into a {@link Baseline}. Any failed read aborts: a baseline with holes is worthless. */
public final class BaselineCollector {

    private final ApiReader api;
    private final Clock clock;

    public BaselineCollector(ApiReader api, Clock clock) {
        this.api = api;
        this.clock = clock;
    }

    /**
     * @param etcd per-endpoint etcd answers, or an empty list when no etcd source was given (then the baseline
     *             records no etcd membership and later steps say so)
     */
    public Baseline collect(List<String> targetNames, String controlName, List<EtcdEndpointReport> etcd,
                            String evidenceDir) {
        if (targetNames.isEmpty()) {
            throw new InputException("--targets: at least one target node is required");
        }
        if (targetNames.contains(controlName)) {
            throw new InputException("--control " + controlName + " is also in --targets: the control must be a node that stays");
        }
        // the server's clock, not ours: verify-gone compares this with creation times the server stamps
        Instant ts = api.serverTime();
        List<NodeInfo> nodes = api.nodes();
        Map<String, NodeInfo> byName = new TreeMap<>();
        nodes.forEach(n -> byName.put(n.name(), n));
        List<String> missing = targetNames.stream().filter(t -> !byName.containsKey(t)).toList();
        if (!missing.isEmpty()) {
            throw new InputException("--targets: no Node named " + String.join(", ", missing) + " in this cluster");
        }
        NodeInfo control = byName.get(controlName);
        if (control == null) {
            throw new InputException("--control: no Node named " + controlName + " in this cluster");
        }
        List<SecretMeta> secrets = api.nodePasswordSecrets();
        Map<String, SecretMeta> secretByOwner = new TreeMap<>();
        secrets.forEach(s -> secretByOwner.put(s.nodePasswordOwner().orElseThrow(), s));
        requirePlausibleSecrets(nodes, secretByOwner);

        List<Baseline.Target> targets = new ArrayList<>();
        Map<String, List<String>> dsOnTargets = new TreeMap<>();
        for (String name : new TreeSet<>(targetNames)) {
            NodeInfo n = byName.get(name);
            Optional<LeaseInfo> lease = api.lease(name);
            for (String ds : api.daemonSetsWithPodsOn(name)) {
                dsOnTargets.computeIfAbsent(ds, k -> new ArrayList<>()).add(name);
            }
            targets.add(target(n, lease.map(LeaseInfo::renewTime).orElse(null),
                    secretOf(secretByOwner, name)));
        }
        int controlPods = api.podsOn(controlName).size();
        String controlSecret = secretOf(secretByOwner, controlName);
        // Refuse a control that would make every later gate INVALID: better to learn it now than at the gate
        PositiveControl pc = PositiveControl.check(controlName, control, controlPods,
                controlSecret == null ? null : secretByOwner.get(controlName.toLowerCase(java.util.Locale.ROOT)),
                !secrets.isEmpty());
        if (!pc.passed()) {
            throw new NodegateException(ExitCode.COLLECTION, "--control " + controlName + ": the positive control "
                    + "check failed, so no baseline was written: " + String.join("; ", pc.reasons())
                    + ". Choose a Ready node that runs pods" + (secrets.isEmpty() ? "" : " and has its node-password Secret")
                    + ", or find out why the query cannot see them");
        }
        Baseline.ControlNode controlNode = new Baseline.ControlNode(control.name(), control.uid(),
                control.systemInfo().systemUuid(), control.systemInfo().machineId(), control.internalIps(),
                controlPods, controlSecret);

        List<Baseline.OtherNode> others = nodes.stream().filter(n -> !targetNames.contains(n.name()))
                .map(n -> new Baseline.OtherNode(n.name(), n.uid(), n.created(), n.readyStatus(), n.unschedulable()))
                .toList();
        List<Baseline.DaemonSetCount> ds = new ArrayList<>();
        for (DaemonSetInfo d : api.daemonSets()) {
            String key = d.namespace() + "/" + d.name();
            ds.add(new Baseline.DaemonSetCount(d.namespace(), d.name(), d.desired(),
                    dsOnTargets.getOrDefault(key, List.of())));
        }
        var metallb = api.metallbAnnouncers();
        return new Baseline(Baseline.FORMAT, ts, api.server(), evidenceDir, distribution(secrets, nodes),
                clusterKubeletVersion(nodes), controlNode, targets, others, etcdMembers(etcd), ds,
                Gpu.totals(nodes), metallb.present() ? metallb.items() : null,
                secrets.stream().map(s -> new Baseline.SecretRef(s.name(), s.created(), s.type())).toList());
    }

    /** More Nodes than this without their node-password Secret, on an RKE2/k3s cluster, is not believed. */
    static final int MAX_NODES_WITHOUT_SECRET = 2;

    /**
     * RKE2 and k3s create a node-password Secret for every Node that joins. A kube-system Secret list that answers
     * (nearly) empty on such a cluster is a lying answer (a proxy, a cache, an aggregated API gone wrong), and a
     * baseline that records it would switch the gate's Secret checks off for good. So it is refused, not saved.
     */
    static void requirePlausibleSecrets(List<NodeInfo> nodes, Map<String, SecretMeta> secretByOwner) {
        List<String> distNodes = nodes.stream().filter(n -> {
            String v = n.systemInfo().kubeletVersion();
            return v != null && (v.contains("+rke2") || v.contains("+k3s"));
        }).map(NodeInfo::name).toList();
        List<String> without = distNodes.stream()
                .filter(n -> !secretByOwner.containsKey(n.toLowerCase(java.util.Locale.ROOT))).toList();
        if (without.size() > MAX_NODES_WITHOUT_SECRET || (distNodes.size() >= 2 && without.size() == distNodes.size())) {
            throw new CollectionException("implausible answer: " + without.size() + " of " + distNodes.size()
                    + " Nodes run RKE2/k3s (kubelet version +rke2/+k3s) but have no node-password Secret in "
                    + "kube-system (" + String.join(", ", without.stream().limit(5).toList())
                    + (without.size() > 5 ? ", …" : "") + "), and RKE2/k3s create one for every Node that joins."
                    + " The Secret list answered " + secretByOwner.size() + " node-password Secret(s); a baseline"
                    + " built on it would switch the gate's Secret checks off. Not saved: check RBAC and what"
                    + " 'kubectl -n kube-system get secrets' shows");
        }
    }

    private static String secretOf(Map<String, SecretMeta> byOwner, String node) {
        SecretMeta s = byOwner.get(node.toLowerCase(java.util.Locale.ROOT));
        return s == null ? null : s.name();
    }

    static Baseline.Target target(NodeInfo n, Instant leaseRenew, String secretName) {
        Map<String, String> roles = new TreeMap<>();
        n.labels().forEach((k, v) -> {
            if (k.startsWith(NodeInfo.ROLE_PREFIX)) {
                roles.put(k, v);
            }
        });
        Condition ready = n.condition("Ready");
        return new Baseline.Target(n.name(), n.uid(), n.resourceVersion(), n.created(),
                n.systemInfo().bootId(), n.systemInfo().systemUuid(), n.systemInfo().machineId(),
                n.systemInfo().kernelVersion(), n.systemInfo().kubeletVersion(), n.internalIps(), roles,
                n.taints().stream().map(Taint::toString).toList(), n.unschedulable(), n.nodeArgs(),
                Gpu.capacity(n), leaseRenew, n.readyStatus(), ready == null ? null : ready.lastHeartbeatTime(),
                secretName);
    }

    /** Members as the etcd endpoints reported them; null when no etcd source was given. */
    public static List<Baseline.EtcdMemberRef> etcdMembers(List<EtcdEndpointReport> etcd) {
        if (etcd == null || etcd.isEmpty()) {
            return null;
        }
        Map<Long, EtcdMember> members = new LinkedHashMap<>();
        for (EtcdEndpointReport r : etcd) {
            if (!r.ok()) {
                throw new CollectionException("etcd endpoint " + r.endpoint() + ": " + r.error());
            }
            r.members().forEach(m -> members.putIfAbsent(m.id(), m));
        }
        return members.values().stream()
                .map(m -> new Baseline.EtcdMemberRef(EtcdIds.hex(m.id()), m.name(), m.peerUrls()))
                .sorted(Comparator.comparing(Baseline.EtcdMemberRef::id)).toList();
    }

    /** k3s or rke2, from node-password Secret names, else from kubelet versions (v1.34.3+rke2r3). */
    static String distribution(Collection<SecretMeta> secrets, Collection<NodeInfo> nodes) {
        for (SecretMeta s : secrets) {
            if (s.name().endsWith(".rke2")) {
                return "rke2";
            }
            if (s.name().endsWith(".k3s")) {
                return "k3s";
            }
        }
        for (NodeInfo n : nodes) {
            String v = n.systemInfo().kubeletVersion();
            if (v != null && v.contains("+rke2")) {
                return "rke2";
            }
            if (v != null && v.contains("+k3s")) {
                return "k3s";
            }
        }
        return null;
    }

    /** The version the servers run (the one a returning host must be reinstalled at): most common on servers. */
    public static String clusterKubeletVersion(Collection<NodeInfo> nodes) {
        Map<String, Integer> counts = new TreeMap<>();
        boolean anyServer = nodes.stream().anyMatch(NodeInfo::isServer);
        for (NodeInfo n : nodes) {
            String v = n.systemInfo().kubeletVersion();
            if (v != null && (!anyServer || n.isServer())) {
                counts.merge(v, 1, Integer::sum);
            }
        }
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    }
}
