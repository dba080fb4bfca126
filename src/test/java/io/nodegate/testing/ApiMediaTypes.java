package io.nodegate.testing;

import io.fabric8.mockwebserver.http.MockResponse;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The Accept negotiation kube-apiserver does on a GET (LIST or one object), for {@link ApiTestServer}: a client that
 * asks for {@code application/json;as=Table;g=meta.k8s.io;v=v1} gets a Table, one asking for
 * {@code as=PartialObjectMetadataList} (a LIST) or {@code as=PartialObjectMetadata} (one object) gets metadata only,
 * and a client that asks for plain JSON (or nothing) gets the full objects. Media ranges are tried in the order
 * given; one the server cannot serve for this request (a PartialObjectMetadata for a list) is skipped, and when
 * none can be served the answer is 406 NotAcceptable, as in staging/src/k8s.io/apiserver/pkg/endpoints/handlers/
 * response.go (transformResponseObject, asTable, asPartialObjectMetadata[List]).
 *
 * <p>Tables: Secrets get kube-apiserver's Secret printer columns (Name, Type, Data, Age: printers.go,
 * secretColumnDefinitions); other kinds the default convertor's (Name, Created At). Each row's object follows
 * {@code includeObject}: Metadata (the default) a PartialObjectMetadata, None nothing, Object the whole object.
 */
final class ApiMediaTypes {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ApiMediaTypes() {
    }

    /** One JSON range of an Accept header: its {@code as}, {@code g} and {@code v} parameters, each null when absent. */
    private record JsonRange(String as, String group, String version) {
    }

    /**
     * The ranges of {@code accept} that are JSON (application/json, application/*, * / *), in order; other parameters
     * (q, charset) do not change what is served.
     */
    private static List<JsonRange> jsonRanges(String accept) {
        List<JsonRange> out = new ArrayList<>();
        for (String range : accept.split(",")) {
            String[] parts = range.trim().split(";");
            String type = parts[0].trim().toLowerCase(java.util.Locale.ROOT);
            if (!type.equals("application/json") && !type.equals("application/*") && !type.equals("*/*")) {
                continue;
            }
            Map<String, String> params = new java.util.HashMap<>();
            for (int i = 1; i < parts.length; i++) {
                String[] kv = parts[i].trim().split("=", 2);
                if (kv.length == 2) {
                    params.put(kv[0].trim(), kv[1].trim());
                }
            }
            out.add(new JsonRange(params.get("as"), params.get("g"), params.get("v")));
        }
        return out;
    }

    /**
     * The answer to send for {@code accept}: {@code answer} itself, or its Table or metadata-only form, or a 406.
     * Only 200 answers holding a JSON object are transformed.
     */
    static MockResponse negotiate(String accept, boolean list, String resource, String includeObject,
                                  MockResponse answer) {
        return negotiate(accept, list, resource, includeObject, answer, null);
    }

    /** As above; {@code columns} (a CRD's printer columns, or null) make the Table's columns. */
    static MockResponse negotiate(String accept, boolean list, String resource, String includeObject,
                                  MockResponse answer, List<Map<String, Object>> columns) {
        if (accept == null || accept.isBlank() || answer.code() != 200 || answer.getBody() == null) {
            return answer;
        }
        for (JsonRange range : jsonRanges(accept)) {
            String as = range.as();
            String group = range.group();
            String version = range.version();
            if (as == null) {
                return answer;
            }
            if (!"meta.k8s.io".equals(group) || !("v1".equals(version) || "v1beta1".equals(version))) {
                continue;
            }
            ObjectNode body = body(answer);
            if (body == null) {
                return answer;
            }
            String gv = "meta.k8s.io/" + version;
            switch (as) {
                case "Table" -> {
                    String include = includeObject == null || includeObject.isEmpty() ? "Metadata" : includeObject;
                    if (!List.of("Metadata", "None", "Object").contains(include)) {
                        return status(400, "BadRequest", "unrecognized includeObject value: \"" + include + "\"");
                    }
                    return json(columns == null ? table(body, list, resource, include, gv)
                            : PrinterColumns.table(body, list, columns, include, gv), "Table", version);
                }
                case "PartialObjectMetadataList" -> {
                    if (list) {
                        ObjectNode out = JSON.createObjectNode();
                        out.put("kind", "PartialObjectMetadataList");
                        out.put("apiVersion", gv);
                        out.set("metadata", body.path("metadata").deepCopy());
                        ArrayNode items = out.putArray("items");
                        body.path("items").forEach(i -> items.add(partial(i, gv)));
                        return json(out, as, version);
                    }
                }
                case "PartialObjectMetadata" -> {
                    if (!list) {
                        return json(partial(body, gv), as, version);
                    }
                }
                default -> {
                    // a representation this server does not know: try the next range
                }
            }
        }
        return status(406, "NotAcceptable", "only the following media types are accepted: application/json, "
                + "application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=PartialObjectMetadata;v=v1;"
                + "g=meta.k8s.io, application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io");
    }

    /**
     * How each event line of an HTTP watch is sent for {@code accept}, as kube-apiserver encodes watch events
     * (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go, serveWatchHandler; response.go,
     * watchEmbeddedEncoder and doTransformObject): every event's object goes through the transform a GET's answer
     * gets, so with {@code as=Table} each ADDED, MODIFIED, DELETED and BOOKMARK object becomes a one-row Table (the
     * row's object per {@code includeObject}), and with {@code as=PartialObjectMetadata} its metadata; an ERROR
     * event's Status is sent unchanged. Only the stream's first Table carries {@code columnDefinitions}: the encoder
     * sets {@code NoHeaders} after the first event, and every later Table says {@code "columnDefinitions": null}. Returns a fresh, stateful transformer for one stream, or null
     * when the events go whole (plain JSON asked for, or first).
     *
     * <p>Not modelled: an Accept header with no range this server can serve (kube-apiserver answers the watch 406;
     * here its events go whole), and an unknown {@code includeObject} (a 400 there; Metadata here).
     */
    static UnaryOperator<String> watchEvents(String accept, String resource, String includeObject) {
        if (accept == null || accept.isBlank()) {
            return null;
        }
        for (JsonRange range : jsonRanges(accept)) {
            String as = range.as();
            String group = range.group();
            String version = range.version();
            if (as == null) {
                return null;
            }
            if (!"meta.k8s.io".equals(group) || !("v1".equals(version) || "v1beta1".equals(version))) {
                continue;
            }
            String gv = "meta.k8s.io/" + version;
            String include = includeObject == null || includeObject.isEmpty() ? "Metadata" : includeObject;
            if ("Table".equals(as)) {
                boolean[] headersSent = {false};
                return eachObject(object -> {
                    ObjectNode table = table(object, false, resource, include, gv);
                    if (headersSent[0]) {
                        // metav1.Table's columnDefinitions has no omitempty: the nil slice is sent as null
                        table.putNull("columnDefinitions");
                    }
                    headersSent[0] = true;
                    return table;
                });
            }
            if ("PartialObjectMetadata".equals(as)) {
                return eachObject(object -> partial(object, gv));
            }
            // PartialObjectMetadataList is no representation of one object: try the next range
        }
        return null;
    }

    /** A watch line transformer that turns each event's object (not an ERROR's Status) with {@code turn}. */
    private static UnaryOperator<String> eachObject(java.util.function.Function<ObjectNode, ObjectNode> turn) {
        return line -> {
            ObjectNode event;
            try {
                if (!(JSON.readTree(line) instanceof ObjectNode parsed)) {
                    return line;
                }
                event = parsed;
            } catch (RuntimeException notJson) {
                return line;
            }
            if (!(event.get("object") instanceof ObjectNode object) || "ERROR".equals(event.path("type").asString(""))
                    || "Status".equals(object.path("kind").asString(""))) {
                return line;
            }
            event.set("object", turn.apply(object));
            return event.toString() + (line.endsWith("\n") ? "\n" : "");
        };
    }

    private static ObjectNode body(MockResponse answer) {
        try {
            return JSON.readTree(new String(answer.getBody().getBytes(), StandardCharsets.UTF_8)) instanceof ObjectNode o
                    ? o : null;
        } catch (RuntimeException notJson) {
            return null;
        }
    }

    static ObjectNode partial(JsonNode object, String gv) {
        ObjectNode out = JSON.createObjectNode();
        out.put("kind", "PartialObjectMetadata");
        out.put("apiVersion", gv);
        out.set("metadata", object.path("metadata").deepCopy());
        return out;
    }

    private static ObjectNode table(ObjectNode body, boolean list, String resource, String include, String gv) {
        boolean secrets = "secrets".equals(resource);
        ObjectNode out = JSON.createObjectNode();
        out.put("kind", "Table");
        out.put("apiVersion", gv);
        ObjectNode meta = out.putObject("metadata");
        JsonNode listMeta = list ? body.path("metadata") : JSON.createObjectNode();
        for (String f : List.of("resourceVersion", "continue", "remainingItemCount")) {
            if (listMeta.has(f)) {
                meta.set(f, listMeta.get(f).deepCopy());
            }
        }
        if (!list && body.path("metadata").has("resourceVersion")) {
            meta.set("resourceVersion", body.path("metadata").get("resourceVersion").deepCopy());
        }
        ArrayNode columns = out.putArray("columnDefinitions");
        List<String> names = secrets ? List.of("Name", "Type", "Data", "Age") : List.of("Name", "Created At");
        for (String name : names) {
            ObjectNode c = columns.addObject();
            c.put("name", name);
            c.put("type", "Created At".equals(name) ? "date" : "string");
            c.put("format", "Name".equals(name) ? "name" : "");
            c.put("description", "");
            c.put("priority", 0);
        }
        ArrayNode rows = out.putArray("rows");
        List<JsonNode> objects = new ArrayList<>();
        if (list) {
            body.path("items").forEach(objects::add);
        } else {
            objects.add(body);
        }
        for (JsonNode o : objects) {
            ObjectNode row = rows.addObject();
            ArrayNode cells = row.putArray("cells");
            JsonNode m = o.path("metadata");
            cells.add(m.path("name").asString(""));
            if (secrets) {
                cells.add(o.path("type").asString(""));
                cells.add(o.path("data").size());
                cells.add(age(m.path("creationTimestamp").asString("")));
            } else {
                cells.add(m.path("creationTimestamp").asString(""));
            }
            switch (include) {
                case "Metadata" -> row.set("object", partial(o, gv));
                case "Object" -> row.set("object", o.deepCopy());
                default -> row.putNull("object");
            }
        }
        return out;
    }

    /** kubectl's short age ("5d", "3h", "42s"), as the printers write it; "&lt;unknown&gt;" without a time. */
    static String age(String created) {
        try {
            Duration d = Duration.between(Instant.parse(created), Instant.now());
            return d.toDays() > 0 ? d.toDays() + "d" : d.toHours() > 0 ? d.toHours() + "h"
                    : d.toMinutes() > 0 ? d.toMinutes() + "m" : Math.max(0, d.toSeconds()) + "s";
        } catch (RuntimeException e) {
            return "<unknown>";
        }
    }

    private static MockResponse json(ObjectNode body, String as, String version) {
        return new MockResponse().setResponseCode(200)
                .setHeader("Content-Type", "application/json;as=" + as + ";g=meta.k8s.io;v=" + version)
                .setBody(body.toString());
    }

    private static MockResponse status(int code, String reason, String message) {
        ObjectNode s = JSON.createObjectNode();
        s.put("kind", "Status");
        s.put("apiVersion", "v1");
        s.putObject("metadata");
        s.put("status", "Failure");
        s.put("message", message);
        s.put("reason", reason);
        s.put("code", code);
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
                .setBody(s.toString());
    }

    /** The request's includeObject parameter (Metadata, None, Object), or null for the default. */
    static String includeObject(Map<String, String> query) {
        return query.get("includeObject");
    }
}
