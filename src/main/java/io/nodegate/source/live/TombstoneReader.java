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

    public static Collected<Tombstone> read(ApiCalls api, String namespace) {
        ConfigMap cm = readConfigMap(api, namespace);
        if (cm == null) {
            return Collected.absent();
        }
        return Collected.of(book(cm, namespace).tombstones());
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
        try {
            return TombstoneBook.parse(cm.getData());
        } catch (IllegalArgumentException e) {
            throw new CollectionException("ConfigMap " + namespace + "/" + TombstoneBook.CONFIGMAP + ": "
                    + e.getMessage() + " (fix or remove that key with kubectl edit)", e);
        }
    }
}
