package io.nodegate.render;

import io.nodegate.render.output.Structured;
import io.nodegate.render.output.Style;
import io.nodegate.detect.Finding;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdIds;
import io.nodegate.model.EtcdMember;
import io.nodegate.model.EtcdStatus;

import io.nodegate.render.output.TextReport;
import io.nodegate.render.output.TreeReport;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Plain-text tables and JSON-ready rows for `nodegate etcd`. IDs are shown in hex, as etcdctl shows them, so
 * they can be pasted into `etcdctl member remove`.
 */
public final class EtcdTables {

    private EtcdTables() {
    }

    /** One row per endpoint: what that endpoint says about itself. */
    public record EndpointRow(String endpoint, String member, String memberId, String clusterId, String leader,
                              Long raftTerm, Long raftIndex, String version, Long dbSize, Boolean learner,
                              String error) {
    }

    /** One row per member per endpoint: the registered members as each endpoint sees them. */
    public record MemberRow(String endpoint, String clusterId, String id, String name, List<String> peerUrls,
                            List<String> clientUrls, boolean learner) {
    }

    public static List<EndpointRow> endpointRows(List<EtcdEndpointReport> reports) {
        List<EndpointRow> rows = new ArrayList<>();
        for (EtcdEndpointReport r : reports) {
            EtcdStatus s = r.status();
            if (s == null) {
                rows.add(new EndpointRow(r.endpoint(), null, null, r.ok() ? EtcdIds.hex(r.memberListClusterId()) : null,
                        null, null, null, null, null, null, r.error()));
                continue;
            }
            rows.add(new EndpointRow(r.endpoint(), nameIn(r, s.memberId(), reports), EtcdIds.hex(s.memberId()),
                    EtcdIds.hex(s.clusterId()), s.leader() == 0 ? null : EtcdIds.hex(s.leader()), s.raftTerm(),
                    s.raftIndex(), s.version(), s.dbSize(), s.learner(), r.error()));
        }
        return rows;
    }

    public static List<MemberRow> memberRows(List<EtcdEndpointReport> reports) {
        List<MemberRow> rows = new ArrayList<>();
        for (EtcdEndpointReport r : reports) {
            if (!r.ok()) {
                continue;
            }
            for (EtcdMember m : r.members()) {
                rows.add(new MemberRow(r.endpoint(), EtcdIds.hex(r.memberListClusterId()), EtcdIds.hex(m.id()),
                        m.name(), m.peerUrls(), m.clientUrls(), m.learner()));
            }
        }
        return rows;
    }

    /** `nodegate etcd`'s report: the endpoints' answers, the members each lists, findings and notes. */
    public record Output(String source, List<EtcdEndpointReport> reports, List<Finding> findings, List<String> notes)
            implements TextReport, TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            return report(reports, findings, notes, style, wide);
        }

        @Override
        public JsonNode tree() {
            return Structured.tree(document(source, reports, findings, notes));
        }
    }

    /** The table output of `nodegate etcd`: endpoints, the members each one lists, then findings and notes. */
    public static String report(List<EtcdEndpointReport> reports, List<Finding> findings, List<String> notes,
                                Style style) {
        return report(reports, findings, notes, style, false);
    }

    /**
     * The default fits 120 columns on the examples: members and leaders by name, client URLs; {@code wide} adds the
     * member IDs beside the names, the learner flag and the peer URLs.
     */
    public static String report(List<EtcdEndpointReport> reports, List<Finding> findings, List<String> notes,
                                Style style, boolean wide) {
        return style.bold("ENDPOINTS (each answering on its own)") + "\n" + endpointTable(reports, style, wide) + "\n"
                + style.bold("REGISTERED MEMBERS (as each endpoint sees them)") + "\n"
                + memberTable(reports, style, wide) + "\n" + FindingsSection.block(findings, notes, style);
    }

    public static String endpointTable(List<EtcdEndpointReport> reports, Style style) {
        return endpointTable(reports, style, true);
    }

    public static String endpointTable(List<EtcdEndpointReport> reports, Style style, boolean wide) {
        TextTable table = wide ? new TextTable("ENDPOINT", "MEMBER", "CLUSTER ID", "LEADER", "RAFT TERM", "VERSION",
                "DB SIZE", "LEARNER", "ERROR")
                : new TextTable("ENDPOINT", "MEMBER", "CLUSTER ID", "LEADER", "TERM", "VERSION", "DB SIZE", "ERROR");
        for (EtcdEndpointReport r : reports) {
            EtcdStatus s = r.status();
            List<String> cells;
            if (s == null && r.ok()) {
                cells = new ArrayList<>(List.of(r.endpoint(), "(member list only, no status read)",
                        EtcdIds.hex(r.memberListClusterId()), "-", "-", "-", "-", "-", ""));
            } else if (s == null) {
                cells = new ArrayList<>(List.of(r.endpoint(), "-", "-", "-", "-", "-", "-", "-", r.error()));
            } else {
                String leader = s.leader() == 0 ? "none" : s.leader() == s.memberId() ? "self"
                        : wide ? labelIn(r, s.leader(), reports) : nameIn(r, s.leader(), reports);
                String member = nameIn(r, s.memberId(), reports);
                cells = new ArrayList<>(List.of(r.endpoint(),
                        wide ? member + " (" + EtcdIds.hex(s.memberId()) + ")" : member,
                        EtcdIds.hex(s.clusterId()), leader, Long.toString(s.raftTerm()), s.version(),
                        bytes(s.dbSize()), s.learner() ? "yes" : "no", r.error() == null ? "" : r.error()));
            }
            if (!wide) {
                cells.remove(7); // LEARNER
            }
            table.row(cells.toArray(String[]::new));
        }
        return table.render(style);
    }

    public static String memberTable(List<EtcdEndpointReport> reports, Style style) {
        return memberTable(reports, style, true);
    }

    public static String memberTable(List<EtcdEndpointReport> reports, Style style, boolean wide) {
        TextTable table = wide ? new TextTable("SEEN FROM", "CLUSTER ID", "MEMBER ID", "NAME", "PEER URLS",
                "CLIENT URLS", "LEARNER")
                : new TextTable("SEEN FROM", "CLUSTER ID", "MEMBER ID", "NAME", "CLIENT URLS", "LEARNER");
        for (MemberRow m : memberRows(reports)) {
            List<String> cells = new ArrayList<>(List.of(m.endpoint(), m.clusterId(), m.id(), display(m.name()),
                    String.join(",", m.peerUrls()), String.join(",", m.clientUrls()), m.learner() ? "yes" : "no"));
            if (!wide) {
                cells.remove(4); // PEER URLS
            }
            table.row(cells.toArray(String[]::new));
        }
        return table.render(style);
    }

    /** Members added but never started have no name yet. */
    static String display(String memberName) {
        return memberName == null || memberName.isEmpty() ? "(unstarted)" : memberName;
    }

    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, v >= 10 ? "%.0f %s" : "%.1f %s", v, units[u]);
    }

    /** A member's name from the endpoint's own list, else from another list of the same cluster ID. */
    private static String nameIn(EtcdEndpointReport r, long id, List<EtcdEndpointReport> all) {
        long clusterId = r.clusterId();
        return r.members().stream().filter(m -> m.id() == id).map(m -> display(m.name())).findFirst()
                .or(() -> all.stream().filter(o -> o.status() != null && o.status().clusterId() == clusterId)
                        .flatMap(o -> o.members().stream()).filter(m -> m.id() == id)
                        .map(m -> display(m.name())).findFirst())
                .orElse("?");
    }

    private static String labelIn(EtcdEndpointReport r, long id, List<EtcdEndpointReport> all) {
        String name = nameIn(r, id, all);
        return name + " (" + EtcdIds.hex(id) + ")";
    }

    /** JSON/YAML shape of the whole report. */
    public static Map<String, Object> document(String source, List<EtcdEndpointReport> reports, Object findings,
                                               List<String> notes) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("source", source);
        doc.put("endpoints", endpointRows(reports));
        doc.put("members", memberRows(reports));
        doc.put("findings", findings);
        doc.put("notes", notes);
        return doc;
    }
}
