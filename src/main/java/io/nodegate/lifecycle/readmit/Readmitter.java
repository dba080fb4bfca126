package io.nodegate.lifecycle.readmit;

import io.nodegate.lifecycle.gate.HostEvidence;
import io.nodegate.source.host.HostReportJson;
import io.nodegate.lifecycle.quarantine.TombstoneLedger;
import io.nodegate.model.Tombstone;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.baseline.BaselineCollector;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.JobInfo;
import io.nodegate.model.NewcomerHold;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.model.SharedMachineIds;
import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.lifecycle.evidence.Json;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Readmission of a returned host: keep the Node (cordon, role labels, GPU taint, podCIDR), back up and delete
 * only its node-password Secret, tell the person the host-side steps and the exact version; afterwards verify.
 */
public final class Readmitter {

    public static final String CATTLE_SYSTEM = "cattle-system";

    private final ApiReader api;
    private final EvidenceStore store;
    private final Clock clock;

    public Readmitter(KubernetesClient client, EvidenceStore store, Clock clock) {
        this(new ApiReader(client), store, clock);
    }

    /** Reads over the reader's lean layer; its fabric8 client (built on first use) does the writes. */
    public Readmitter(ApiReader api, EvidenceStore store, Clock clock) {
        this.api = api;
        this.store = store;
        this.clock = clock;
    }

    public record Plan(String node, Instant at, String distribution, String clusterVersion, String nodeKubelet,
                       SecretMeta secret, boolean deleted, String backup, List<String> hostSteps) {
        public static final String KIND = "nodegate.io/readmit-record";
    }

    /** @param held whether the Node read for these checks carries the newcomer hold's taint (only `accept` lifts it) */
    public record Verification(String node, Instant at, Verdict verdict, List<Check> checks, List<String> deletedJobs,
                               boolean held) {
    }

    /**
     * The host's tombstone and what readmit does with it: a removed host is quarantined (NG302, and refused at
     * registration under 'policy --quarantine') until its tombstone, and only its, is released.
     *
     * @param nodeExists whether the Node object is still there (a removed host's is not: it joins as a new Node)
     * @param released   true when this run removed the tombstone (--yes)
     * @param backup     where the released tombstone was saved
     * @param held       Nodes held at birth (taint {@value NewcomerHold#TAINT_KEY}) that this tombstone matches: the
     *                   host already came back, under this name or another, and waits for `accept`; releasing the
     *                   tombstone does not lift their hold
     */
    public record Release(String node, Tombstone tombstone, String where, boolean released, String backup,
                          boolean nodeExists, String clusterVersion, List<String> hostSteps, List<HeldNode> held) {
    }

    /** A held Node that matches a tombstone, and by what (name, systemUUID or machineID). */
    public record HeldNode(String name, String match) {
    }

    /** Null when the host has no tombstone. With {@code yes}, saves it to the evidence directory, then releases it. */
    public Release releaseTombstone(Baseline baseline, String node, boolean yes, TombstoneLedger ledger) {
        Tombstone tombstone = ledger.find(node).orElse(null);
        if (tombstone == null) {
            return null;
        }
        Baseline.Target target = requireTarget(baseline, node);
        Instant at = clock.instant();
        NodeInfo present = api.node(node).orElse(null);
        boolean exists = present != null;
        List<NodeInfo> nodes = api.nodes();
        String version = BaselineCollector.clusterKubeletVersion(nodes);
        // read before anything changes: a read that fails here leaves the tombstone in place
        SharedMachineIds images = new SharedMachineIds().addAll(nodes, null);
        List<HeldNode> held = new ArrayList<>();
        for (NodeInfo n : nodes) {
            String match = tombstone.matchOf(n, true, images);
            if (match != null && !tombstone.existedAtRemoval(n) && NewcomerHold.held(n)) {
                held.add(new HeldNode(n.name(), match));
            }
        }
        if (present != null && !present.uid().equals(target.uid())) {
            // the host registered again under its old name since it was removed: keeping "the" Node is not what is
            // left to do, and lifting the tombstone first would change the cluster on a path that then refuses
            throw new InputException("Node " + node + " has uid " + present.uid() + ", the baseline's is "
                    + target.uid() + ": it registered again since it was removed" + (NewcomerHold.held(present)
                    ? " and is held (taint " + NewcomerHold.TAINT_KEY + "); 'nodegate accept " + node
                    + " --baseline FILE --yes' admits it on the same evidence" : "; compare with a baseline of this"
                    + " object") + ". Nothing was released: the tombstone stays");
        }
        String dist = baseline.distribution() != null ? baseline.distribution() : "rke2";
        String backup = null;
        boolean released = false;
        if (yes) {
            store.ensureWritable();
            backup = store.writeJson("readmit-" + node + "-" + EvidenceStore.stamp(at) + "/released-tombstone.json",
                    tombstone).toString();
            released = ledger.release(node).isPresent();
        }
        return new Release(node, tombstone, ledger.where(), released, backup, exists, version,
                hostSteps(node, dist, version, exists), List.copyOf(held));
    }

    public Plan prepare(Baseline baseline, String node, boolean yes) {
        Baseline.Target target = requireTarget(baseline, node);
        Instant at = clock.instant();
        NodeInfo n = api.node(node).orElseThrow(() -> new InputException("Node " + node + " is gone (NotFound): "
                + "readmit keeps an existing Node; a host whose Node was deleted joins as a new node"));
        if (!n.uid().equals(target.uid())) {
            throw new InputException("Node " + node + " has uid " + n.uid() + ", the baseline's is " + target.uid()
                    + ": it was recreated since; compare with a baseline of this object");
        }
        List<NodeInfo> nodes = api.nodes();
        String version = BaselineCollector.clusterKubeletVersion(nodes);
        String dist = baseline.distribution() != null ? baseline.distribution() : "rke2";
        SecretMeta secret = api.nodePasswordSecret(node).orElse(null);
        String backup = null;
        boolean deleted = false;
        if (yes) {
            store.ensureWritable();
            String dir = "readmit-" + node + "-" + EvidenceStore.stamp(at);
            if (secret != null) {
                backup = store.writeJson(dir + "/node-password-secret.json", secret).toString();
                deleteSecret(secret);
                deleted = true;
            }
            Plan plan = new Plan(node, at, dist, version, n.systemInfo().kubeletVersion(), secret, deleted, backup,
                    hostSteps(node, dist, version, true));
            store.writeJson(dir + "/readmit.json", plan);
            return plan;
        }
        return new Plan(node, at, dist, version, n.systemInfo().kubeletVersion(), secret, false, null,
                hostSteps(node, dist, version, true));
    }

    public Verification verify(Baseline baseline, String node, boolean deleteFailedJobs) {
        return verify(baseline, node, deleteFailedJobs, null, List.of());
    }

    /**
     * @param hostReport       a report from `host inspect` on the returned host, or null
     * @param clusterAddresses other names this cluster is reached by, for judging the report's server
     */
    public Verification verify(Baseline baseline, String node, boolean deleteFailedJobs,
                               HostReportJson.Loaded hostReport, List<String> clusterAddresses) {
        return verify(baseline, requireTarget(baseline, node), node, deleteFailedJobs, hostReport, clusterAddresses);
    }

    /**
     * As {@link #verify(Baseline, String, boolean, HostReportJson.Loaded, List)}, comparing Node {@code node} with
     * another name's target: a removed host that came back under a new name (`accept`) is compared with the baseline
     * of the name it had.
     */
    public Verification verify(Baseline baseline, Baseline.Target target, String node, boolean deleteFailedJobs,
                               HostReportJson.Loaded hostReport, List<String> clusterAddresses) {
        Instant at = clock.instant();
        NodeInfo n = api.node(node).orElseThrow(() -> new CollectionException("Node " + node
                + " not found (NotFound): the Node object was not kept, or the host registered under another name"));
        List<NodeInfo> nodes = api.nodes();
        if (nodes.stream().noneMatch(x -> x.name().equals(node))) {
            // the cluster's version comes from this LIST: one that lacks the Node just read is no answer to trust
            throw new CollectionException("LIST nodes at " + api.connection().server() + " lacks Node " + node
                    + ", which GET found a moment before (" + nodes.size() + " Nodes listed): the two answers "
                    + "disagree (a proxy or cache answering in the API server's place?)");
        }
        SecretMeta secret = api.nodePasswordSecret(node).orElse(null);
        var jobs = api.jobs(CATTLE_SYSTEM);
        Instant deletedAt = lastSecretDeletion(node);
        String version = BaselineCollector.clusterKubeletVersion(nodes);
        Check hostCheck = hostReport == null ? ReadmitHostCheck.notGiven() : ReadmitHostCheck.check(hostReport.report(),
                hostReport.file().toString(), hostReport.actualSha256(), n,
                HostEvidence.clusterHosts(api.server(), nodes, clusterAddresses));
        List<Check> checks = withHost(ReadmitDecision.verify(target, n, secret, jobs.items(), version, deletedAt,
                baseline.baselineTs()), hostCheck);
        List<String> deletedJobs = new ArrayList<>();
        List<JobInfo> failed = jobs.items().stream().filter(j -> j.failed()
                && j.name().startsWith(ReadmitDecision.upgraderJobPrefix(node))).toList();
        // --yes acts only on a run that is otherwise a PASS: deleting the Jobs is the step that lets the Plan run
        // again, so it waits until everything else about the host holds (nothing changes on a run that fails)
        Verdict others = verdict(checks.stream().filter(c -> !c.id().equals(ReadmitDecision.UPGRADER_JOBS)).toList());
        if (deleteFailedJobs && !failed.isEmpty() && others != Verdict.PASS) {
            checks = checks.stream().map(c -> !c.id().equals(ReadmitDecision.UPGRADER_JOBS) ? c
                    : new Check(c.id(), c.title(), c.outcome(), append(c.reasons(), "--yes deleted nothing: the other "
                    + "checks are " + others + ", and nothing is changed on a run that is not otherwise a PASS"),
                    c.evidence())).toList();
        } else if (deleteFailedJobs && !failed.isEmpty()) {
            store.ensureWritable();
            String dir = "readmit-" + node + "-" + EvidenceStore.stamp(at);
            for (JobInfo j : failed) {
                var raw = api.rawJob(j.namespace(), j.name()).orElse(null);
                if (raw != null) {
                    store.writeText(dir + "/job-" + j.name() + ".json", api.client().getKubernetesSerialization().asJson(raw) + "\n");
                    delete("/apis/batch/v1/namespaces/" + j.namespace() + "/jobs/" + j.name(), j.uid(),
                            "Job " + j.namespace() + "/" + j.name(), "Background");
                    deletedJobs.add(j.namespace() + "/" + j.name());
                }
            }
            checks = withHost(ReadmitDecision.verify(target, n, secret,
                    jobs.items().stream().filter(j -> !deletedJobs.contains(j.namespace() + "/" + j.name())).toList(),
                    version, deletedAt, baseline.baselineTs()), hostCheck);
        }
        Verdict v = verdict(checks);
        Verification result = new Verification(node, at, v, checks, deletedJobs, NewcomerHold.held(n));
        store.ensureWritable();
        store.writeJson("readmit-verify-" + node + "-" + EvidenceStore.stamp(at) + ".json", result);
        if (hostReport != null) {
            store.writeText("readmit-verify-" + node + "-" + EvidenceStore.stamp(at) + ".host-report.json",
                    hostReport.text());
        }
        return result;
    }

    private static List<Check> withHost(List<Check> checks, Check host) {
        List<Check> all = new ArrayList<>(checks);
        all.add(host);
        return all;
    }

    private static Verdict verdict(List<Check> checks) {
        Verdict v = Verdict.PASS;
        for (Check c : checks) {
            v = Verdict.worst(v, c.outcome());
        }
        return v;
    }

    private static List<String> append(List<String> list, String item) {
        List<String> all = new ArrayList<>(list);
        all.add(item);
        return all;
    }

    private Instant lastSecretDeletion(String node) {
        Instant last = null;
        for (Path dir : listDirs("readmit-" + node + "-")) {
            Path rec = dir.resolve("readmit.json");
            if (java.nio.file.Files.exists(rec)) {
                Plan p = EvidenceStore.readJson(rec, Plan.class);
                if (p.deleted() && node.equals(p.node()) && (last == null || p.at().isAfter(last))) {
                    last = p.at();
                }
            }
        }
        return last;
    }

    private List<Path> listDirs(String prefix) {
        if (!java.nio.file.Files.isDirectory(store.dir())) {
            return List.of();
        }
        try (var s = java.nio.file.Files.list(store.dir())) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix) && java.nio.file.Files.isDirectory(p)).toList();
        } catch (java.io.IOException e) {
            throw new InputException("cannot list " + store.dir() + ": " + e.getMessage(), e);
        }
    }

    private static Baseline.Target requireTarget(Baseline baseline, String node) {
        Baseline.Target t = baseline.target(node);
        if (t == null) {
            throw new InputException(node + " is not a target in the baseline: its identity (systemUUID, kernel, GPUs) "
                    + "cannot be compared");
        }
        return t;
    }

    private void deleteSecret(SecretMeta s) {
        delete("/api/v1/namespaces/" + s.namespace() + "/secrets/" + s.name(), s.uid(), "Secret " + s.namespace() + "/" + s.name(), null);
    }

    /**
     * DELETE with a uid precondition; 404 means someone else already deleted it, which is what we wanted. An
     * answer that is not a clean confirmation (timeout, 5xx, an empty or foreign 200) is checked by reading the
     * object again: NotFound or another uid means it was deleted, the same object means it was not.
     */
    private void delete(String path, String uid, String what, String propagation) {
        Map<String, Object> options = new java.util.LinkedHashMap<>();
        options.put("kind", "DeleteOptions");
        options.put("apiVersion", "v1");
        options.put("preconditions", Map.of("uid", uid));
        if (propagation != null) {
            options.put("propagationPolicy", propagation);
        }
        HttpRequest.Builder req = api.deleteRequest(path, options);
        String unclear;
        try {
            HttpResponse<String> resp = api.send(req);
            if (resp.code() == 404) {
                return;
            }
            if (resp.code() >= 400 && resp.code() < 500 && resp.code() != 408) {
                throw new CollectionException("deleting " + what + " was refused with HTTP " + resp.code()
                        + ": it was not deleted");
            }
            if ((resp.code() == 200 || resp.code() == 202) && confirmsDelete(resp.body(), uid)) {
                return;
            }
            unclear = "the DELETE answered HTTP " + resp.code();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            unclear = "the DELETE was interrupted";
        } catch (CollectionException e) {
            throw e;
        } catch (Exception e) {
            unclear = "the DELETE failed (" + api.describe(e) + ")";
        }
        java.util.Optional<tools.jackson.databind.JsonNode> now;
        try {
            now = api.reread(what, path);
        } catch (CollectionException e) {
            throw new CollectionException("deleting " + what + ": " + unclear + ", and " + e.getMessage()
                    + "; whether it was deleted is unknown", e);
        }
        if (now.isPresent() && uid.equals(now.get().path("metadata").path("uid").asString())
                && !now.get().path("metadata").hasNonNull("deletionTimestamp")) {
            throw new CollectionException("deleting " + what + ": " + unclear + "; re-read: it is still there, "
                    + "not deleted");
        }
    }

    private static boolean confirmsDelete(String body, String uid) {
        try {
            var answer = Json.MAPPER.readTree(body);
            if (answer == null || !answer.isObject()) {
                return false;
            }
            if ("Status".equals(answer.path("kind").asString())) {
                return "Success".equals(answer.path("status").asString());
            }
            return uid.equals(answer.path("metadata").path("uid").asString());
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * @param nodeKept whether the Node object is still there: a kept one carries cordon, roles and taints through the
     *                 reinstall; a deleted one is registered anew with none of them, and they are put back by hand
     */
    static List<String> hostSteps(String node, String dist, String version, boolean nodeKept) {
        String v = version == null ? "<the cluster's version: see 'kubectl get nodes'>" : version;
        String name = nodeKept ? " (keep the name: the Node object keeps cordon, roles and taints)"
                : " (the Node was deleted: the host registers a new Node with no cordon, role labels or taints)";
        String after = nodeKept ? "" : "; as soon as it appears: kubectl cordon " + node + ", then put back the "
                + "baseline's role labels and taints (--verify checks them on the new Node)";
        if ("k3s".equals(dist)) {
            return List.of(
                    "1. On the host: /usr/local/bin/rancher-system-agent-uninstall.sh (if present), then /usr/local/bin/k3s-agent-uninstall.sh",
                    "2. Check nothing is left: no cni0/flannel/cali* interfaces, no mounts under /var/lib/kubelet, no k3s units",
                    "3. Install the agent at this cluster's exact version: curl -sfL https://get.k3s.io | INSTALL_K3S_VERSION="
                            + v + " K3S_URL=https://<server>:6443 K3S_TOKEN=<agent-token> K3S_NODE_NAME=" + node + " sh -s - agent"
                            + (nodeKept ? "" : name),
                    "4. Then: nodegate readmit " + node + " --baseline FILE --verify" + after);
        }
        return List.of(
                "1. On the host: /usr/local/bin/rancher-system-agent-uninstall.sh (if present), then /usr/local/bin/rke2-uninstall.sh",
                "2. Check nothing is left: no cali*/flannel interfaces, no mounts under /var/lib/kubelet, no rke2 units",
                "3. Install RKE2 at this cluster's exact version: curl -sfL https://get.rke2.io | INSTALL_RKE2_TYPE=agent INSTALL_RKE2_VERSION="
                        + v + " sh -",
                "4. /etc/rancher/rke2/config.yaml: server: https://<this cluster's supervisor>:9345, token: <agent-token>, node-name: "
                        + node + name,
                "5. systemctl enable --now rke2-agent",
                "6. Then: nodegate readmit " + node + " --baseline FILE --verify (add --yes to delete Failed upgrader Jobs)"
                        + after);
    }
}
