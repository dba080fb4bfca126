package io.nodegate.lifecycle.rejoin;

import io.nodegate.CollectionException;
import io.nodegate.detect.rejoin.RejoinRisk;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.model.MachineInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.RegistrationToken;
import io.nodegate.model.SecretMeta;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneShards;
import io.nodegate.model.host.HostReport;
import io.nodegate.lifecycle.quarantine.TombstoneLedger;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.json.Plain;
import io.nodegate.source.kube.BootstrapTokenReader;
import io.nodegate.source.kube.TombstoneReader;
import io.nodegate.source.rancher.RancherMachines;
import io.nodegate.source.rancher.RegistrationTokenReader;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads what {@link RejoinRisk} decides by, each read on its own: one that fails makes only what depends on it
 * "unknown" (its error is kept and shown), never "absent" and never "no". Secrets are read as metadata (node-password)
 * or as the three data keys of a bootstrap token ({@link BootstrapTokenReader}); no token value is read.
 */
public final class RejoinReader {

    private static final String VAP = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/";
    private static final String VAPB = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/";
    /** The most dry runs of Node CREATEs one run sends to confirm the quarantine (one request per removed host). */
    static final int DRY_RUNS_PER_RUN = 20;

    private final ApiReader api;
    private final Clock clock;
    private final String ledgerNamespace;
    private final Management management;

    public RejoinReader(ApiReader api, Clock clock, String ledgerNamespace) {
        this(api, clock, ledgerNamespace, null);
    }

    /** As the other constructor, also reading Rancher's management cluster ({@code management} may be null). */
    public RejoinReader(ApiReader api, Clock clock, String ledgerNamespace, Management management) {
        this.api = api;
        this.clock = clock;
        this.ledgerNamespace = ledgerNamespace;
        this.management = management;
    }

    /**
     * Rancher's management ("local") cluster of a custom cluster.
     *
     * @param api         reads there
     * @param namespace   the Fleet workspace namespace of the provisioning Cluster ({@code fleet-default})
     * @param cluster     the provisioning Cluster's name; null to take it from the downstream Nodes' label
     *                    {@code plan.cattle.io/cluster-name} (Rancher 2.15+)
     * @param description how the user named it ("--machine-kubeconfig rancher.yaml")
     */
    public record Management(ApiReader api, String namespace, String cluster, String description) {
    }

    /** The answers for {@code names} (empty: every host in the tombstone ledger), in the order asked / removed. */
    public Report answer(List<String> names, List<HostReport> hostReports) {
        return answer(names, hostReports, Map.of());
    }

    /** A host's identities as a baseline recorded them: systemUUID and machineID (either may be null). */
    public record Known(String systemUuid, String machineId) {
    }

    /**
     * As {@link #answer(List, List)}; a name with neither a tombstone nor a Node but in {@code known} (verify-gone's
     * removed targets) is a host deleted without a tombstone, followed by the identities recorded there.
     */
    public Report answer(List<String> names, List<HostReport> hostReports, Map<String, Known> known) {
        RejoinRisk.Read<List<TombstoneShards.Shard>> ledger = read(() -> TombstoneReader.shards(api.api(),
                ledgerNamespace));
        RejoinRisk.ClusterEvidence ev = new RejoinRisk.ClusterEvidence(clock.instant(), ledgerNamespace,
                read(this::quarantine), read(() -> BootstrapTokenReader.read(api.connection())),
                management == null ? null : read(this::rancher));
        List<RejoinRisk.Subject> subjects = new ArrayList<>();
        if (names.isEmpty()) {
            if (!ledger.ok()) {
                throw new CollectionException("the removed hosts cannot be listed: " + ledger.error());
            }
            List<Tombstone> all = new ArrayList<>();
            ledger.value().forEach(s -> all.addAll(s.book().tombstones()));
            all.sort(Comparator.comparing(Tombstone::removedAt, Comparator.nullsFirst(Comparator.naturalOrder()))
                    .thenComparing(Tombstone::name));
            for (Tombstone t : all.stream().map(Tombstone::name).distinct()
                    .map(n -> TombstoneReader.find(ledger.value(), n).orElseThrow()).toList()) {
                subjects.add(subject(t.name(), ledger, hostReports, known));
            }
        } else {
            names.forEach(n -> subjects.add(subject(n, ledger, hostReports, known)));
        }
        List<RejoinRisk.HostAnswer> answers = new ArrayList<>();
        boolean quarantineObjects = ev.quarantine().ok() && ev.quarantine().value().inForce();
        // the apiserver's own answer, where the objects say the quarantine refuses the host: for the most recently
        // removed ones (the ledger's order), which an apiserver reading an old copy of the ledger misses first
        List<RejoinRisk.Subject> checkable = subjects.stream().filter(s -> quarantineObjects && s.problem() == null
                && s.removed() && s.shardLabelled()).toList();
        java.util.Set<RejoinRisk.Subject> dryRunFor = new java.util.HashSet<>(checkable.subList(
                Math.max(0, checkable.size() - DRY_RUNS_PER_RUN), checkable.size()));
        for (RejoinRisk.Subject s : subjects) {
            RejoinRisk.Read<Optional<SecretMeta>> password = s.problem() != null ? RejoinRisk.Read.ok(Optional.empty())
                    : read(() -> api.nodePasswordSecret(s.name()));
            RejoinRisk.Read<RejoinRisk.DryRun> dryRun = dryRunFor.contains(s) ? dryRun(s.name())
                    : checkable.contains(s) ? RejoinRisk.Read.failed("not checked: one run sends at most "
                    + DRY_RUNS_PER_RUN + " dry runs, for the most recently removed hosts (name this host to check it)")
                    : null;
            answers.add(RejoinRisk.answer(s, password, dryRun, ev));
        }
        return new Report(ev.now(), ledgerNamespace, answers, unmatched(subjects, hostReports, ledger.ok()),
                subjects.stream().map(RejoinReader::identities).toList());
    }

    /**
     * The host reports (their indexes in {@code reports}) that belong to none of the hosts asked: matched by none, and
     * not possibly the report of a host nothing is known of (its hostname that host's name). With the ledger unread
     * nothing can be matched, so none is called unmatched.
     */
    private static List<Integer> unmatched(List<RejoinRisk.Subject> subjects, List<HostReport> reports,
                                           boolean ledgerRead) {
        List<Integer> out = new ArrayList<>();
        if (!ledgerRead) {
            return out;
        }
        for (int i = 0; i < reports.size(); i++) {
            HostReport r = reports.get(i);
            String hostname = r.identity() == null ? null : r.identity().knownHostname();
            boolean used = subjects.stream().anyMatch(s -> s.host() == r
                    || (s.problem() != null && s.name().equals(hostname)));
            if (!used) {
                out.add(i);
            }
        }
        return out;
    }

    /** "gpu-a11 (systemUUID …, machineID …)": what a host report is matched by, for a refusal's message. */
    private static String identities(RejoinRisk.Subject s) {
        String uuid = s.removed() ? s.tombstone().systemUuid() : Tombstone.identity(s.liveSystemUuid());
        String mid = s.removed() ? s.tombstone().machineId() : Tombstone.identity(s.liveMachineId());
        List<String> ids = new ArrayList<>();
        if (uuid != null) {
            ids.add("systemUUID " + uuid);
        }
        if (mid != null) {
            ids.add("machineID " + mid);
        }
        return s.name() + (ids.isEmpty() ? "" : " (" + String.join(", ", ids) + ")");
    }

    /**
     * A server-side dry run of the CREATE a returning kubelet would send under {@code name} ({@code dryRun=All}: the
     * apiserver admits or refuses it and stores nothing), with the request timeout as the deadline on the whole
     * answer. A refusal by the quarantine confirms it; an admission shows the apiserver lets the name in. Anything
     * else confirms nothing and says why: no permission to create Nodes (operators need none, so this is common), a
     * Node of that name already there, no answer.
     */
    private RejoinRisk.Read<RejoinRisk.DryRun> dryRun(String name) {
        String what = "a server-side dry run of a Node named " + name;
        String body = DRY_RUN_JSON.writeValueAsString(Map.of("apiVersion", "v1", "kind", "Node",
                "metadata", Map.of("name", name)));
        var request = api.client().getHttpClient().newHttpRequestBuilder()
                .uri(api.connection().server() + "/api/v1/nodes?dryRun=All")
                .setHeader("Accept", "application/json").post("application/json", body);
        io.fabric8.kubernetes.client.http.HttpResponse<String> answer;
        try {
            answer = api.send(request);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return RejoinRisk.Read.failed(what + " was interrupted");
        } catch (Exception e) {
            return RejoinRisk.Read.failed(what + " got no answer (" + api.describe(e) + ")");
        }
        int code = answer.code();
        if (code == 200 || code == 201) {
            return RejoinRisk.Read.ok(new RejoinRisk.DryRun(false, "HTTP " + code + ", admitted"));
        }
        String message = statusMessage(answer.body());
        if (message.contains("ValidatingAdmissionPolicy '" + TombstoneLedger.QUARANTINE_POLICY + "'")) {
            return RejoinRisk.Read.ok(new RejoinRisk.DryRun(true, "HTTP " + code + ", refused by "
                    + TombstoneLedger.QUARANTINE_POLICY));
        }
        if (code == 409) {
            return RejoinRisk.Read.failed(what + " met a Node of that name (HTTP 409 AlreadyExists)");
        }
        if (code == 403) {
            return RejoinRisk.Read.failed(what + " was not allowed to this identity (HTTP 403: creating Nodes, even "
                    + "as a dry run, needs the create verb on nodes)");
        }
        return RejoinRisk.Read.failed(what + " answered HTTP " + code + (message.isEmpty() ? "" : ": " + message));
    }

    private static final tools.jackson.databind.json.JsonMapper DRY_RUN_JSON =
            tools.jackson.databind.json.JsonMapper.builder().build();

    /** The message of a Kubernetes Status answer, first line only; empty when the body is not one. */
    private static String statusMessage(String body) {
        try {
            String message = DRY_RUN_JSON.readTree(body == null ? "" : body).path("message").asString("");
            int nl = message.indexOf('\n');
            return nl < 0 ? message : message.substring(0, nl);
        } catch (RuntimeException e) {
            return "";
        }
    }

    /**
     * What rejoin-risk prints: when it was read, the ledger's namespace and one answer per host; and, for the command
     * to refuse them, the host reports that matched no host asked and what each host asked is matched by.
     */
    public record Report(java.time.Instant readAt, String ledgerNamespace, List<RejoinRisk.HostAnswer> hosts,
                         List<Integer> unmatchedReports, List<String> askedIdentities) {
        public Report {
            hosts = List.copyOf(hosts);
            unmatchedReports = List.copyOf(unmatchedReports);
            askedIdentities = List.copyOf(askedIdentities);
        }

        public Report(java.time.Instant readAt, String ledgerNamespace, List<RejoinRisk.HostAnswer> hosts) {
            this(readAt, ledgerNamespace, hosts, List.of(), List.of());
        }

        /**
         * The worst answer: unknown over yes over no (an empty report is "no"). A read that failed counts as unknown
         * even beside a proven answer: the exit code of a run with a failed call is never 0 or 5.
         */
        public RejoinRisk.Answer worst() {
            if (hosts.stream().anyMatch(h -> h.canComeBack() == RejoinRisk.Answer.UNKNOWN || !h.unread().isEmpty())) {
                return RejoinRisk.Answer.UNKNOWN;
            }
            return hosts.stream().anyMatch(h -> h.canComeBack() == RejoinRisk.Answer.YES) ? RejoinRisk.Answer.YES
                    : RejoinRisk.Answer.NO;
        }
    }

    private RejoinRisk.Subject subject(String name, RejoinRisk.Read<List<TombstoneShards.Shard>> ledger,
                                       List<HostReport> hostReports, Map<String, Known> known) {
        if (!ledger.ok()) {
            return problem(name, "the tombstone ledger: " + ledger.error());
        }
        for (TombstoneShards.Shard shard : ledger.value()) {
            Optional<Tombstone> t = shard.book().get(name);
            if (t.isPresent() && t.get().equals(TombstoneReader.find(ledger.value(), name).orElse(null))) {
                return new RejoinRisk.Subject(name, t.get(), shard.name(), shard.labelled(), null, null,
                        hostReport(name, t.get().systemUuid(), t.get().machineId(), hostReports), null, false);
            }
        }
        Optional<NodeInfo> node;
        try {
            node = api.node(name);
        } catch (CollectionException e) {
            return problem(name, "GET Node " + name + ": " + e.getMessage());
        }
        if (node.isEmpty() && known.containsKey(name)) {
            Known k = known.get(name);
            return new RejoinRisk.Subject(name, null, null, false, k.systemUuid(), k.machineId(),
                    hostReport(name, Tombstone.identity(k.systemUuid()), Tombstone.identity(k.machineId()),
                            hostReports), null, true);
        }
        if (node.isEmpty()) {
            return problem(name, "no tombstone for " + name + " in " + ledgerNamespace + " and no Node " + name
                    + ": nothing says which host it was");
        }
        String uuid = node.get().systemInfo().systemUuid();
        String mid = node.get().systemInfo().machineId();
        return new RejoinRisk.Subject(name, null, null, false, uuid, mid,
                hostReport(name, Tombstone.identity(uuid), Tombstone.identity(mid), hostReports), null, false);
    }

    private static RejoinRisk.Subject problem(String name, String why) {
        return new RejoinRisk.Subject(name, null, null, false, null, null, null, why, false);
    }

    /** The report of this host: by systemUUID or machineID, else by hostname = node name. */
    static HostReport hostReport(String name, String uuid, String mid, List<HostReport> reports) {
        for (HostReport r : reports) {
            HostReport.Identity id = r.identity();
            if (id == null) {
                continue;
            }
            if ((uuid != null && uuid.equals(Tombstone.identity(id.productUuid())))
                    || (mid != null && mid.equals(Tombstone.identity(id.machineId())))) {
                return r;
            }
        }
        return reports.stream().filter(r -> r.identity() != null && name.equals(r.identity().knownHostname()))
                .findFirst().orElse(null);
    }

    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    /**
     * What Rancher's management cluster says of this cluster: the provisioning Cluster (for its management ID), the
     * ClusterRegistrationTokens in that namespace and the cluster's Machines. Any failure throws: the caller keeps it
     * as an unread path, never as "no token".
     */
    private RejoinRisk.Rancher rancher() {
        String where = " (Rancher's management cluster, " + management.description() + ")";
        String cluster = management.cluster() != null ? management.cluster() : clusterFromNodes();
        String ns = management.namespace();
        Map<String, Object> provisioning = RancherMachines.provisioningCluster(management.api().api(), ns, cluster)
                .orElseThrow(() -> new CollectionException("no provisioning Cluster " + ns + "/" + cluster + where
                        + ": give the downstream cluster's name in Rancher with --machine-cluster"));
        String managementId = RancherMachines.managementId(provisioning);
        if (managementId == null || managementId.length() > 63 || !NAME.matcher(managementId).matches()) {
            throw new CollectionException("provisioning Cluster " + ns + "/" + cluster + where + " has "
                    + (managementId == null ? "no status.clusterName" : "an unusable status.clusterName")
                    + ": its management namespace is not known");
        }
        List<RegistrationToken> tokens = RegistrationTokenReader.read(management.api().connection(), managementId);
        List<MachineInfo> machines = RancherMachines.machines(management.api().api(), ns).stream()
                .filter(m -> cluster.equals(m.clusterLabel()) || cluster.equals(m.clusterName())).toList();
        return new RejoinRisk.Rancher(cluster, ns, managementId, tokens, machines);
    }

    /** The provisioning Cluster's name, as the downstream Nodes' label plan.cattle.io/cluster-name gives it. */
    private String clusterFromNodes() {
        String label = MachineInfo.NODE_CLUSTER_NAME_LABEL;
        List<String> values = api.api().listPlain("LIST Nodes labelled " + label, "/api/v1/nodes", "Node", label,
                null, KubeJson.MODEL, m -> {
                    Map<String, String> labels = Plain.stringMap(Plain.map(m, "metadata"), "labels");
                    return labels == null ? null : labels.get(label);
                });
        List<String> distinct = List.copyOf(new LinkedHashSet<>(values.stream()
                .filter(v -> v != null && !v.isBlank()).toList()));
        if (distinct.size() != 1) {
            throw new CollectionException((distinct.isEmpty() ? "no Node carries the label " + label
                    + " (Rancher 2.15+ sets it)" : "Nodes name " + distinct.size() + " clusters in " + label)
                    + ": give the downstream cluster's name in Rancher with --machine-cluster");
        }
        String cluster = distinct.get(0);
        if (cluster.length() > 63 || !NAME.matcher(cluster).matches()) {
            throw new CollectionException("the Nodes' label " + label + " is not a cluster name: give it with "
                    + "--machine-cluster");
        }
        return cluster;
    }

    /** The quarantine's policy and binding, by name; absent only on a 404. */
    private RejoinRisk.Quarantine quarantine() {
        String name = TombstoneLedger.QUARANTINE_POLICY;
        boolean policy = api.api().getPlain("GET ValidatingAdmissionPolicy " + name, VAP + name,
                "ValidatingAdmissionPolicy", name, KubeJson.MODEL).isPresent();
        Optional<Map<String, Object>> binding = api.api().getPlain("GET ValidatingAdmissionPolicyBinding " + name,
                VAPB + name, "ValidatingAdmissionPolicyBinding", name, KubeJson.MODEL);
        String problem = binding.map(b -> bindingProblem(b, ledgerNamespace)).orElse(null);
        return new RejoinRisk.Quarantine(policy, binding.isPresent(), problem);
    }

    /** What keeps the binding from refusing tombstoned hosts of {@code namespace}'s ledger, or null. */
    static String bindingProblem(Map<String, Object> binding, String namespace) {
        try {
            Map<String, Object> spec = Plain.map(binding, "spec");
            if (spec == null) {
                return "has no spec";
            }
            if (!TombstoneLedger.QUARANTINE_POLICY.equals(Plain.string(spec, "policyName"))) {
                return "binds policy " + Plain.string(spec, "policyName");
            }
            List<Object> actions = Plain.list(spec, "validationActions");
            if (actions == null || !actions.contains("Deny")) {
                return "has validationActions " + actions + " without Deny: it refuses nothing";
            }
            Map<String, Object> ref = Plain.map(spec, "paramRef");
            String ns = ref == null ? null : Plain.string(ref, "namespace");
            if (!namespace.equals(ns)) {
                return "reads the ledger in namespace " + ns + ", not in " + namespace;
            }
            return null;
        } catch (RuntimeException e) {
            throw new CollectionException("ValidatingAdmissionPolicyBinding " + TombstoneLedger.QUARANTINE_POLICY
                    + ": unusable answer: " + e.getMessage());
        }
    }

    private static <T> RejoinRisk.Read<T> read(java.util.function.Supplier<T> call) {
        try {
            return RejoinRisk.Read.ok(call.get());
        } catch (CollectionException e) {
            return RejoinRisk.Read.failed(e.getMessage());
        }
    }
}
