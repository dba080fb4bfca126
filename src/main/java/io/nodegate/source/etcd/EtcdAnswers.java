package io.nodegate.source.etcd;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import io.nodegate.model.EtcdIds;
import io.nodegate.model.EtcdMember;
import io.nodegate.model.EtcdStatus;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses the JSON gateway's answers to MemberList and Maintenance.Status. uint64 fields arrive as JSON
 * strings (proto3 JSON mapping); false booleans and zero numbers are omitted. Anything that is not the shape
 * etcd sends raises {@link MalformedAnswer} with what was missing.
 */
public final class EtcdAnswers {

    private static final ObjectMapper JSON = new ObjectMapper();

    private EtcdAnswers() {
    }

    /** An answer that is not what etcd sends; becomes the endpoint's error. */
    public static final class MalformedAnswer extends Exception {
        MalformedAnswer(String message) {
            super(message);
        }
    }

    public record MemberList(long clusterId, List<EtcdMember> members) {
    }

    public static MemberList memberList(String body) throws MalformedAnswer {
        JsonNode root = tree(body, "member list");
        long clusterId = requiredId(root.path("header"), "cluster_id", "member list header");
        JsonNode members = root.path("members");
        if (!members.isArray()) {
            throw new MalformedAnswer("member list answer has no 'members' array");
        }
        List<EtcdMember> out = new ArrayList<>();
        for (JsonNode m : members) {
            out.add(new EtcdMember(requiredId(m, "ID", "member"), m.path("name").asString(""),
                    strings(m.path("peerURLs")), strings(m.path("clientURLs")), m.path("isLearner").asBoolean(false)));
        }
        return new MemberList(clusterId, out);
    }

    public static EtcdStatus status(String body) throws MalformedAnswer {
        JsonNode root = tree(body, "status");
        JsonNode header = root.path("header");
        long clusterId = requiredId(header, "cluster_id", "status header");
        long memberId = requiredId(header, "member_id", "status header");
        if (!root.hasNonNull("version")) {
            throw new MalformedAnswer("status answer has no 'version'");
        }
        return new EtcdStatus(clusterId, memberId, optionalId(root, "leader"), optionalId(root, "raftTerm"),
                optionalId(root, "raftIndex"), root.path("version").asString(), optionalId(root, "dbSize"),
                root.path("isLearner").asBoolean(false));
    }

    /** The message of a gateway error body ({"error":..,"code":..,"message":..}), or null. */
    public static String gatewayError(String body) {
        try {
            JsonNode root = JSON.readTree(body);
            if (root != null && root.hasNonNull("message")) {
                return root.get("message").asString();
            }
            if (root != null && root.hasNonNull("error")) {
                return root.get("error").asString();
            }
        } catch (JacksonException e) {
            // not JSON: the caller shows the raw body
        }
        return null;
    }

    private static JsonNode tree(String body, String what) throws MalformedAnswer {
        try {
            JsonNode root = JSON.readTree(body);
            if (root == null || !root.isObject()) {
                throw new MalformedAnswer(what + " answer is not a JSON object: " + abbreviate(body));
            }
            return root;
        } catch (JacksonException e) {
            throw new MalformedAnswer(what + " answer is not JSON: " + abbreviate(body));
        }
    }

    private static long requiredId(JsonNode obj, String field, String where) throws MalformedAnswer {
        JsonNode v = obj.get(field);
        if (v == null || v.isNull()) {
            throw new MalformedAnswer(where + " lacks '" + field + "'");
        }
        return id(v, field, where);
    }

    private static long optionalId(JsonNode obj, String field) throws MalformedAnswer {
        JsonNode v = obj.get(field);
        return v == null || v.isNull() ? 0L : id(v, field, "status");
    }

    private static long id(JsonNode v, String field, String where) throws MalformedAnswer {
        try {
            return EtcdIds.parse(v.isString() ? v.asString() : v.toString());
        } catch (NumberFormatException e) {
            throw new MalformedAnswer(where + " field '" + field + "' is not an unsigned integer: " + v);
        }
    }

    private static List<String> strings(JsonNode arr) {
        List<String> out = new ArrayList<>();
        if (arr.isArray()) {
            arr.forEach(n -> out.add(n.asString()));
        }
        return out;
    }

    static String abbreviate(String body) {
        String oneLine = body == null ? "" : body.replaceAll("\\s+", " ").trim();
        return oneLine.length() > 200 ? oneLine.substring(0, 200) + "..." : oneLine;
    }
}
