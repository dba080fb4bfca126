package io.nodegate.render;

import io.nodegate.render.output.Structured;
import io.nodegate.render.output.Style;
import io.nodegate.detect.fleet.FleetReport;
import io.nodegate.detect.fleet.Host;
import io.nodegate.detect.fleet.HostAppearance;
import io.nodegate.render.output.ListReport;
import io.nodegate.render.output.TreeReport;
import io.nodegate.time.Durations;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Prints a {@link FleetReport}: one line per cluster, then a row per host seen as more than one Node with a column
 * per cluster ("name Ready age", like `views`), then findings and notes. The default fits 120 columns on the
 * examples; -o wide adds where each cluster was read (server and source), the host's full IDs and each Node's
 * InternalIP.
 */
public final class FleetRenderer {

    private FleetRenderer() {
    }

    /** The fleet as `fleet` prints it: -o name lists the hosts seen as more than one Node (host/ID). */
    public record Output(FleetReport report) implements ListReport, TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            return table(report, style, wide);
        }

        @Override
        public String rows(Style style, boolean wide) {
            return hostTable(report, wide).rows(style);
        }

        /** host/ID: the systemUUID, else the machineID, whole (a host is no Kubernetes object; its ID names it). */
        @Override
        public List<String> names() {
            return report.hosts().stream().map(h -> "host/" + h.displayId()).toList();
        }

        @Override
        public JsonNode tree() {
            return Structured.tree(report);
        }
    }

    public static String table(FleetReport report, Style style) {
        return table(report, style, false);
    }

    public static String table(FleetReport report, Style style, boolean wide) {
        StringBuilder out = new StringBuilder();
        TextTable summary = wide ? new TextTable("CLUSTER", "NODES", "TOMBSTONES", "AS OF", "SERVER", "SOURCE")
                : new TextTable("CLUSTER", "NODES", "TOMBSTONES", "AS OF");
        for (FleetReport.ClusterSummary c : report.clusters()) {
            List<String> cells = new ArrayList<>(List.of(c.name(), c.read() ? String.valueOf(c.nodeCount()) : "?",
                    c.tombstones() != null ? String.valueOf(c.tombstones()) : c.unreadable() != null ? "?" : "-",
                    !c.read() ? "NOT READ" : c.now() == null ? "-"
                            : String.valueOf(c.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS))));
            if (wide) {
                cells.add(c.server() == null ? "-" : c.server());
                cells.add(c.source() == null ? "-" : c.source());
            }
            summary.row(cells.toArray(String[]::new));
        }
        out.append(summary.render(style));
        // what could not be read is said, never shown as "no Node there"
        for (FleetReport.ClusterSummary c : report.clusters()) {
            if (c.unreadable() != null) {
                out.append(style.bold("! " + c.name() + (c.read() ? " (tombstones)" : " (" + c.source() + ")")
                        + " could not be read: " + c.unreadable())).append('\n');
            }
        }
        out.append('\n');
        if (report.hosts().isEmpty()) {
            out.append("No host appears as more than one Node across these clusters.\n\n");
        } else {
            out.append(hostTable(report, wide).render(style));
            boolean unread = report.clusters().stream().anyMatch(c -> !c.read());
            out.append(style.dim((wide ? "(cell: Node name, Ready, age, InternalIP"
                    : "(HOST: systemUUID, else machineID, first 8 characters; cell: Node name, Ready, age")
                    + "; - = none there" + (unread ? "; ? = not read" : "") + ")"))
                    .append("\n\n");
        }
        out.append(FindingsSection.block(report.findings(), report.notes(), style));
        return out.toString();
    }

    private static TextTable hostTable(FleetReport report, boolean wide) {
        Map<String, Instant> clocks = new java.util.HashMap<>();
        report.clusters().forEach(c -> clocks.put(c.name(), c.now()));
        List<String> header = new ArrayList<>(wide ? List.of("SYSTEM-UUID", "MACHINE-ID", "MATCH")
                : List.of("HOST", "MATCH"));
        report.clusters().forEach(c -> header.add(c.name()));
        TextTable hosts = new TextTable(header.toArray(String[]::new));
        for (Host h : report.hosts()) {
            List<String> cells = new ArrayList<>();
            if (wide) {
                cells.add(h.systemUuids().isEmpty() ? "-" : String.join(",", h.systemUuids()));
                cells.add(h.machineIds().isEmpty() ? "-" : String.join(",", h.machineIds()));
            } else {
                cells.add(shortId(h.displayId()));
            }
            cells.add(h.match() == null ? "-" : h.match().equals(Host.BOTH) ? "both" : h.match());
            for (FleetReport.ClusterSummary c : report.clusters()) {
                List<String> here = h.appearances().stream().filter(a -> a.cluster().equals(c.name()))
                        .map(a -> cell(a, clocks.get(c.name()), wide)).toList();
                cells.add(!c.read() ? "?" : here.isEmpty() ? "-" : String.join(", ", here));
            }
            hosts.row(cells.toArray(String[]::new));
        }
        return hosts;
    }

    private static String cell(HostAppearance a, Instant now, boolean wide) {
        String ready = a.ready() == null ? "NoReady" : switch (a.ready()) {
            case "True" -> "Ready";
            case "False" -> "NotReady";
            default -> a.ready();
        };
        String age = now == null || a.created() == null ? "?"
                : Durations.format(Duration.between(a.created(), now));
        return a.node() + " " + ready + " " + age + (wide ? " " + (a.internalIp() == null ? "-" : a.internalIp()) : "");
    }

    private static String shortId(String id) {
        return id.length() > 8 ? id.substring(0, 8) : id;
    }
}
