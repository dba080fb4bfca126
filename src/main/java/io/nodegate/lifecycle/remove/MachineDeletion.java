package io.nodegate.lifecycle.remove;

import io.nodegate.CollectionException;
import io.nodegate.RefusedException;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.lifecycle.gate.GateRecord;
import io.nodegate.lifecycle.gate.GateService;
import io.nodegate.lifecycle.gate.MachineEvidence;
import io.nodegate.lifecycle.gate.MachineSource;
import io.nodegate.model.MachineInfo;
import io.nodegate.source.kube.ApiCalls;
import io.nodegate.source.rancher.RancherMachines;
import io.nodegate.source.json.KubeJson;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * `remove NODE --machine-context`: in a Rancher custom cluster the Node is removed by deleting its Cluster API
 * Machine in Rancher's management cluster, so that Rancher's and Cluster API's own cascade runs rather than being
 * left with a Machine whose Node vanished.
 *
 * <p>What that cascade does, from the sources: Cluster API's Machine controller (kubernetes-sigs/cluster-api
 * {@code internal/controllers/machine/machine_controller.go}, reconcileDelete) waits while a
 * {@code pre-drain.delete.hook.machine.cluster.x-k8s.io/*} annotation is present (PreDrainDeleteHookAnnotationPrefix
 * and PreTerminateDeleteHookAnnotationPrefix in {@code api/v1beta1/machine_types.go}), cordons and drains the Node (an
 * unreachable Node: pods older than 1 s are skipped), waits for volumes to detach (skipped when unreachable), waits
 * while a {@code pre-terminate.delete.hook.machine.cluster.x-k8s.io/*} annotation is present, deletes the
 * infrastructure object (CustomMachine) and the bootstrap object (RKEBootstrap), and only then deletes the Node in
 * the downstream cluster, through the cluster's kubeconfig Secret (not while the Cluster itself is being deleted, nor
 * the last control-plane Node). Rancher puts its own pre-terminate hook
 * {@code pre-terminate.delete.hook.machine.cluster.x-k8s.io/rke-bootstrap-cleanup} on etcd Machines and, as soon as
 * the Machine is being deleted, annotates the downstream Node {@code etcd.<rke2|k3s>.cattle.io/remove=true}, which
 * makes k3s/RKE2 remove the etcd member, then drops the hook (rancher/rancher
 * {@code pkg/controllers/capr/bootstrap/controller.go}, {@code pkg/controllers/capr/etcdmgmt/saferemoval.go}; a member
 * removed by hand before is fine: k3s's RemovePeer finds none and reports success). Deleting the RKEBootstrap removes
 * the machine-plan Secret and its ServiceAccount, so the host's rancher-system-agent loses its plan. Nothing runs an
 * uninstall on the host: a custom node's RKE2 and system-agent stay installed until its owner runs
 * {@code rke2-uninstall.sh} and {@code rancher-system-agent-uninstall.sh}, which is why the gate asks for that first.
 */
final class MachineDeletion {

    private final MachineSource source;
    private MachineInfo machine;
    private ApiCalls.RawObject asSent;

    MachineDeletion(MachineSource source) {
        this.source = source;
    }

    String what() {
        return "Machine " + machine.key();
    }

    MachineInfo machine() {
        return machine;
    }

    /**
     * Finds the Node's Machine now and checks it is the one the gate judged and annotated: the same uid on the same
     * management cluster, still pointing at this Node, not being deleted, at a resourceVersion the gate saw or wrote.
     * With an override (no PASS needed) it must still be the one Machine of the cluster naming this Node object.
     * Refuses (nothing deleted) otherwise.
     *
     * @param gate the newest gate record, or null with an override and no record
     */
    void check(String node, String nodeUid, Map<String, String> nodeLabels, GateService.Latest gate, boolean override) {
        MachineEvidence.Outcome found = MachineEvidence.collect(source, node, nodeLabels);
        if (found.error() != null) {
            throw new CollectionException(found.error() + ". Nothing deleted");
        }
        MachineEvidence ev = found.evidence();
        if (!ev.provisioningClusterFound()) {
            throw new RefusedException("there is no provisioning.cattle.io/v1 Cluster " + ev.namespace() + "/"
                    + ev.cluster() + " in " + ev.source() + ". Nothing deleted");
        }
        List<MachineInfo> mine = ev.ofCluster();
        if (mine.size() != 1) {
            throw new RefusedException(mine.isEmpty()
                    ? "no Machine of cluster " + ev.cluster() + " in " + ev.namespace() + " names Node " + node
                    + ": --machine-context has nothing to delete (without it, remove deletes the Node). Nothing deleted"
                    : mine.size() + " Machines of cluster " + ev.cluster() + " name Node " + node + ": "
                    + mine.stream().map(MachineInfo::key).toList() + ". Nothing deleted");
        }
        MachineInfo m = mine.get(0);
        if (m.nodeRefUid() != null && !m.nodeRefUid().equals(nodeUid)) {
            throw new RefusedException("Machine " + m.key() + " points at Node uid " + m.nodeRefUid() + ", not " + nodeUid
                    + ". Nothing deleted");
        }
        if (m.deletionTimestamp() != null) {
            throw new RefusedException("Machine " + m.key() + " is already being deleted (since " + m.deletionTimestamp()
                    + "). Nothing deleted");
        }
        List<String> acceptableRv = new ArrayList<>();
        if (!override) {
            GateRecord.MachineRef ref = gate.record().machine();
            if (ref == null) {
                throw new RefusedException("the gate record " + gate.file().getFileName() + " was made without"
                        + " --machine-context: its verdict does not cover the Machine. Gate again with"
                        + " --machine-context. Nothing deleted");
            }
            if (!ref.server().equals(source.api().server())) {
                throw new RefusedException("the gate record " + gate.file().getFileName() + " judged a Machine of the"
                        + " management cluster " + ref.server() + ", not " + source.api().server() + ". Nothing deleted");
            }
            if (!ref.uid().equals(m.uid()) || !ref.name().equals(m.name()) || !ref.namespace().equals(m.namespace())) {
                throw new RefusedException("the gate judged Machine " + ref.namespace() + "/" + ref.name() + " (uid "
                        + ref.uid() + "); the Node's Machine now is " + m.key() + " (uid " + m.uid() + "): gate again."
                        + " Nothing deleted");
            }
            acceptableRv.add(ref.resourceVersion());
            if (gate.annotatedMachineResourceVersion() != null) {
                acceptableRv.add(gate.annotatedMachineResourceVersion());
            }
            if (!acceptableRv.contains(m.resourceVersion())) {
                throw new RefusedException("Machine " + m.key() + " changed since the gate (resourceVersion "
                        + m.resourceVersion() + ", gate saw " + acceptableRv + "): run the gate again. Nothing deleted");
            }
        }
        ApiCalls.RawObject raw = RancherMachines.machineAsSent(source.api().api(), m.namespace(), m.name())
                .orElseThrow(() -> new RefusedException("Machine " + m.key() + " is already gone (NotFound). Nothing"
                        + " deleted"));
        MachineInfo again = RancherMachines.parse(raw.object(), "GET Machine " + m.key());
        if (!m.uid().equals(again.uid()) || !m.resourceVersion().equals(again.resourceVersion())) {
            throw new RefusedException("Machine " + m.key() + " changed while it was being checked (resourceVersion "
                    + m.resourceVersion() + " -> " + again.resourceVersion() + "): run remove again. Nothing deleted");
        }
        this.machine = again;
        this.asSent = raw;
    }

    /** The Machine's JSON exactly as the management cluster sent it, written before the DELETE. */
    String saveEvidence(EvidenceStore store, String dirName) {
        String name = dirName + "/machine.json";
        String text = new String(asSent.body(), java.nio.charset.StandardCharsets.UTF_8);
        store.writeText(name, text.endsWith("\n") ? text : text + "\n");
        return name;
    }

    /** DELETE of the Machine with its uid and resourceVersion as preconditions. */
    NodeRemover.DeleteOutcome delete() {
        return NodeRemover.deleteWithPreconditions(source.api(), new NodeRemover.Deletable("Machine", what(),
                RancherMachines.machinePath(machine.namespace(), machine.name()), machine.name(), machine.uid(),
                "ours was deleted and Rancher registered the host again"), machine.resourceVersion());
    }

    /** What the record keeps of the deleted Machine. */
    GateRecord.MachineRef ref() {
        return new GateRecord.MachineRef(source.api().server(), machine.namespace(), machine.name(), machine.uid(),
                machine.resourceVersion(), machine.clusterName(), machine.nodeRefName(), machine.nodeRefUid(),
                machine.bootId(), machine.phase());
    }

    /** The Machine if it is still there (being deleted), or one Rancher created again under its name; else null. */
    String leftover() {
        var now = source.api().api().getPlain("GET Machine " + machine.key(),
                RancherMachines.machinePath(machine.namespace(), machine.name()), "Machine", machine.name(),
                KubeJson.MODEL);
        if (now.isEmpty()) {
            return null;
        }
        MachineInfo m = RancherMachines.parse(now.get(), "GET Machine " + machine.key());
        if (!machine.uid().equals(m.uid())) {
            return "a new Machine " + m.key() + " (uid " + m.uid() + "): the host registered with Rancher again";
        }
        return "Machine " + m.key() + (m.deletionTimestamp() == null ? " (phase " + m.phase() + ", not being deleted)"
                : " (deleting since " + m.deletionTimestamp() + ", finalizers: "
                + String.join(",", finalizers(now.get())) + ")");
    }

    private static List<String> finalizers(Map<String, Object> machine) {
        Object meta = machine.get("metadata");
        Object list = meta instanceof Map<?, ?> m ? m.get("finalizers") : null;
        List<String> out = new ArrayList<>();
        if (list instanceof List<?> l) {
            l.forEach(f -> out.add(String.valueOf(f)));
        }
        return out;
    }

    /** The kubectl command that shows whether the Machine is still there. */
    String checkByHand() {
        return "kubectl get machines.cluster.x-k8s.io -n " + machine.namespace() + " " + machine.name()
                + " -o jsonpath={.metadata.uid}";
    }
}
