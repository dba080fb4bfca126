package io.nodegate.detect.controlplane;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.nodegate.model.NodeInfo;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The side-by-side comparison: every node any view knows, and what each view says about it. A missing cell
 * means the view has no Node of that name.
 */
@JsonPropertyOrder({"views", "rows"})
public record ViewsTable(List<ViewSummary> views, List<Row> rows) {

    public ViewsTable {
        views = List.copyOf(views);
        rows = List.copyOf(rows);
    }

    @JsonPropertyOrder({"name", "source", "server", "serverVersion", "nodeCount"})
    public record ViewSummary(String name, String source, String server, String serverVersion, int nodeCount) {
    }

    /**
     * One view's record of a node: Ready as the API records it and the object's identity.
     *
     * @param uidShort a prefix of the uid long enough to tell apart the uids of this row (at least 8)
     */
    @JsonPropertyOrder({"ready", "uid", "uidShort", "created"})
    public record Cell(String ready, String uid, String uidShort, String created) {
    }

    /** @param cells view name to cell; views without this node are absent */
    @JsonPropertyOrder({"node", "cells"})
    public record Row(String node, Map<String, Cell> cells) {
        public Row {
            cells = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(cells));
        }
    }

    public static ViewsTable of(List<NamedView> views) {
        List<ViewSummary> summaries = new ArrayList<>();
        TreeSet<String> names = new TreeSet<>();
        // per view, its nodes by name (the first of a name, as ClusterState.node): a scan per row and view
        // would cost 50 million compares for two views of 5,000 nodes
        List<Map<String, NodeInfo>> byName = new ArrayList<>();
        for (NamedView v : views) {
            summaries.add(new ViewSummary(v.name(), v.state().source(), v.state().server(),
                    v.state().serverVersion(), v.state().nodes().size()));
            Map<String, NodeInfo> nodes = new HashMap<>();
            v.state().nodes().forEach(n -> nodes.putIfAbsent(n.name(), n));
            byName.add(nodes);
            names.addAll(nodes.keySet());
        }
        List<Row> rows = new ArrayList<>();
        for (String name : names) {
            List<String> uids = byName.stream().map(nodes -> nodes.get(name)).filter(java.util.Objects::nonNull)
                    .map(NodeInfo::uid).toList();
            int length = distinguishingLength(uids);
            Map<String, Cell> cells = new LinkedHashMap<>();
            for (int i = 0; i < views.size(); i++) {
                NodeInfo n = byName.get(i).get(name);
                if (n != null) {
                    cells.put(views.get(i).name(), cell(n, length));
                }
            }
            rows.add(new Row(name, cells));
        }
        return new ViewsTable(summaries, rows);
    }

    private static Cell cell(NodeInfo n, int uidLength) {
        return new Cell(n.readyStatus() == null ? "none" : n.readyStatus(), n.uid(), shortUid(n.uid(), uidLength),
                n.created() == null ? null : n.created().toString());
    }

    /**
     * The shortest prefix length (at least 8) at which different uids stay different: random v4 uids differ in
     * the first characters, but uids that share a long prefix must not look equal on screen.
     */
    public static int distinguishingLength(List<String> uids) {
        List<String> distinct = uids.stream().filter(java.util.Objects::nonNull).distinct().toList();
        int longest = distinct.stream().mapToInt(String::length).max().orElse(8);
        for (int length = 8; length < longest; length++) {
            final int l = length;
            if (distinct.stream().map(u -> shortUid(u, l)).distinct().count() == distinct.size()) {
                return length;
            }
        }
        return Math.max(8, longest);
    }

    public static String shortUid(String uid, int length) {
        if (uid == null || uid.isEmpty()) {
            return "?";
        }
        return uid.length() <= length ? uid : uid.substring(0, length);
    }
}
