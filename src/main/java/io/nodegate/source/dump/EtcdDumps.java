package io.nodegate.source.dump;

import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdIds;
import io.nodegate.model.EtcdMember;
import io.nodegate.model.EtcdStatus;
import io.nodegate.InputException;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads {@code etcdctl member list -w json} and {@code etcdctl endpoint status -w json} output and combines
 * them into one {@link EtcdEndpointReport} per endpoint.
 *
 * <p>IDs are uint64 and etcdctl prints them as bare JSON numbers, often above 2^63; they are read as
 * BigInteger text and kept as the same 64 bits in a long ({@link EtcdIds#parse}). Strings are accepted too:
 * all digits = decimal (the etcd JSON gateway), otherwise hex (etcdctl 3.5+ {@code --hex}). A hex ID made only
 * of digits would be misread as decimal; run etcdctl without {@code --hex} to avoid it.
 *
 * <p>Combination rule (the member list output does not say which endpoint answered, only which member):
 * <ol>
 *   <li>Every endpoint status entry becomes a report for its {@code Endpoint}, with no members yet.</li>
 *   <li>A member list is attached to every report whose status has the same member ID <em>and</em> cluster ID
 *       as the member list's header ({@code header.member_id}, {@code header.cluster_id}): that endpoint is
 *       the member that answered. {@code memberListClusterId} is the header's cluster ID.</li>
 *   <li>A member list whose answering member has no status in the input becomes its own report, status
 *       null, endpoint = the answering member's first client URL from its own list, else
 *       {@code member <hex id>}.</li>
 *   <li>A second member list for the same report replaces the first only if it is the same cluster; the
 *       replaced one is noted. Reports are never merged across endpoints: split-brain detection needs each
 *       endpoint's own answer.</li>
 * </ol>
 */
public final class EtcdDumps {

    private final List<EtcdEndpointReport> reports = new ArrayList<>();
    private final List<PendingList> memberLists = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    private record PendingList(String where, long clusterId, long memberId, List<EtcdMember> members) {
    }

    /** True for the shape of `etcdctl member list -w json`. */
    public static boolean isMemberList(JsonNode tree) {
        return tree.isObject() && tree.has("header") && tree.get("members") != null && tree.get("members").isArray();
    }

    /** True for the shape of `etcdctl endpoint status -w json`: an array of {Endpoint, Status}. */
    public static boolean isEndpointStatus(JsonNode tree) {
        if (!tree.isArray() || tree.isEmpty()) {
            return false;
        }
        for (JsonNode e : tree) {
            if (!e.isObject() || !e.has("Endpoint") || !e.has("Status")) {
                return false;
            }
        }
        return true;
    }

    public void addEndpointStatus(JsonNode array, String where) {
        int index = 0;
        for (JsonNode entry : array) {
            String at = where + " [" + index++ + "]";
            JsonNode endpointNode = entry.get("Endpoint");
            if (endpointNode == null || !endpointNode.isString() || endpointNode.asString().isBlank()) {
                throw new InputException(at + " Endpoint: expected the endpoint URL, got "
                        + (endpointNode == null ? "nothing" : endpointNode.toString()));
            }
            String endpoint = endpointNode.asString().trim();
            JsonNode st = entry.get("Status");
            String ctx = where + ", endpoint " + endpoint;
            if (st == null || !st.isObject()) {
                throw new InputException(ctx + " Status: expected an object, got " + (st == null ? "nothing" : st));
            }
            JsonNode header = st.path("header");
            EtcdStatus status = new EtcdStatus(
                    id(header.get("cluster_id"), ctx + " header.cluster_id", true),
                    id(header.get("member_id"), ctx + " header.member_id", true),
                    id(st.get("leader"), ctx + " leader", false),
                    count(st.get("raftTerm"), ctx + " raftTerm"),
                    count(st.get("raftIndex"), ctx + " raftIndex"),
                    text(st, "version"),
                    count(st.get("dbSize"), ctx + " dbSize"),
                    st.path("isLearner").asBoolean(false));
            // `endpoint status --cluster` saved on two servers repeats the endpoints both could reach: one row each
            boolean seen = reports.stream().anyMatch(r -> r.endpoint().equals(endpoint) && status.equals(r.status()));
            if (!seen) {
                reports.add(new EtcdEndpointReport(endpoint, status, 0L, List.of(), null));
            }
        }
    }

    public void addMemberList(JsonNode tree, String where) {
        JsonNode header = tree.get("header");
        long clusterId = id(header.get("cluster_id"), where + " header.cluster_id", true);
        long memberId = id(header.get("member_id"), where + " header.member_id", true);
        List<EtcdMember> members = new ArrayList<>();
        for (JsonNode m : tree.get("members")) {
            members.add(new EtcdMember(id(m.get("ID"), where + " members[].ID", true), text(m, "name"),
                    strings(m.get("peerURLs")), strings(m.get("clientURLs")), m.path("isLearner").asBoolean(false)));
        }
        memberLists.add(new PendingList(where, clusterId, memberId, members));
    }

    /** Applies the combination rule (class javadoc) and returns the reports, in input order. */
    public List<EtcdEndpointReport> reports() {
        List<EtcdEndpointReport> out = new ArrayList<>(reports);
        for (PendingList list : memberLists) {
            boolean attached = false;
            for (int i = 0; i < out.size(); i++) {
                EtcdEndpointReport r = out.get(i);
                if (r.status() != null && r.status().memberId() == list.memberId()
                        && r.status().clusterId() == list.clusterId()) {
                    if (!r.members().isEmpty()) {
                        notes.add("etcd: two member lists answered by member " + EtcdIds.hex(list.memberId())
                                + "; using the one from " + list.where());
                    }
                    out.set(i, new EtcdEndpointReport(r.endpoint(), r.status(), list.clusterId(), list.members(),
                            null));
                    attached = true;
                }
            }
            if (!attached) {
                String endpoint = list.members().stream().filter(m -> m.id() == list.memberId())
                        .flatMap(m -> m.clientUrls().stream()).findFirst()
                        .orElse("member " + EtcdIds.hex(list.memberId()));
                out.add(new EtcdEndpointReport(endpoint, null, list.clusterId(), list.members(), null));
                notes.add("etcd: member list from " + list.where() + " has no endpoint status for its answering member "
                        + EtcdIds.hex(list.memberId()) + "; reported under " + endpoint + " without status");
            }
        }
        return out;
    }

    public List<String> notes() {
        return List.copyOf(notes);
    }

    public boolean isEmpty() {
        return reports.isEmpty() && memberLists.isEmpty();
    }

    private static final java.math.BigInteger UINT64_END = java.math.BigInteger.ONE.shiftLeft(64);

    /**
     * A uint64 etcd ID: a JSON whole number, a decimal digit string (the JSON gateway), or a hex string of at most
     * 16 digits (etcdctl --hex). Anything else, a negative number or one of 2^64 or more is an input error naming
     * the file and field: wrapping it into 64 bits would invent a member that does not exist.
     */
    static long id(JsonNode node, String where, boolean required) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            if (required) {
                throw new InputException(where + ": missing");
            }
            return 0L;
        }
        java.math.BigInteger value;
        if (node.isIntegralNumber()) {
            value = node.bigIntegerValue();
        } else if (node.isString()) {
            String text = node.asString().trim();
            if (text.matches("[0-9]+")) {
                value = new java.math.BigInteger(text);
            } else if (text.matches("(0[xX])?[0-9a-fA-F]{1,16}")) {
                value = new java.math.BigInteger(text.replaceFirst("^0[xX]", ""), 16);
            } else {
                throw new InputException(where + ": '" + text + "' is not an etcd ID (decimal, or hex of at most 16 digits)");
            }
        } else {
            throw new InputException(where + ": expected an etcd ID (a whole number), got " + node);
        }
        if (value.signum() < 0 || value.compareTo(UINT64_END) >= 0) {
            throw new InputException(where + ": " + value + " is not an etcd ID (IDs are 0 to 2^64-1)");
        }
        return value.longValue();
    }

    /** A count (raft term, raft index, DB size): a non-negative decimal whole number, never read as hex. */
    static long count(JsonNode node, String where) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return 0L;
        }
        String text = node.isIntegralNumber() ? node.bigIntegerValue().toString()
                : node.isString() ? node.asString().trim() : null;
        if (text == null || !text.matches("[0-9]+") || text.length() > 19
                || new java.math.BigInteger(text).compareTo(java.math.BigInteger.valueOf(Long.MAX_VALUE)) > 0) {
            throw new InputException(where + ": expected a non-negative whole number, got " + node);
        }
        return Long.parseLong(text);
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        if (array != null && array.isArray()) {
            array.forEach(v -> out.add(v.asString()));
        }
        return out;
    }
}
