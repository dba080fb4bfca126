package io.nodegate.bench;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One stored object: its full JSON and its metadata JSON (for PartialObjectMetadata answers), plus what label
 * and field selectors match against.
 */
record Item(String name, String namespace, Map<String, String> labels, Map<String, String> fields, byte[] json,
            byte[] metadataJson) {

    static Item of(String name, String namespace, Map<String, String> labels, Map<String, String> fields,
                   String metadata, String rest) {
        String full = "{" + rest + ",\"metadata\":" + metadata + "}";
        return new Item(name, namespace, labels, fields, full.getBytes(StandardCharsets.UTF_8),
                metadata.getBytes(StandardCharsets.UTF_8));
    }
}
