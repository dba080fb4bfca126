package io.nodegate.render.controlplane;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.detect.controlplane.RoleLayers;

import java.util.ArrayList;
import java.util.List;

/** What `nodegate redundancy` prints: layers per role, each server node's share, findings and notes. */
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

    public boolean hasWarningOrWorse() {
        return findings.stream().anyMatch(f -> f.severity().atLeast(Severity.WARNING));
    }

    public String table() {
        StringBuilder out = new StringBuilder();
        out.append("Redundancy per role");
        if (source != null) {
            out.append(" (").append(source);
            if (serverVersion != null) {
                out.append(", ").append(serverVersion);
            }
            out.append(')');
        }
        out.append("\n\n");
        TextTable layerTable = new TextTable("ROLE", "LAYERS", "TOLERATES", "MEMBERS", "LEADER", "COUNTED FROM");
        for (RoleLayers.Layer l : layers) {
            layerTable.row(l.role(), l.known() ? String.valueOf(l.count()) : "?",
                    l.tolerates() == null ? "?" : l.tolerates() + " failure" + (l.tolerates() == 1 ? "" : "s"),
                    l.members().isEmpty() ? "-" : String.join(",", l.members()),
                    l.holder() == null ? "-" : l.holder(), l.basis());
        }
        out.append(layerTable.render()).append('\n');
        TextTable nodes = new TextTable("SERVER NODE", "ROLES", "ETCD", "APISERVER", "SCHEDULER",
                "CONTROLLER-MGR", "DISABLED", "TAINTS", "RUNNING PODS");
        for (RoleLayers.ServerNode n : serverNodes) {
            nodes.row(n.name(), n.roles().isEmpty() ? "<none>" : String.join(",", n.roles()),
                    n.etcdVoter() ? "voter" : "-", n.apiserver() ? "yes" : "-",
                    n.schedulerCandidate() ? "candidate" : "-", n.controllerManagerCandidate() ? "candidate" : "-",
                    n.disabled().isEmpty() ? "-" : String.join(",", n.disabled()),
                    n.taints().isEmpty() ? "-" : String.join(",", n.taints()),
                    n.runningPods() == null ? "?" : String.valueOf(n.runningPods()));
        }
        out.append(nodes.render());
        out.append(FindingsText.render(findings, notes));
        return out.toString();
    }
}
