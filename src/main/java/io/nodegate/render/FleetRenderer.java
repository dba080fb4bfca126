package io.nodegate.render;

import io.nodegate.detect.fleet.FleetReport;
import io.nodegate.detect.fleet.Host;
import io.nodegate.detect.fleet.HostAppearance;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Prints a {@link FleetReport}: one line per cluster, then a row per host seen as more than one Node with a column
 * per cluster ("name Ready age", like `views`), then findings and notes.
 */
public final class FleetRenderer {

    private FleetRenderer() {
    }

    public static String table(FleetReport report, Style style) {
        StringBuilder out = new StringBuilder();
        TextTable summary = new TextTable("CLUSTER", "NODES", "TOMBSTONES", "SOURCE");
        for (FleetReport.ClusterSummary c : report.clusters()) {
            summary.row(c.name(), c.read() ? String.valueOf(c.nodeCount()) : "?",
                    c.tombstones() != null ? String.valueOf(c.tombstones()) : c.unreadable() != null ? "?" : "-",
                    (c.read() ? "" : "NOT READ: ") + (c.source() == null ? "-" : c.source()));
        }
        out.append(summary.render(style));
        // what could not be read is said, never shown as "no Node there"
        for (FleetReport.ClusterSummary c : report.clusters()) {
            if (c.unreadable() != null) {
                out.append(style.bold("! " + c.name() + (c.read() ? " (tombstones)" : "") + " could not be read: "
                        + c.unreadable())).append('\n');
            }
        }
        out.append('\n');
        Map<String, Instant> clocks = new java.util.HashMap<>();
        report.clusters().forEach(c -> clocks.put(c.name(), c.now()));
        if (report.hosts().isEmpty()) {
            out.append("No host appears as more than one Node across these clusters.\n\n");
        } else {
            List<String> header = new ArrayList<>();
            header.add("HOST");
            header.add("MATCH");
            report.clusters().forEach(c -> header.add(c.name()));
            TextTable hosts = new TextTable(header.toArray(String[]::new));
            for (Host h : report.hosts()) {
                List<String> cells = new ArrayList<>();
                cells.add(shortId(h.displayId()));
                cells.add(h.match() == null ? "-" : h.match().equals(Host.BOTH) ? "both" : h.match());
                for (FleetReport.ClusterSummary c : report.clusters()) {
                    List<String> here = h.appearances().stream().filter(a -> a.cluster().equals(c.name()))
                            .map(a -> cell(a, clocks.get(c.name()))).toList();
                    cells.add(!c.read() ? "?" : here.isEmpty() ? "-" : String.join(", ", here));
                }
                hosts.row(cells.toArray(String[]::new));
            }
            out.append(hosts.render(style));
            boolean unread = report.clusters().stream().anyMatch(c -> !c.read());
            out.append(style.dim("(HOST: systemUUID, else machineID, first 8 characters; cell: Node name, Ready, "
                    + "age; - = no Node of this host in that cluster" + (unread ? "; ? = cluster not read" : "") + ")"))
                    .append("\n\n");
        }
        out.append(FindingsSection.block(report.findings(), report.notes(), style));
        return out.toString();
    }

    private static String cell(HostAppearance a, Instant now) {
        String ready = a.ready() == null ? "NoReady" : switch (a.ready()) {
            case "True" -> "Ready";
            case "False" -> "NotReady";
            default -> a.ready();
        };
        String age = now == null || a.created() == null ? "?" : io.nodegate.time.Durations.format(Duration.between(a.created(), now));
        return a.node() + " " + ready + " " + age;
    }

    private static String shortId(String id) {
        return id.length() > 8 ? id.substring(0, 8) : id;
    }
}
