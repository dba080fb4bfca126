package io.nodegate.render;

import io.nodegate.render.output.Structured;
import io.nodegate.render.output.Style;
import io.nodegate.model.Taint;
import io.nodegate.model.BmcBinding;
import io.nodegate.model.bmc.BmcReading;
import io.nodegate.model.BmcReport;
import io.nodegate.model.bmc.NodePower;
import io.nodegate.time.Durations;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import io.nodegate.render.output.ListReport;
import io.nodegate.render.output.TreeReport;

import java.util.List;
import java.util.stream.Collectors;

/** Prints a {@link BmcReport}: the verdict table, where each verdict came from, unbound systems and failed BMCs. */
public final class BmcRenderer {

    private BmcRenderer() {
    }

    /**
     * The table: fits 120 columns, taints by name only ({@code gpu,unschedulable,unreachable}); {@code wide} prints
     * each taint with its effect, as the API has it.
     */
    public static String table(BmcReport report, Style style, boolean wide) {
        StringBuilder out = new StringBuilder();
        long failed = report.bmcs().stream().filter(b -> !b.ok()).count();
        out.append(FindingsSection.header(style, "source: " + report.source(), "now: " + report.now(), "BMCs: "
                + report.bmcs().size() + " asked" + (failed == 0 ? "" : ", " + failed + " unreadable"))).append('\n');
        TextTable table = nodeTable(report, wide);
        out.append(table.isEmpty() ? "No nodes.\n" : table.render(style));
        if (!report.rows().isEmpty()) {
            out.append("\nSources:\n");
            report.rows().forEach(r -> FindingsSection.wrap(r.node() + ": " + r.power().source(), "  ", "      ")
                    .forEach(l -> out.append(l).append('\n')));
        }
        if (!report.duplicates().isEmpty()) {
            out.append("\nUUIDs reported by more than one system:\n");
            report.duplicates().forEach(d -> FindingsSection.wrap(d.describe(), "  ", "      ")
                    .forEach(l -> out.append(l).append('\n')));
        }
        List<BmcBinding.Unbound> unbound = report.unbound().stream().filter(u -> report.duplicates().stream()
                .noneMatch(d -> d.systems().contains(u.system()))).toList();
        if (!unbound.isEmpty()) {
            out.append("\nSystems bound to no Node:\n");
            unbound.forEach(u -> out.append("  ").append(u.system().source()).append(" (PowerState ")
                    .append(u.system().powerState() == null ? "absent" : u.system().powerState()).append("): ")
                    .append(u.why()).append('\n'));
        }
        List<BmcReading> failedBmcs = report.bmcs().stream().filter(b -> !b.ok()).toList();
        if (!failedBmcs.isEmpty()) {
            out.append("\nUnreadable BMCs (never evidence either way):\n");
            failedBmcs.forEach(b -> out.append("  ").append(b.bmc()).append(": ").append(b.error()).append('\n'));
        }
        return out.toString();
    }

    /**
     * One row per Node; {@code wide} adds the BMC's address and the SMBIOS UUID the binding rests on (the table
     * names the BMC in its Sources section, so that the rows fit 120 columns).
     */
    private static TextTable nodeTable(BmcReport report, boolean wide) {
        TextTable table = wide ? new TextTable("NODE", "READY", "LEASE", "TAINTS", "POWER", "POWERED-OFF-AT", "BMC",
                "UUID") : new TextTable("NODE", "READY", "LEASE", "TAINTS", "POWER", "POWERED-OFF-AT");
        for (BmcReport.Row r : report.rows()) {
            NodePower p = r.power();
            List<String> cells = new java.util.ArrayList<>(List.of(r.node(), r.ready() == null ? "-" : r.ready(),
                    Durations.format(r.leaseAge()), wide ? taints(r.taints()) : taintNames(r.taints()),
                    p.verdict().label(), p.powerOffTime() == null ? "-" : p.powerOffTime().toString()));
            if (wide) {
                cells.add(p.bmc() == null ? "-" : p.bmc());
                cells.add(p.system() == null || p.system().uuid() == null ? "-" : p.system().uuid());
            }
            table.row(cells.toArray(String[]::new));
        }
        return table;
    }

    /** `nodegate bmc`'s report for the output registry: a list of Nodes (-o name: node/NAME). */
    public record Output(BmcReport report) implements ListReport, TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            return table(report, style, wide);
        }

        @Override
        public String rows(Style style, boolean wide) {
            return nodeTable(report, wide).rows(style);
        }

        @Override
        public List<String> names() {
            return report.rows().stream().map(r -> "node/" + r.node()).toList();
        }

        @Override
        public JsonNode tree() {
            return BmcRenderer.tree(report);
        }
    }

    /** Taint names, the key's last part, each once: "nvidia.com/gpu", "node.kubernetes.io/unreachable" -> "gpu,unreachable". */
    static String taintNames(List<Taint> taints) {
        if (taints.isEmpty()) {
            return "<none>";
        }
        return taints.stream().map(t -> t.key().substring(t.key().lastIndexOf('/') + 1)).distinct()
                .collect(Collectors.joining(","));
    }

    /** Taints without the node.kubernetes.io/ prefix the controllers' own carry ("unreachable:NoExecute"). */
    static String taints(List<Taint> taints) {
        if (taints.isEmpty()) {
            return "<none>";
        }
        return taints.stream().map(t -> t.toString().replaceFirst("^node\\.kubernetes\\.io/", ""))
                .collect(Collectors.joining(","));
    }

    /** {"now", "source", "nodes": [...], "unbound": [...], "bmcs": [...]}. */
    public static JsonNode tree(BmcReport report) {
        ObjectNode root = Structured.object();
        Structured.putTime(root, "now", report.now());
        root.put("source", report.source());
        ArrayNode nodes = root.putArray("nodes");
        for (BmcReport.Row r : report.rows()) {
            NodePower p = r.power();
            ObjectNode o = nodes.addObject();
            o.put("name", r.node());
            o.put("ready", r.ready());
            Structured.putTime(o, "leaseRenewTime", r.leaseRenewTime());
            Structured.putSeconds(o, "leaseRenewAgeSeconds", r.leaseAge());
            o.set("taints", Structured.strings(r.taints().stream().map(Taint::toString).toList()));
            o.put("power", p.verdict().label());
            o.put("bmc", p.bmc());
            o.put("system", p.system() == null ? null : p.system().path());
            o.put("uuid", p.system() == null ? null : p.system().uuid());
            o.put("powerState", p.system() == null ? null : p.system().powerState());
            Structured.putTime(o, "poweredOffAt", p.powerOffTime());
            o.put("powerOffEntry", p.powerOff() == null ? null : p.powerOff().entry());
            o.put("source", p.source());
        }
        ArrayNode unbound = root.putArray("unbound");
        for (BmcBinding.Unbound u : report.unbound()) {
            ObjectNode o = unbound.addObject();
            o.put("bmc", u.system().bmc());
            o.put("system", u.system().path());
            o.put("uuid", u.system().uuid());
            o.put("powerState", u.system().powerState());
            o.put("why", u.why());
        }
        ArrayNode duplicates = root.putArray("duplicateUuids");
        for (BmcBinding.DuplicateUuid d : report.duplicates()) {
            ObjectNode o = duplicates.addObject();
            o.put("uuid", d.uuid());
            ArrayNode systems = o.putArray("systems");
            d.systems().forEach(s -> systems.addObject().put("bmc", s.bmc()).put("system", s.path())
                    .put("powerState", s.powerState()));
            o.set("nodes", Structured.strings(d.nodes()));
        }
        ArrayNode bmcs = root.putArray("bmcs");
        for (BmcReading b : report.bmcs()) {
            ObjectNode o = bmcs.addObject();
            o.put("bmc", b.bmc());
            Structured.putTime(o, "readAt", b.readAt());
            o.put("ok", b.ok());
            o.put("error", b.error());
            o.put("systems", b.systems().size());
            Structured.putSeconds(o, "clockOffsetSeconds", b.clockOffset());
        }
        return root;
    }
}
