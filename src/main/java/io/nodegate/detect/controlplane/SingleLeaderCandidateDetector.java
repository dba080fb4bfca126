package io.nodegate.detect.controlplane;

import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * NG212 single-scheduler-or-controller-manager-candidate: at most one control-plane node may run
 * kube-scheduler or kube-controller-manager, because the others start with --disable-scheduler /
 * --disable-controller-manager. Leader election has nobody to fail over to: when that node stops, pods stop
 * being scheduled, or controllers (node lifecycle, ReplicaSets, GC) stop.
 */
public final class SingleLeaderCandidateDetector extends RoleLayersDetector {

    public SingleLeaderCandidateDetector() {
        super(FindingCode.NG212);
    }

    @Override
    public List<Finding> detect(RoleLayers layers) {
        if (layers.serverNodes().isEmpty()) {
            return List.of();
        }
        List<Finding> findings = new ArrayList<>();
        check(layers, layers.scheduler(), "pods stop being scheduled", findings);
        check(layers, layers.controllerManager(),
                "controllers stop (node lifecycle, ReplicaSets, garbage collection, endpoints)", findings);
        return findings;
    }

    private void check(RoleLayers layers, RoleLayers.Layer layer, String consequence, List<Finding> out) {
        if (!layer.known() || layer.count() > 1) {
            return;
        }
        List<String> disabledOn = layers.serverNodes().stream()
                .filter(n -> !layer.members().contains(n.name())).map(RoleLayers.ServerNode::name).toList();
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("role", layer.role());
        evidence.put("candidates", layer.members());
        evidence.put("notCandidates", disabledOn);
        evidence.put("leader", layer.holder());
        evidence.put("basis", layer.basis());
        String message;
        if (layer.count() == 0) {
            message = "No control-plane Node can run " + layer.role() + " (" + String.join(", ", disabledOn)
                    + " disable it)" + (layer.holder() == null ? "" : "; the Lease is held by " + layer.holder()
                    + ", which is not a candidate Node") + ".";
        } else {
            String only = layer.members().get(0);
            message = "Only " + only + " can run " + layer.role()
                    + (disabledOn.isEmpty() ? "" : " (" + String.join(", ", disabledOn) + " run without it)")
                    + (layer.holder() == null ? "" : "; current leader: " + layer.holder())
                    + ". Leader election has no one to fail over to: if " + only + " stops, " + consequence + ".";
        }
        out.add(finding(Severity.WARNING, layer.members(), message, evidence,
                "Let a second server run " + layer.role() + " (remove --disable-"
                        + (layer.role().equals("kube-scheduler") ? "scheduler" : "controller-manager")
                        + " from its config and restart it), or accept and document the single point of failure."));
    }
}
