package io.nodegate.render;

import io.nodegate.render.output.Structured;
import io.nodegate.render.output.Style;
import io.nodegate.detect.Finding;
import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.NodeInfo;
import io.nodegate.render.output.ListReport;
import io.nodegate.render.output.TreeReport;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The kubelet-port answers: one row per Node, then (in JSON) the answers in full and the findings. */
public final class KubeletAnswersRenderer {

    private KubeletAnswersRenderer() {
    }

    /** The answers as `probe kubelet` prints them: a row per Node, findings, where this cluster's CA came from. */
    public record Output(List<NodeInfo> nodes, List<KubeletAnswer> answers, List<Finding> findings,
                         List<String> caSources) implements ListReport, TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            return answerTable(nodes, answers, wide).render(style) + "\n" + FindingsSection.block(findings,
                    List.of("this cluster's CA from: " + String.join(", ", caSources)), style);
        }

        @Override
        public String rows(Style style, boolean wide) {
            return answerTable(nodes, answers, wide).rows(style);
        }

        @Override
        public List<String> names() {
            return answers.stream().map(a -> "node/" + a.node()).toList();
        }

        @Override
        public JsonNode tree() {
            return KubeletAnswersRenderer.tree(answers, findings, caSources);
        }
    }

    public static String table(List<NodeInfo> nodes, List<KubeletAnswer> answers, Style style) {
        return answerTable(nodes, answers, false).render(style);
    }

    /**
     * The default: the issuer, which decides the answer (or what happened); {@code wide} adds the SANs and the
     * certificate's subject (a kubelet's SANs list every name and address it serves, and would push the table past
     * 120 columns).
     */
    private static TextTable answerTable(List<NodeInfo> nodes, List<KubeletAnswer> answers, boolean wide) {
        Map<String, NodeInfo> byName = new HashMap<>();
        nodes.forEach(n -> byName.putIfAbsent(n.name(), n));
        TextTable table = wide ? new TextTable("NODE", "READY", "KUBELET PORT", "ANSWER", "ISSUER / SANS", "SUBJECT")
                : new TextTable("NODE", "READY", "KUBELET PORT", "ANSWER", "ISSUER");
        for (KubeletAnswer a : answers) {
            NodeInfo n = byName.get(a.node());
            String ready = n == null ? "-" : String.valueOf(n.readyStatus());
            String issuer = a.issuer() == null ? a.detail()
                    : a.issuer() + (a.sans().isEmpty() || !wide ? "" : "  " + String.join(",", a.sans()));
            if (wide) {
                table.row(a.node(), ready, a.target(), a.outcome().text(), issuer,
                        a.subject() == null ? "-" : a.subject());
            } else {
                table.row(a.node(), ready, a.target(), a.outcome().text(), issuer);
            }
        }
        return table;
    }

    public static JsonNode tree(List<KubeletAnswer> answers, List<Finding> findings, List<String> caSources) {
        ObjectNode root = Structured.object();
        root.set("caSources", Structured.strings(caSources));
        ArrayNode list = root.putArray("answers");
        for (KubeletAnswer a : answers) {
            ObjectNode o = list.addObject();
            o.put("node", a.node());
            o.put("address", a.address());
            o.put("port", a.port());
            o.put("outcome", a.outcome().name());
            o.put("issuer", a.issuer());
            o.put("subject", a.subject());
            o.set("subjectAltNames", Structured.strings(new ArrayList<>(a.sans())));
            o.put("detail", a.detail());
        }
        root.set("findings", Structured.findings(findings));
        return root;
    }
}
