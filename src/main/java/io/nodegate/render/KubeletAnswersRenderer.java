package io.nodegate.render;

import io.nodegate.detect.Finding;
import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.NodeInfo;
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

    public static String table(List<NodeInfo> nodes, List<KubeletAnswer> answers, Style style) {
        Map<String, NodeInfo> byName = new HashMap<>();
        nodes.forEach(n -> byName.putIfAbsent(n.name(), n));
        StringBuilder b = new StringBuilder();
        b.append(String.format("%-20s %-8s %-22s %-30s %s%n", "NODE", "READY", "KUBELET PORT", "ANSWER", "ISSUER / SANS"));
        for (KubeletAnswer a : answers) {
            NodeInfo n = byName.get(a.node());
            String ready = n == null ? "-" : String.valueOf(n.readyStatus());
            String issuer = a.issuer() == null ? a.detail() : a.issuer() + (a.sans().isEmpty() ? "" : "  " + String.join(",", a.sans()));
            b.append(String.format("%-20s %-8s %-22s %-30s %s%n", a.node(), ready, a.target(), a.outcome().text(), issuer));
        }
        return b.toString();
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
