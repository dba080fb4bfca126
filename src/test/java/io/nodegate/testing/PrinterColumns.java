package io.nodegate.testing;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A CRD's additionalPrinterColumns served as kube-apiserver serves them: a Table whose first column is the implicit
 * Name, then one column per definition, each cell the value at the column's JSONPath (staging/src/k8s.io/
 * apiextensions-apiserver/pkg/registry/customresource/tableconvertor/tableconvertor.go). As there: a missing value
 * is a null cell; a string column prints any value as client-go's jsonpath does (a string as it is, a list or map as
 * compact JSON); an integer column takes a number, a date column becomes kubectl's short age. CRD printer columns
 * are restricted to simple paths (.a.b.c), which is all this evaluates; any other path is refused, as the API server
 * refuses the CRD.
 */
public final class PrinterColumns {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private PrinterColumns() {
    }

    /** The value at a simple JSONPath (".spec.destination.cluster"), or null when any step is missing. */
    public static JsonNode at(JsonNode object, String jsonPath) {
        if (!jsonPath.matches("(\\.[A-Za-z0-9_-]+)+")) {
            throw new IllegalArgumentException("not a simple JSONPath (the API server refuses it in a CRD): " + jsonPath);
        }
        JsonNode cur = object;
        for (String step : jsonPath.substring(1).split("\\.")) {
            cur = cur == null ? null : cur.get(step);
        }
        return cur == null || cur.isNull() ? null : cur;
    }

    /** One cell, as the table convertor makes it for the column's type. */
    public static Object cell(JsonNode object, Map<String, Object> column) {
        JsonNode v = at(object, (String) column.get("jsonPath"));
        if (v == null) {
            return null;
        }
        return switch ((String) column.get("type")) {
            case "string" -> v.isString() ? v.asString() : v.isContainer() ? JSON.writeValueAsString(v) : v.asString();
            case "integer" -> v.isNumber() ? (Object) v.asLong() : null;
            case "number" -> v.isNumber() ? (Object) v.asDouble() : null;
            case "boolean" -> v.isBoolean() ? (Object) v.asBoolean() : null;
            case "date" -> v.isString() ? ApiMediaTypes.age(v.asString()) : null;
            default -> null;
        };
    }

    static ObjectNode table(ObjectNode body, boolean list, List<Map<String, Object>> columns, String include,
                            String gv) {
        ObjectNode out = JSON.createObjectNode();
        out.put("kind", "Table");
        out.put("apiVersion", gv);
        ObjectNode meta = out.putObject("metadata");
        JsonNode source = body.path("metadata");
        if (source.has("resourceVersion")) {
            meta.set("resourceVersion", source.get("resourceVersion").deepCopy());
        }
        ArrayNode defs = out.putArray("columnDefinitions");
        ObjectNode name = defs.addObject();
        name.put("name", "Name");
        name.put("type", "string");
        name.put("format", "name");
        name.put("description", "");
        name.put("priority", 0);
        for (Map<String, Object> c : columns) {
            ObjectNode d = defs.addObject();
            d.put("name", (String) c.get("name"));
            d.put("type", (String) c.get("type"));
            d.put("format", "");
            d.put("description", c.get("description") == null ? "" : (String) c.get("description"));
            d.put("priority", c.get("priority") == null ? 0 : ((Number) c.get("priority")).intValue());
        }
        List<JsonNode> objects = new ArrayList<>();
        if (list) {
            body.path("items").forEach(objects::add);
        } else {
            objects.add(body);
        }
        ArrayNode rows = out.putArray("rows");
        for (JsonNode o : objects) {
            ObjectNode row = rows.addObject();
            ArrayNode cells = row.putArray("cells");
            cells.add(o.path("metadata").path("name").asString(""));
            for (Map<String, Object> c : columns) {
                Object cell = cell(o, c);
                if (cell == null) {
                    cells.addNull();
                } else if (cell instanceof Long l) {
                    cells.add(l);
                } else if (cell instanceof Double d) {
                    cells.add(d);
                } else if (cell instanceof Boolean b) {
                    cells.add(b);
                } else {
                    cells.add(cell.toString());
                }
            }
            switch (include) {
                case "Metadata" -> row.set("object", ApiMediaTypes.partial(o, gv));
                case "Object" -> row.set("object", o.deepCopy());
                default -> row.putNull("object");
            }
        }
        return out;
    }
}
