package io.nodegate.source.dump;

import io.nodegate.model.Collected;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.InputException;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the tombstones ConfigMap in -f dumps (a single object, or an item of a List): what `kubectl get configmap
 * nodegate-tombstones -n nodegate-system -o json` saves. Null when the input holds none: offline, a missing file
 * proves nothing about the cluster, so NG302 is then "not checked", never "no removed host".
 */
public final class TombstoneDumps {

    private TombstoneDumps() {
    }

    public static Collected<Tombstone> read(List<Path> paths, String namespace) {
        for (Path file : DumpFiles.expand(paths)) {
            for (DumpFiles.Document doc : DumpFiles.parse(file)) {
                JsonNode found = find(doc.tree(), namespace);
                if (found != null) {
                    Map<String, String> data = new LinkedHashMap<>();
                    JsonNode d = found.get("data");
                    if (d != null && d.isObject()) {
                        d.properties().forEach(e -> data.put(e.getKey(), e.getValue().asString()));
                    }
                    try {
                        return Collected.of(TombstoneBook.parse(data).tombstones());
                    } catch (IllegalArgumentException e) {
                        throw new InputException(doc.where() + ": " + e.getMessage());
                    }
                }
            }
        }
        return null;
    }

    private static JsonNode find(JsonNode tree, String namespace) {
        if (tree == null || !tree.isObject()) {
            return null;
        }
        if (tree.get("items") != null && tree.get("items").isArray()) {
            for (JsonNode item : tree.get("items")) {
                JsonNode hit = find(item, namespace);
                if (hit != null) {
                    return hit;
                }
            }
            return null;
        }
        JsonNode meta = tree.get("metadata");
        boolean configMap = "ConfigMap".equals(text(tree, "kind"));
        if (configMap && meta != null && TombstoneBook.CONFIGMAP.equals(text(meta, "name"))
                && (text(meta, "namespace") == null || namespace.equals(text(meta, "namespace")))) {
            return tree;
        }
        return null;
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }
}
