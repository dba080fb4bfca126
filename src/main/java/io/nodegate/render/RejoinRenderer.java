package io.nodegate.render;

import io.nodegate.render.output.Style;
import io.nodegate.lifecycle.evidence.Json;
import io.nodegate.lifecycle.rejoin.RejoinReader;
import io.nodegate.detect.rejoin.RejoinRisk;
import io.nodegate.render.output.TextReport;
import io.nodegate.render.output.TreeReport;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/** `nodegate rejoin-risk`: one block per host, its answer, then every way in with its state and what closes it. */
public final class RejoinRenderer {

    private RejoinRenderer() {
    }

    /** The report as printed; {@code asked} tells "every removed host" from hosts named on the line. */
    public record Output(RejoinReader.Report report, boolean asked) implements TextReport, TreeReport {

        @Override
        public String text(Style style, boolean wide) {
            StringBuilder w = new StringBuilder();
            if (report.hosts().isEmpty()) {
                w.append("rejoin-risk: no removed host in the tombstone ledger (").append(report.ledgerNamespace())
                        .append("); read ").append(report.readAt()).append('\n');
                return w.toString();
            }
            w.append("rejoin-risk: ").append(report.hosts().size()).append(asked ? " host(s) asked" : " removed host(s)"
                    + " in the tombstone ledger (" + report.ledgerNamespace() + ")").append(", read ")
                    .append(report.readAt()).append('\n');
            for (RejoinRisk.HostAnswer h : report.hosts()) {
                // within 120 columns, as every table line: broken between words onto indented lines
                List<String> head = FindingsSection.fit(h.node() + " (" + h.subject() + "): can come back: "
                        + h.summary(), "", "    ");
                w.append('\n').append(style.bold(h.node())).append(head.get(0).substring(h.node().length())).append('\n');
                head.stream().skip(1).forEach(l -> w.append(l).append('\n'));
                for (RejoinRisk.JoinPath p : h.paths()) {
                    String prefix = String.format("  %-7s %-20s ", p.state().label(), p.id());
                    String indent = " ".repeat(prefix.length());
                    FindingsSection.fit(p.detail(), prefix, indent).forEach(l -> w.append(l).append('\n'));
                    if (p.state() == RejoinRisk.State.OPEN && p.closes() != null) {
                        FindingsSection.fit("close: " + p.closes(), indent, indent + "       ")
                                .forEach(l -> w.append(l).append('\n'));
                    }
                }
                h.finding().ifPresent(f -> w.append("  ").append(f.code()).append(' ').append(f.name()).append('\n'));
            }
            RejoinRisk.Answer worst = report.worst();
            w.append('\n').append("answer: ").append(worst.label()).append(switch (worst) {
                case NO -> " (every host asked has no way back in)";
                case YES -> " (a host can come back: exit 5)";
                case UNKNOWN -> " (something could not be read: exit 3; each host's answer above says what was proven)";
            }).append('\n');
            return w.toString();
        }

        @Override
        public JsonNode tree() {
            ObjectNode root = Json.MAPPER.createObjectNode();
            root.put("kind", "nodegate.io/rejoin-risk");
            root.put("readAt", String.valueOf(report.readAt()));
            root.put("ledgerNamespace", report.ledgerNamespace());
            root.put("answer", report.worst().label());
            ArrayNode hosts = root.putArray("hosts");
            for (RejoinRisk.HostAnswer h : report.hosts()) {
                ObjectNode o = hosts.addObject();
                o.put("node", h.node());
                o.put("subject", h.subject());
                o.put("canComeBack", h.canComeBack().label());
                o.put("summary", h.summary());
                ArrayNode paths = o.putArray("paths");
                for (RejoinRisk.JoinPath p : h.paths()) {
                    ObjectNode po = paths.addObject();
                    po.put("id", p.id());
                    po.put("state", p.state().label());
                    po.put("detail", p.detail());
                    if (p.closes() != null) {
                        po.put("closes", p.closes());
                    }
                }
                ArrayNode unread = o.putArray("unread");
                h.unread().forEach(unread::add);
                h.finding().ifPresent(f -> o.set("finding", Json.MAPPER.valueToTree(f)));
            }
            return root;
        }
    }
}
