package io.nodegate.render;

import io.nodegate.detect.controlplane.RedundancyReport;
import io.nodegate.detect.controlplane.RoleLayers;

/** Prints a {@link RedundancyReport}: layers per role, what each server node runs, then findings and notes. */
public final class RedundancyRenderer {

    private RedundancyRenderer() {
    }

    public static String table(RedundancyReport report, Style style) {
        StringBuilder out = new StringBuilder();
        String title = "Redundancy per role";
        if (report.source() != null) {
            title += " (" + report.source() + (report.serverVersion() == null ? "" : ", " + report.serverVersion())
                    + ")";
        }
        out.append(style.dim(title)).append("\n\n");
        TextTable layers = new TextTable("ROLE", "LAYERS", "TOLERATES", "MEMBERS", "LEADER", "COUNTED FROM");
        for (RoleLayers.Layer l : report.layers()) {
            layers.row(l.role(), l.known() ? String.valueOf(l.count()) : "?",
                    l.tolerates() == null ? "?" : l.tolerates() + " failure" + (l.tolerates() == 1 ? "" : "s"),
                    l.members().isEmpty() ? "-" : String.join(",", l.members()),
                    l.holder() == null ? "-" : l.holder(), l.basis());
        }
        out.append(layers.render(style)).append('\n');
        TextTable nodes = new TextTable("SERVER NODE", "ROLES", "ETCD", "APISERVER", "SCHEDULER",
                "CONTROLLER-MGR", "DISABLED", "TAINTS", "RUNNING PODS");
        for (RoleLayers.ServerNode n : report.serverNodes()) {
            nodes.row(n.name(), n.roles().isEmpty() ? "<none>" : String.join(",", n.roles()),
                    n.etcdVoter() ? "voter" : "-", n.apiserver() ? "yes" : "-",
                    n.schedulerCandidate() ? "candidate" : "-", n.controllerManagerCandidate() ? "candidate" : "-",
                    n.disabled().isEmpty() ? "-" : String.join(",", n.disabled()),
                    n.taints().isEmpty() ? "-" : String.join(",", n.taints()),
                    n.runningPods() == null ? "?" : String.valueOf(n.runningPods()));
        }
        out.append(nodes.render(style)).append('\n');
        out.append(FindingsSection.block(report.findings(), report.notes(), style));
        return out.toString();
    }
}
