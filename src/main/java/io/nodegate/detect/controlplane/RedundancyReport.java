package io.nodegate.detect.controlplane;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.nodegate.detect.Finding;

import java.util.ArrayList;
import java.util.List;

/**
 * What `nodegate redundancy` found: layers per role, each server node's share, findings and notes. Rendering is
 * {@code io.nodegate.render.RedundancyRenderer}'s job; JSON/YAML follow the component order below.
 */
@JsonPropertyOrder({"source", "serverVersion", "distribution", "layers", "serverNodes", "findings", "notes"})
public record RedundancyReport(String source, String serverVersion, String distribution,
                               List<RoleLayers.Layer> layers, List<RoleLayers.ServerNode> serverNodes,
                               List<Finding> findings, List<String> notes) {

    public RedundancyReport {
        layers = List.copyOf(layers);
        serverNodes = List.copyOf(serverNodes);
        findings = List.copyOf(findings);
        notes = List.copyOf(notes);
    }

    public static RedundancyReport of(String source, String serverVersion, RoleLayers roles,
                                      List<Finding> findings, List<String> extraNotes) {
        List<String> notes = new ArrayList<>(roles.notes());
        notes.addAll(extraNotes);
        return new RedundancyReport(source, serverVersion, roles.distribution(),
                List.of(roles.etcdVoters(), roles.apiservers(), roles.agentFailover(), roles.scheduler(),
                        roles.controllerManager()),
                roles.serverNodes(), findings, notes);
    }
}
