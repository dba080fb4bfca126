package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.MachineInfo;
import io.nodegate.model.NodeInfo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * (machine) In a Rancher custom cluster every Node is also a Cluster API Machine in Rancher's management cluster,
 * and deleting the node from Rancher deletes that Machine: Cluster API drains the Node, waits for the deletion hooks
 * (Rancher's own removes an etcd member first), deletes the CustomMachine and RKEBootstrap, then the downstream Node
 * (kubernetes-sigs/cluster-api internal/controllers/machine/machine_controller.go, reconcileDelete). That path
 * never meets the gate on the downstream cluster. Seed 000's rule "in Rancher custom clusters, the gate goes in
 * front of the Machine deletion" needs the gate to know which Machine is this Node's.
 *
 * <p>The Machine is the one of the gated cluster whose {@code status.nodeRef.name} is the Node. It must be bound to
 * this Node object, not just its name: by {@code status.nodeRef.uid} where Cluster API records it (v1beta1 storage,
 * CAPI up to v1.10), and by the Node's {@code rke.cattle.io/machine} label, the Machine's uid, which Rancher's
 * planner gives every Node it registers. A binding that disagrees, or no Machine for a Node Rancher provisioned, is
 * INVALID: the two clusters do not describe the same thing. Without --machine-context the check is "not checked" for
 * a Node Rancher registered as a Machine, and left out for any other (it has no Machine).
 */
final class MachineCheck implements GateCheck {

    /**
     * The input this check reads: what the management cluster said about the target's Machine (--machine-kubeconfig);
     * absent when no management cluster was given or the Machines were not read.
     */
    static final LaterInputs.Key<MachineEvidence> INPUT = new LaterInputs.Key<>("machine");

    @Override
    public String id() {
        return "machine";
    }

    @Override
    public String title() {
        return "Rancher Machine";
    }

    /**
     * With a management cluster given, always; without, only for a Node Rancher registered as a Machine: a cluster
     * Rancher does not provision has no Machine, and "not checked" there would name a check that had nothing to check.
     */
    @Override
    public boolean appliesTo(GateInput in) {
        NodeInfo node = in.evidence().target();
        return node != null && (in.evidence().input(INPUT) != null || provisionedByRancher(node));
    }

    /** The Node says Rancher provisioning v2 registered it as a Machine (the uid label, or machine-kind Machine). */
    static boolean provisionedByRancher(NodeInfo node) {
        return node.labels().containsKey(MachineInfo.NODE_MACHINE_UID_LABEL)
                || "Machine".equals(node.labels().get(MachineInfo.NODE_MACHINE_KIND_LABEL));
    }

    @Override
    public Check evaluate(GateInput in) {
        NodeInfo node = in.evidence().target();
        MachineEvidence found = in.evidence().input(INPUT);
        Map<String, String> evid = new LinkedHashMap<>();
        if (found == null) {
            return new Check(id(), title(), Verdict.NOT_CHECKED, List.of("no --machine-context or --machine-kubeconfig"
                    + " given: the Rancher Machine of this Node was not checked", node.name() + " was registered by"
                    + " Rancher as a Machine (" + rancherLabels(node) + "): a delete from Rancher goes around this"
                    + " gate; gate and remove it with --machine-context"), evid);
        }
        evid.put("managementCluster", found.source());
        evid.put("cluster", found.namespace() + "/" + found.cluster() + " (from " + found.clusterFrom() + ")");
        if (!found.provisioningClusterFound()) {
            return new Check(id(), title(), Verdict.INVALID, List.of("there is no provisioning.cattle.io/v1 Cluster "
                    + found.namespace() + "/" + found.cluster() + " in the management cluster: wrong cluster name,"
                    + " namespace or management cluster"), evid);
        }
        evid.put("managementId", String.valueOf(found.managementId()));
        List<MachineInfo> mine = found.ofCluster();
        List<String> others = found.naming().stream().filter(m -> !mine.contains(m))
                .map(m -> m.key() + " of cluster " + m.clusterName()).toList();
        if (mine.isEmpty()) {
            if (provisionedByRancher(node)) {
                List<String> reasons = new ArrayList<>(List.of(node.name() + " carries " + rancherLabels(node)
                        + " (Rancher provisioning v2), but no Machine of cluster " + found.cluster() + " in "
                        + found.namespace() + " has status.nodeRef.name=" + node.name()
                        + ": the management cluster and this cluster do not describe the same node"));
                if (!others.isEmpty()) {
                    reasons.add("Machines of other clusters name a Node of this name: " + others);
                }
                return new Check(id(), title(), Verdict.INVALID, reasons, evid);
            }
            evid.put("machine", "Node".equals(node.labels().get(MachineInfo.NODE_MACHINE_KIND_LABEL))
                    ? "none: an imported cluster's node (plan.cattle.io/machine-kind=Node); Rancher keeps no Machine"
                    : "none: no Machine of cluster " + found.cluster() + " names it, and the Node carries no Rancher"
                    + " provisioning label");
            return new Check(id(), title() + ": none", Verdict.PASS, List.of(), evid);
        }
        if (mine.size() > 1) {
            return new Check(id(), title(), Verdict.INVALID, List.of(mine.size() + " Machines of cluster "
                    + found.cluster() + " name Node " + node.name() + ": " + mine.stream().map(MachineInfo::key)
                    .toList() + "; which one is this Node cannot be told"), evid);
        }
        MachineInfo m = mine.get(0);
        String label = title() + " " + m.key() + " (phase " + (m.phase() == null ? "unknown" : m.phase()) + ")";
        evid.put("machine", m.key());
        evid.put("machineUid", m.uid());
        evid.put("phase", String.valueOf(m.phase()));
        evid.put("nodeRef", m.nodeRefName() + (m.nodeRefUid() == null ? " (uid not recorded: Cluster API v1.11+ keeps"
                + " only the name)" : " uid " + m.nodeRefUid()));
        evid.put("infrastructure", m.infrastructureKind() + "." + m.infrastructureGroup());
        List<String> invalid = new ArrayList<>();
        if (!found.cluster().equals(m.clusterName())
                || (m.clusterLabel() != null && !found.cluster().equals(m.clusterLabel()))) {
            invalid.add("Machine " + m.key() + " has spec.clusterName " + m.clusterName() + " and label "
                    + MachineInfo.CLUSTER_NAME_LABEL + "=" + m.clusterLabel() + ", not both " + found.cluster());
        }
        if (m.nodeRefUid() != null && !m.nodeRefUid().equals(node.uid())) {
            invalid.add("Machine " + m.key() + " has status.nodeRef.uid " + m.nodeRefUid() + ", but Node " + node.name()
                    + " has uid " + node.uid() + ": the Machine refers to an earlier Node object of that name");
        }
        String uidLabel = node.labels().get(MachineInfo.NODE_MACHINE_UID_LABEL);
        if (uidLabel != null && !uidLabel.equals(m.uid())) {
            invalid.add("Node " + node.name() + " has label " + MachineInfo.NODE_MACHINE_UID_LABEL + "=" + uidLabel
                    + ", another Machine than " + m.key() + " (uid " + m.uid() + ")");
        }
        String clusterLabel = node.labels().get(MachineInfo.NODE_CLUSTER_NAME_LABEL);
        if (clusterLabel != null && !clusterLabel.equals(found.cluster())) {
            invalid.add("Node " + node.name() + " has label " + MachineInfo.NODE_CLUSTER_NAME_LABEL + "="
                    + clusterLabel + ", not " + found.cluster() + ": this is not the cluster named");
        }
        String nameLabel = node.labels().get(MachineInfo.NODE_MACHINE_NAME_LABEL);
        if (nameLabel != null && !nameLabel.equals(m.name())) {
            invalid.add("Node " + node.name() + " has label " + MachineInfo.NODE_MACHINE_NAME_LABEL + "=" + nameLabel
                    + ", not " + m.name());
        }
        if (!invalid.isEmpty()) {
            return new Check(id(), label, Verdict.INVALID, invalid, evid);
        }
        List<String> holds = new ArrayList<>();
        if (m.nodeRefUid() == null && uidLabel == null) {
            holds.add("nothing binds Node " + node.name() + " to " + m.key() + " but its name: Cluster API records no"
                    + " nodeRef uid (v1.11+) and the Node has no " + MachineInfo.NODE_MACHINE_UID_LABEL + " label");
        }
        if (m.deletionTimestamp() != null) {
            holds.add("Machine " + m.key() + " is already being deleted (since " + m.deletionTimestamp() + "): its"
                    + " deletion started around the gate; find out who started it");
        }
        if (!m.customMachine()) {
            holds.add("Machine " + m.key() + "'s infrastructure is " + m.infrastructureKind() + "."
                    + m.infrastructureGroup() + ", not a custom node (CustomMachine.rke.cattle.io): deleting it also"
                    + " deletes the host through its node driver");
        }
        if (m.bootId() != null && !Objects.equals(m.bootId(), node.systemInfo().bootId())) {
            // Cluster API copies status.nodeInfo from the Node when it reconciles; the Machine admission policy can
            // only compare the verdict's bootID with the Machine's copy, so both must be the boot that was judged
            holds.add("Machine " + m.key() + " records bootID " + m.bootId() + " (status.nodeInfo), the Node reports "
                    + node.systemInfo().bootId() + ": the host booted recently or Cluster API has not caught up;"
                    + " gate again");
        }
        return new Check(id(), label, holds.isEmpty() ? Verdict.PASS : Verdict.HOLD, holds, evid);
    }

    private static String rancherLabels(NodeInfo node) {
        List<String> found = new ArrayList<>();
        for (String key : List.of(MachineInfo.NODE_MACHINE_UID_LABEL, MachineInfo.NODE_MACHINE_KIND_LABEL,
                MachineInfo.NODE_MACHINE_NAME_LABEL)) {
            if (node.labels().containsKey(key)) {
                found.add(key + "=" + node.labels().get(key));
            }
        }
        return String.join(", ", found);
    }
}
