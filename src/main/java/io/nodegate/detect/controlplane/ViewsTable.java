package io.nodegate.detect.controlplane;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.nodegate.model.NodeInfo;

import java.util.ArrayList;
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

    /** One view's record of a node: Ready as the API records it and the object's identity. */
    @JsonPropertyOrder({"ready", "uid", "created"})
    public record Cell(String ready, String uid, String created) {
        public String uidShort() {
            return shortUid(uid);
        }
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
        for (NamedView v : views) {
            summaries.add(new ViewSummary(v.name(), v.state().source(), v.state().server(),
                    v.state().serverVersion(), v.state().nodes().size()));
            v.state().nodes().forEach(n -> names.add(n.name()));
        }
        List<Row> rows = new ArrayList<>();
        for (String name : names) {
            Map<String, Cell> cells = new LinkedHashMap<>();
            for (NamedView v : views) {
                v.state().node(name).ifPresent(n -> cells.put(v.name(), cell(n)));
            }
            rows.add(new Row(name, cells));
        }
        return new ViewsTable(summaries, rows);
    }

    private static Cell cell(NodeInfo n) {
        return new Cell(n.readyStatus() == null ? "none" : n.readyStatus(), n.uid(),
                n.created() == null ? null : n.created().toString());
    }

    /** The first 8 characters of a uid: enough to tell objects apart on screen. */
    public static String shortUid(String uid) {
        if (uid == null || uid.isEmpty()) {
            return "?";
        }
        return uid.length() <= 8 ? uid : uid.substring(0, 8);
    }
}
