package io.nodegate.detect.controlplane;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdMember;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Taint;
import io.nodegate.time.Durations;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Redundancy counted per role, not per node (a home lab's "three control-plane nodes" had an API layer two deep,
 * because one server ran with the apiserver disabled): how many etcd voters, kube-apiservers, agent
 * failover targets, and scheduler / controller-manager leader candidates the cluster has, and which
 * server node contributes what. Pure: computed from one {@link ClusterState}.
 */
@JsonPropertyOrder({"distribution", "etcdVoters", "apiservers", "agentFailover", "scheduler",
        "controllerManager", "serverNodes", "notes"})
public record RoleLayers(String distribution, Layer etcdVoters, Layer apiservers, Layer agentFailover,
                         Layer scheduler, Layer controllerManager, List<ServerNode> serverNodes,
                         List<String> notes) {

    public static final String SCHEDULER_LEASE = "kube-scheduler";
    public static final String CONTROLLER_MANAGER_LEASE = "kube-controller-manager";
    public static final String BASIS_ETCD_INFERRED = "inferred from role labels (etcd endpoints not read)";

    public RoleLayers {
        serverNodes = List.copyOf(serverNodes);
        notes = List.copyOf(notes);
    }

    /**
     * One role's layers.
     *
     * @param count     how many; null when it could not be counted (then tolerates is null too)
     * @param tolerates failures the role survives: n-1 for apiservers and leader candidates,
     *                  n - (n/2+1) for etcd voters
     * @param members   node names, or the raw address / member name when no Node matches
     * @param basis     where the count comes from, in words
     * @param holder    current leader for lease-elected roles (node name), null otherwise or when unknown
     */
    @JsonPropertyOrder({"role", "count", "tolerates", "members", "basis", "holder"})
    public record Layer(String role, Integer count, Integer tolerates, List<String> members, String basis,
                        String holder) {
        public Layer {
            members = members == null ? List.of() : List.copyOf(members);
        }

        public boolean known() {
            return count != null;
        }
    }

    /** What one server node contributes, with its taints and how many pods actually run there. */
    @JsonPropertyOrder({"name", "roles", "internalIps", "etcdVoter", "apiserver", "schedulerCandidate",
            "controllerManagerCandidate", "disabled", "taints", "runningPods"})
    public record ServerNode(String name, List<String> roles, List<String> internalIps, boolean etcdVoter,
                             boolean apiserver, boolean schedulerCandidate, boolean controllerManagerCandidate,
                             List<String> disabled, List<String> taints, Integer runningPods) {
        public ServerNode {
            roles = List.copyOf(roles);
            internalIps = List.copyOf(internalIps);
            disabled = List.copyOf(disabled);
            taints = List.copyOf(taints);
        }
    }

    public static RoleLayers of(ClusterState state) {
        return new Builder(state).build();
    }

    /** Majority of n voters. */
    public static int quorum(int voters) {
        return voters / 2 + 1;
    }

    private static final class Builder {
        private final ClusterState state;
        private final List<String> notes = new ArrayList<>();
        private final Map<String, NodeArgs> args = new TreeMap<>();

        Builder(ClusterState state) {
            this.state = state;
            for (NodeInfo n : state.nodes()) {
                NodeArgs a = NodeArgs.of(n);
                args.put(n.name(), a);
                if (a.present() && !a.readable()) {
                    notes.add("Node " + n.name() + ": node-args annotation unreadable (" + a.error()
                            + "); counted as running every component");
                }
            }
        }

        RoleLayers build() {
            String distribution = distribution();
            List<NodeInfo> servers = state.nodes().stream().filter(this::isServer).toList();
            Layer etcd = etcdVoters(servers);
            Layer api = apiservers();
            Layer failover = agentFailover(distribution, api);
            Layer scheduler = leaderCandidates("kube-scheduler", SCHEDULER_LEASE, ControlPlaneComponent.SCHEDULER,
                    servers);
            Layer cm = leaderCandidates("kube-controller-manager", CONTROLLER_MANAGER_LEASE,
                    ControlPlaneComponent.CONTROLLER_MANAGER, servers);
            if (!state.pods().present()) {
                notes.add("Pods were not read: running pod counts unknown");
            }
            List<ServerNode> rows = servers.stream().map(n -> new ServerNode(n.name(), List.copyOf(n.roles()),
                    n.internalIps(), etcd.members().contains(n.name()), api.members().contains(n.name()),
                    scheduler.members().contains(n.name()), cm.members().contains(n.name()),
                    args.get(n.name()).disabled().stream().map(ControlPlaneComponent::label).toList(),
                    n.taints().stream().map(Taint::toString).toList(), runningPods(n.name()))).toList();
            return new RoleLayers(distribution, etcd, api, failover, scheduler, cm, rows, notes);
        }

        /** A server: a control-plane/etcd/master role label, or k3s/RKE2 started as {@code server}. */
        private boolean isServer(NodeInfo n) {
            return n.isServer() || args.get(n.name()).server();
        }

        private String distribution() {
            List<String> versions = new ArrayList<>();
            if (state.serverVersion() != null) {
                versions.add(state.serverVersion());
            }
            state.nodes().forEach(n -> {
                if (n.systemInfo().kubeletVersion() != null) {
                    versions.add(n.systemInfo().kubeletVersion());
                }
            });
            if (versions.stream().anyMatch(v -> v.contains("+rke2"))
                    || state.nodes().stream().anyMatch(n -> n.annotation("rke2.io/node-args") != null)) {
                return "rke2";
            }
            if (versions.stream().anyMatch(v -> v.contains("+k3s"))
                    || state.nodes().stream().anyMatch(n -> n.annotation("k3s.io/node-args") != null)) {
                return "k3s";
            }
            return null;
        }

        private Layer etcdVoters(List<NodeInfo> servers) {
            List<EtcdEndpointReport> ok = state.etcd().stream().filter(EtcdEndpointReport::ok).toList();
            if (ok.isEmpty()) {
                String basis = BASIS_ETCD_INFERRED;
                if (!state.etcd().isEmpty()) {
                    basis = "inferred from role labels (no etcd endpoint answered)";
                    notes.add("etcd endpoints were given but none answered: voters inferred from role labels");
                }
                List<String> voters = servers.stream()
                        .filter(n -> n.roles().contains("etcd"))
                        .filter(n -> !args.get(n.name()).disables(ControlPlaneComponent.ETCD))
                        .map(NodeInfo::name).toList();
                if (voters.isEmpty()) {
                    // kubeadm does not label stacked etcd and external etcd has no Node: no label proves no etcd
                    notes.add("no Node has the etcd role and etcd endpoints were not read: etcd voter count unknown");
                    return new Layer("etcd voters", null, null, List.of(), basis, null);
                }
                return new Layer("etcd voters", voters.size(), tolerance(voters.size()), voters, basis, null);
            }
            // the member-list cluster ID is 0 where neither a status nor a list was read
            Set<Long> clusterIds = ok.stream()
                    .map(EtcdEndpointReport::clusterId)
                    .filter(id -> id != 0L)
                    .collect(Collectors.toCollection(TreeSet::new));
            EtcdEndpointReport chosen = ok.stream()
                    .max(Comparator.comparingLong(r -> r.members().stream().filter(m -> !m.learner()).count()))
                    .orElseThrow();
            if (clusterIds.size() > 1) {
                notes.add("etcd endpoints answer for " + clusterIds.size() + " different clusters (split brain? "
                        + "see `nodegate etcd`); voters counted from the largest member list, read at "
                        + chosen.endpoint());
            }
            long learners = chosen.members().stream().filter(EtcdMember::learner).count();
            if (learners > 0) {
                notes.add(learners + " etcd learner(s) not counted as voters");
            }
            List<String> voters = chosen.members().stream().filter(m -> !m.learner()).map(this::nodeOfMember)
                    .sorted().toList();
            String basis = "etcd member list (" + ok.size() + " of " + state.etcd().size()
                    + " endpoint(s) answered)";
            return new Layer("etcd voters", voters.size(), tolerance(voters.size()), voters, basis, null);
        }

        /** The Node a member runs on, as the etcd detectors pair them; else its name, else its hex ID. */
        private String nodeOfMember(EtcdMember m) {
            return EtcdMemberNodes.match(m, state).map(match -> match.node().name())
                    .orElseGet(() -> m.name() != null ? m.name() : Long.toHexString(m.id()));
        }

        private Layer apiservers() {
            List<String> addresses = state.apiEndpoints().addresses();
            if (addresses.isEmpty() && state.now() != null && state.controlPlaneLeases().stream()
                    .anyMatch(l -> l.apiserverHost() != null)) {
                return apiserversFromIdentityLeases();
            }
            if (addresses.isEmpty()) {
                notes.add("default/kubernetes endpoints not read or empty: kube-apiserver count unknown");
                return new Layer("kube-apiserver", null, null, List.of(),
                        "default/kubernetes endpoints (not available)", null);
            }
            List<String> members = new ArrayList<>();
            for (String address : addresses) {
                List<String> owners = state.nodes().stream().filter(n -> ipsOf(n).contains(address))
                        .map(NodeInfo::name).toList();
                if (owners.isEmpty()) {
                    notes.add("kube-apiserver address " + address + " belongs to no Node (a server without an "
                            + "agent, or an external address)");
                    members.add(address);
                } else {
                    if (owners.size() > 1) {
                        notes.add("kube-apiserver address " + address + " is the InternalIP of several Nodes "
                                + owners + "; counted once, as " + owners.get(0));
                    }
                    members.add(owners.get(0));
                }
            }
            List<String> distinct = members.stream().distinct().sorted().toList();
            return new Layer("kube-apiserver", distinct.size(), tolerance1(distinct.size()), distinct,
                    "default/kubernetes endpoints " + addresses, null);
        }

        /**
         * Without endpoints (the Endpoints API refuses loopback addresses, so a control plane on one machine has
         * none; or they were not read), each kube-apiserver still says it runs: it renews its identity Lease
         * (kube-system/apiserver-&lt;hash&gt;, labelled with its hostname) every 10 s. A stopped apiserver's Lease
         * stays for an hour with nobody renewing it, so only a Lease renewed within {@link #IDENTITY_FRESH} counts.
         */
        private Layer apiserversFromIdentityLeases() {
            Map<String, String> nodeByName = new java.util.HashMap<>();
            state.nodes().forEach(n -> nodeByName.put(n.name().toLowerCase(Locale.ROOT), n.name()));
            List<String> members = new ArrayList<>();
            for (LeaseInfo l : state.controlPlaneLeases()) {
                if (l.apiserverHost() == null) {
                    continue;
                }
                String host = nodeByName.getOrDefault(l.apiserverHost().toLowerCase(Locale.ROOT),
                        l.apiserverHost());
                Duration age = l.renewTime() == null ? null : Duration.between(l.renewTime(), state.now());
                if (age != null && age.compareTo(IDENTITY_FRESH) <= 0) {
                    members.add(host);
                } else {
                    notes.add("kube-apiserver on " + host + " has not renewed its identity Lease kube-system/"
                            + l.name() + (age == null ? " (no renewTime)" : " for "
                            + Durations.format(age)) + ": not counted (a stopped apiserver's Lease stays for an hour)");
                }
            }
            notes.add("default/kubernetes endpoints not read or empty: kube-apiservers counted from their identity "
                    + "Leases");
            List<String> distinct = members.stream().distinct().sorted().toList();
            return new Layer("kube-apiserver", distinct.size(), tolerance1(distinct.size()), distinct,
                    "kube-apiserver identity Leases in kube-system renewed in the last "
                            + IDENTITY_FRESH.toSeconds() + " s", null);
        }

        /** Three of kube-apiserver's 10-second identity renewals missed. */
        static final Duration IDENTITY_FRESH = Duration.ofSeconds(30);

        private static List<String> ipsOf(NodeInfo n) {
            List<String> ips = new ArrayList<>(n.internalIps());
            String k3sIp = n.annotation("k3s.io/internal-ip");
            if (k3sIp != null) {
                for (String ip : k3sIp.split(",")) {
                    if (!ip.isBlank()) {
                        ips.add(ip.trim());
                    }
                }
            }
            return ips;
        }

        private static Layer agentFailover(String distribution, Layer api) {
            if (distribution == null) {
                return new Layer("agent failover list", null, null, List.of(),
                        "not applicable: not a k3s/RKE2 cluster", null);
            }
            String file = "rke2".equals(distribution)
                    ? "/var/lib/rancher/rke2/agent/etc/rke2-agent-load-balancer.json"
                    : "/var/lib/rancher/k3s/agent/etc/k3s-agent-load-balancer.json";
            return new Layer("agent failover list", api.count(), api.tolerates(), api.members(),
                    "derived from the default/kubernetes endpoints, which " + distribution
                            + " agents copy into " + file + " (not read from the hosts)", null);
        }

        private Layer leaderCandidates(String role, String leaseName, ControlPlaneComponent component,
                                       List<NodeInfo> servers) {
            List<String> candidates = servers.stream()
                    .filter(n -> n.roles().contains("control-plane") || n.roles().contains("master")
                            || args.get(n.name()).server())
                    .filter(n -> !args.get(n.name()).disables(component))
                    .map(NodeInfo::name).toList();
            Optional<LeaseInfo> lease = state.controlPlaneLeases().stream()
                    .filter(l -> leaseName.equals(l.name())
                            && (l.namespace() == null || "kube-system".equals(l.namespace())))
                    .findFirst();
            String holder = null;
            String basis = "control-plane nodes without " + component.disableFlag();
            if (lease.isEmpty()) {
                notes.add("Lease kube-system/" + leaseName + " not found: current " + role + " leader unknown");
            } else {
                holder = holderNode(lease.get().holderIdentity());
                basis += "; leader from Lease kube-system/" + leaseName;
                if (holder == null) {
                    notes.add("Lease kube-system/" + leaseName + " has no holder: no " + role + " leader");
                } else {
                    if (!candidates.contains(holder)) {
                        notes.add(role + " leader " + holder + " is not among the candidates computed from "
                                + "Node objects (a server without an agent, or labels/arguments changed since)");
                    }
                    expiry(lease.get()).ifPresent(age -> notes.add("Lease kube-system/" + leaseName
                            + " expired " + Durations.format(age) + " ago: " + role + " leader may be gone"));
                }
            }
            return new Layer(role, candidates.size(), tolerance1(candidates.size()), candidates, basis, holder);
        }

        private Optional<Duration> expiry(LeaseInfo lease) {
            if (lease.renewTime() == null || lease.leaseDurationSeconds() == null || state.now() == null) {
                return Optional.empty();
            }
            Instant expires = lease.renewTime().plusSeconds(lease.leaseDurationSeconds());
            return expires.isBefore(state.now()) ? Optional.of(Duration.between(expires, state.now()))
                    : Optional.empty();
        }

        private Integer runningPods(String node) {
            if (!state.pods().present()) {
                return null;
            }
            return (int) state.pods().items().stream()
                    .filter(p -> node.equals(p.nodeName()) && "Running".equals(p.phase())).count();
        }
    }

    /**
     * The node part of a leader-election holderIdentity. kube-scheduler and kube-controller-manager write
     * {@code <hostname>_<uuid>}; node names cannot contain '_', so the part before the first '_' is the node.
     */
    public static String holderNode(String holderIdentity) {
        if (holderIdentity == null || holderIdentity.isBlank()) {
            return null;
        }
        int cut = holderIdentity.indexOf('_');
        return (cut < 0 ? holderIdentity : holderIdentity.substring(0, cut)).toLowerCase(Locale.ROOT);
    }

    private static Integer tolerance(int voters) {
        return voters == 0 ? 0 : voters - quorum(voters);
    }

    private static Integer tolerance1(int n) {
        return Math.max(0, n - 1);
    }
}
