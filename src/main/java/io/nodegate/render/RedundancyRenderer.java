package io.nodegate.render;

import io.nodegate.render.output.Structured;
import io.nodegate.render.output.Style;
import java.util.ArrayList;
import java.util.List;

import io.nodegate.detect.controlplane.RedundancyReport;
import io.nodegate.render.output.ListReport;
import io.nodegate.render.output.TreeReport;
import tools.jackson.databind.JsonNode;
import io.nodegate.detect.controlplane.RoleLayers;

/** Prints a {@link RedundancyReport}: layers per role, what each server node runs, then findings and notes. */
public final class RedundancyRenderer {

    private RedundancyRenderer() {
    }

    /** The layers as `redundancy` prints them: -o name and --no-headers list the server nodes. */
    public record Output(RedundancyReport report) implements ListReport, TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            return table(report, style, wide);
        }

        @Override
        public String rows(Style style, boolean wide) {
            return serverTable(report, wide).rows(style);
        }

        @Override
        public List<String> names() {
            return report.serverNodes().stream().map(n -> "node/" + n.name()).toList();
        }

        @Override
        public JsonNode tree() {
            return Structured.tree(report);
        }
    }

    public static String table(RedundancyReport report, Style style) {
        return table(report, style, false);
    }

    /** The default fits 120 columns; {@code wide} adds where each count came from, and each server's taints. */
    public static String table(RedundancyReport report, Style style, boolean wide) {
        StringBuilder out = new StringBuilder();
        out.append(style.dim("Redundancy per role")).append('\n');
        List<String> where = new ArrayList<>();
        if (report.source() != null) {
            where.add("source: " + report.source());
        }
        if (report.serverVersion() != null) {
            where.add("version: " + report.serverVersion());
        }
        if (!where.isEmpty()) {
            out.append(FindingsSection.header(style, where.toArray(String[]::new)));
        }
        out.append('\n');
        TextTable layers = wide ? new TextTable("ROLE", "LAYERS", "TOLERATES", "MEMBERS", "LEADER", "COUNTED FROM")
                : new TextTable("ROLE", "LAYERS", "TOLERATES", "MEMBERS", "LEADER");
        for (RoleLayers.Layer l : report.layers()) {
            List<String> cells = new ArrayList<>(List.of(l.role(), l.known() ? String.valueOf(l.count()) : "?",
                    l.tolerates() == null ? "?" : l.tolerates() + " failure" + (l.tolerates() == 1 ? "" : "s"),
                    l.members().isEmpty() ? "-" : String.join(",", l.members()),
                    l.holder() == null ? "-" : l.holder()));
            if (wide) {
                cells.add(l.basis());
            }
            layers.row(cells.toArray(String[]::new));
        }
        out.append(layers.render(style)).append('\n');
        TextTable nodes = serverTable(report, wide);
        out.append(nodes.render(style)).append('\n');
        out.append(FindingsSection.block(report.findings(), report.notes(), style));
        return out.toString();
    }

    private static TextTable serverTable(RedundancyReport report, boolean wide) {
        TextTable nodes = wide ? new TextTable("SERVER NODE", "ROLES", "ETCD", "APISERVER", "SCHEDULER",
                "CONTROLLER-MGR", "DISABLED", "TAINTS", "RUNNING PODS")
                : new TextTable("SERVER NODE", "ROLES", "ETCD", "APISERVER", "SCHEDULER", "CONTROLLER-MGR",
                "RUNNING PODS");
        for (RoleLayers.ServerNode n : report.serverNodes()) {
            List<String> cells = new ArrayList<>(List.of(n.name(),
                    n.roles().isEmpty() ? "<none>" : String.join(",", n.roles()),
                    n.etcdVoter() ? "voter" : "-", n.apiserver() ? "yes" : "-",
                    n.schedulerCandidate() ? "candidate" : "-", n.controllerManagerCandidate() ? "candidate" : "-"));
            if (wide) {
                cells.add(n.disabled().isEmpty() ? "-" : String.join(",", n.disabled()));
                cells.add(n.taints().isEmpty() ? "-" : String.join(",", n.taints()));
            }
            cells.add(n.runningPods() == null ? "?" : String.valueOf(n.runningPods()));
            nodes.row(cells.toArray(String[]::new));
        }
        return nodes;
    }
}
