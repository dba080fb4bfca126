package io.nodegate.render;

import io.nodegate.render.output.Structured;
import io.nodegate.render.output.Style;
import io.nodegate.time.Durations;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import io.nodegate.audit.AuditReport;
import io.nodegate.audit.NodeRow;
import io.nodegate.render.output.CheckedFindings;
import io.nodegate.render.output.ListReport;
import io.nodegate.render.output.StreamedJson;
import io.nodegate.detect.Finding;
import tools.jackson.core.JsonGenerator;

import java.util.List;
import java.util.Map;
import java.util.Set;

/** Prints an {@link AuditReport} as a table or as the JSON/YAML tree documented in docs/findings.md. */
public final class AuditRenderer {

    /** IDs are 36 characters; eight tell hosts apart on screen, the JSON keeps them whole. */
    static final int ID_PREFIX = 8;

    private AuditRenderer() {
    }

    /**
     * The default table: fits 120 columns, as kubectl's; {@code -o wide} adds the Ready reason, who cordoned a node
     * and when, kubelet and host IDs.
     */
    public static String table(AuditReport report, Style style) {
        return table(report, style, false);
    }

    public static String table(AuditReport report, Style style, boolean wide) {
        TextTable table = nodeTable(report, wide);
        StringBuilder out = new StringBuilder();
        out.append(FindingsSection.header(style, "source: " + report.source(), "now: " + report.now())).append('\n');
        out.append(table.isEmpty() ? "No nodes.\n" : table.render(style)).append('\n');
        out.append(FindingsSection.block(report.findings(), report.notes(), style));
        return out.toString();
    }

    private static TextTable nodeTable(AuditReport report, boolean wide) {
        TextTable table = wide
                ? new TextTable("NAME", "READY", "LEASE", "HEARTBEAT", "CORDON", "ROLES", "INTERNAL-IP",
                "KUBELET", "BOOT-ID", "SYSTEM-UUID", "AGE")
                : new TextTable("NAME", "READY", "LEASE", "HEARTBEAT", "CORDON", "ROLES", "INTERNAL-IP", "AGE");
        for (NodeRow n : report.nodes()) {
            String ready = n.ready() == null ? "-"
                    : wide ? n.ready() + (n.readyReason() == null ? "" : " (" + n.readyReason() + ")") : n.ready();
            String roles = n.roles().isEmpty() ? "<none>" : String.join(",", n.roles());
            if (wide) {
                table.row(n.name(), ready, Durations.format(n.leaseRenewAge()), Durations.format(n.lastHeartbeatAge()),
                        wideCordon(n), roles, orDash(n.internalIp()), orDash(n.kubeletVersion()),
                        abbreviate(n.bootId()), abbreviate(n.systemUuid()), Durations.format(n.age()));
            } else {
                table.row(n.name(), ready, Durations.format(n.leaseRenewAge()), Durations.format(n.lastHeartbeatAge()),
                        n.cordoned() ? "yes" : "no", roles, orDash(n.internalIp()), Durations.format(n.age()));
            }
        }
        return table;
    }

    /** A field manager's name is cut to this many characters in -o wide (json keeps it whole). */
    static final int MANAGER_WIDTH = 16;

    /**
     * -o wide's CORDON: "no"; who set spec.unschedulable and how long ago ("kubectl 3d", from managedFields); or
     * "yes" when no managedFields entry says who (a kubectl dump hides them).
     */
    static String wideCordon(NodeRow n) {
        if (!n.cordoned()) {
            return "no";
        }
        if (n.cordonedBy() == null) {
            return "yes";
        }
        String manager = n.cordonedBy().isEmpty() ? "?" : n.cordonedBy();
        if (manager.length() > MANAGER_WIDTH) {
            manager = manager.substring(0, MANAGER_WIDTH - 1) + "…";
        }
        return manager + " " + Durations.format(n.cordonAge());
    }

    /**
     * An audit as a command prints it: the Node table (-o name: node/NAME; --no-headers: its rows) and the findings.
     * {@code watch --once} prints this; {@code audit} prints {@link Checked}, which CI and policy UIs also read.
     */
    public interface Output extends ListReport, StreamedJson {

        AuditReport report();

        @Override
        default String text(Style style, boolean wide) {
            return table(report(), style, wide);
        }

        @Override
        default String rows(Style style, boolean wide) {
            return nodeTable(report(), wide).rows(style);
        }

        @Override
        default List<String> names() {
            return report().nodes().stream().map(n -> "node/" + n.name()).toList();
        }

        @Override
        default JsonNode tree() {
            return AuditRenderer.tree(report());
        }

        @Override
        default boolean streamable() {
            return AuditRenderer.streamable(report());
        }

        @Override
        default void writeJson(JsonGenerator g) {
            AuditRenderer.writeJson(report(), g);
        }
    }

    /** An audit alone ({@code watch --once}). */
    public record Plain(AuditReport report) implements Output {
    }

    /** An audit with the checks that ran and the ones skipped: also -o junit and -o policyreport. */
    public record Checked(AuditReport report, Map<String, String> checks, Set<String> skipped)
            implements Output, CheckedFindings {

        @Override
        public AuditReport findings() {
            return report;
        }

        @Override
        public String component() {
            return "audit";
        }
    }

    /** {"now", "source", "nodes": [...], "findings": [...], "notes": [...]}. */
    public static JsonNode tree(AuditReport report) {
        ObjectNode root = head(report);
        ArrayNode nodes = root.putArray("nodes");
        for (NodeRow n : report.nodes()) {
            nodes.add(row(n));
        }
        root.set("findings", Structured.findings(report.findings()));
        root.set("notes", Structured.strings(report.notes()));
        return root;
    }

    /**
     * {@link #tree}'s text, written one Node and one finding at a time: at 20,000 Nodes the tree is several times
     * the 16 MB of its text, and it was built at the end of the run, when the heap is fullest. The same calls on the
     * generator as writing the tree, so the same text ({@code StructuredTest}); only when {@link #streamable}.
     */
    static void writeJson(AuditReport report, JsonGenerator g) {
        g.writeStartObject();
        for (Map.Entry<String, JsonNode> e : head(report).properties()) {
            g.writeName(e.getKey());
            Structured.writeNode(g, e.getValue());
        }
        g.writeName("nodes");
        g.writeStartArray();
        for (NodeRow n : report.nodes()) {
            Structured.writeNode(g, row(n));
        }
        g.writeEndArray();
        g.writeName("findings");
        g.writeStartArray();
        for (Finding f : report.findings()) {
            Structured.writeNode(g, Structured.finding(f));
        }
        g.writeEndArray();
        g.writeName("notes");
        Structured.writeNode(g, Structured.strings(report.notes()));
        g.writeEndObject();
    }

    /**
     * Whether {@link #writeJson} can write this report: a Node row holds only strings, whole numbers, booleans and
     * nulls; a finding's evidence may hold values only the mapper writes (a floating number), and then the whole tree
     * goes through the mapper, as {@link Structured#json(JsonNode)} does.
     */
    static boolean streamable(AuditReport report) {
        for (Finding f : report.findings()) {
            if (!Structured.writable(Structured.finding(f))) {
                return false;
            }
        }
        return true;
    }

    private static ObjectNode head(AuditReport report) {
        ObjectNode root = Structured.object();
        Structured.putTime(root, "now", report.now());
        root.put("source", report.source());
        return root;
    }

    private static ObjectNode row(NodeRow n) {
        ObjectNode o = Structured.object();
        o.put("name", n.name());
        o.put("ready", n.ready());
        o.put("readyReason", n.readyReason());
        Structured.putTime(o, "leaseRenewTime", n.leaseRenewTime());
        Structured.putSeconds(o, "leaseRenewAgeSeconds", n.leaseRenewAge());
        Structured.putTime(o, "lastHeartbeatTime", n.lastHeartbeatTime());
        Structured.putSeconds(o, "lastHeartbeatAgeSeconds", n.lastHeartbeatAge());
        o.put("cordoned", n.cordoned());
        o.put("cordonedBy", n.cordonedBy());
        Structured.putTime(o, "cordonedAt", n.cordonedAt());
        Structured.putSeconds(o, "cordonAgeSeconds", n.cordonAge());
        o.put("cordonReason", n.cordonReason());
        o.set("roles", Structured.strings(n.roles()));
        o.put("internalIP", n.internalIp());
        o.put("kubeletVersion", n.kubeletVersion());
        o.put("bootID", n.bootId());
        o.put("systemUUID", n.systemUuid());
        Structured.putTime(o, "created", n.created());
        Structured.putSeconds(o, "ageSeconds", n.age());
        return o;
    }

    static String abbreviate(String id) {
        if (id == null || id.isEmpty()) {
            return "-";
        }
        return id.length() <= ID_PREFIX ? id : id.substring(0, ID_PREFIX);
    }

    private static String orDash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }
}
