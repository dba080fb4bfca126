package io.nodegate.source.dump;

import io.nodegate.model.TombstoneBook;
import io.nodegate.model.TombstoneShards;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the tombstones ledger's shards ({@link TombstoneShards}) in -f dumps (single objects, or items of a List):
 * what `kubectl get configmaps -n nodegate-system -o json` saves. Null when the input holds none: offline, a missing
 * file proves nothing about the cluster, so NG302 is then "not checked", never "no removed host". A damaged entry
 * is skipped and named in a note, as live.
 */
public final class TombstoneDumps {

    private TombstoneDumps() {
    }

    public static TombstoneShards.Read read(List<Path> paths, String namespace) {
        Map<String, TombstoneShards.Shard> found = new LinkedHashMap<>();
        for (Path file : DumpFiles.expand(paths)) {
            for (DumpFiles.Document doc : DumpFiles.parse(file)) {
                List<JsonNode> shards = new ArrayList<>();
                find(doc.tree(), namespace, shards);
                for (JsonNode shard : shards) {
                    Map<String, String> data = new LinkedHashMap<>();
                    JsonNode d = shard.get("data");
                    if (d != null && d.isObject()) {
                        d.properties().forEach(e -> data.put(e.getKey(), e.getValue().asString()));
                    }
                    Map<String, String> labels = new LinkedHashMap<>();
                    JsonNode l = shard.path("metadata").get("labels");
                    if (l != null && l.isObject()) {
                        l.properties().forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
                    }
                    String name = text(shard.get("metadata"), "name");
                    found.putIfAbsent(name, new TombstoneShards.Shard(name, TombstoneBook.parse(data),
                            text(shard.get("metadata"), "resourceVersion"), labels));
                }
            }
        }
        return found.isEmpty() ? null : TombstoneShards.read(namespace, List.copyOf(found.values()));
    }

    private static void find(JsonNode tree, String namespace, List<JsonNode> out) {
        if (tree == null || !tree.isObject()) {
            return;
        }
        if (tree.get("items") != null && tree.get("items").isArray()) {
            for (JsonNode item : tree.get("items")) {
                find(item, namespace, out);
            }
            return;
        }
        JsonNode meta = tree.get("metadata");
        boolean configMap = "ConfigMap".equals(text(tree, "kind"));
        if (configMap && meta != null && TombstoneShards.isShard(text(meta, "name"))
                && (text(meta, "namespace") == null || namespace.equals(text(meta, "namespace")))) {
            out.add(tree);
        }
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n == null ? null : n.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }
}
