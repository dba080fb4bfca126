package io.nodegate.source.live;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.model.Collected;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.CollectionException;

/**
 * Reads the tombstones ConfigMap. Absent only on a NotFound (no host was ever removed by nodegate here, or the
 * namespace does not exist); any other failure, and an entry that is not a tombstone, is a collection error: an
 * unreadable tombstone list must not look like "nobody was removed".
 */
public final class TombstoneReader {

    private TombstoneReader() {
    }

    public static Collected<Tombstone> read(KubernetesClient client, String namespace) {
        return read(ApiCalls.of(client), namespace);
    }

    /** Over the lean read layer, as plain JSON (no fabric8 model class): what fleet and audit read. */
    public static Collected<Tombstone> read(ApiCalls api, String namespace) {
        String what = "GET ConfigMap " + namespace + "/" + TombstoneBook.CONFIGMAP;
        var cm = api.getPlain(what, "/api/v1/namespaces/" + namespace + "/configmaps/" + TombstoneBook.CONFIGMAP,
                "ConfigMap", TombstoneBook.CONFIGMAP, io.nodegate.source.json.KubeJson.EVIDENCE);
        if (cm.isEmpty()) {
            return Collected.absent();
        }
        java.util.Map<String, String> data;
        try {
            data = io.nodegate.source.json.Plain.stringMap(cm.get(), "data");
        } catch (RuntimeException e) {
            throw new CollectionException(what + " at " + api.server() + ": unusable answer: " + e.getMessage(), e);
        }
        return Collected.of(book(data, namespace).tombstones());
    }

    /**
     * The ConfigMap itself (for writers that need its resourceVersion), or null on NotFound. Read through the
     * shared {@link ApiCalls#getObject} rule: fabric8's own {@code get()} also returns null for a 200 with an
     * empty body (a proxy, a cut connection), which here would read as "no host was ever removed" and let
     * {@code remove} overwrite every other tombstone with a fresh ConfigMap.
     */
    public static ConfigMap readConfigMap(KubernetesClient client, String namespace) {
        return readConfigMap(ApiCalls.of(client), namespace);
    }

    /** Like {@link #readConfigMap(KubernetesClient, String)}, over the lean read layer. */
    public static ConfigMap readConfigMap(ApiCalls api, String namespace) {
        String what = "GET ConfigMap " + namespace + "/" + TombstoneBook.CONFIGMAP;
        return api.getObject(what, "/api/v1/namespaces/" + namespace + "/configmaps/"
                + TombstoneBook.CONFIGMAP, ConfigMap.class, TombstoneBook.CONFIGMAP).orElse(null);
    }

    public static TombstoneBook book(ConfigMap cm, String namespace) {
        return book(cm.getData(), namespace);
    }

    private static TombstoneBook book(java.util.Map<String, String> data, String namespace) {
        try {
            return TombstoneBook.parse(data);
        } catch (IllegalArgumentException e) {
            throw new CollectionException("ConfigMap " + namespace + "/" + TombstoneBook.CONFIGMAP + ": "
                    + e.getMessage() + " (fix or remove that key with kubectl edit)", e);
        }
    }
}
