package io.nodegate.source.live;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
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
        ConfigMap cm = readConfigMap(client, namespace);
        if (cm == null) {
            return Collected.absent();
        }
        return Collected.of(book(cm, namespace).tombstones());
    }

    /** The ConfigMap itself (for writers that need its resourceVersion), or null on NotFound. */
    public static ConfigMap readConfigMap(KubernetesClient client, String namespace) {
        String what = "ConfigMap " + namespace + "/" + TombstoneBook.CONFIGMAP;
        try {
            return client.configMaps().inNamespace(namespace).withName(TombstoneBook.CONFIGMAP).get();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return null;
            }
            throw new CollectionException(what + ": HTTP " + e.getCode() + " " + LiveSource.reason(e.getCode())
                    + (e.getStatus() != null && e.getStatus().getMessage() != null ? ": " + e.getStatus().getMessage() : ""), e);
        } catch (RuntimeException e) {
            throw new CollectionException(what + ": " + e.getMessage(), e);
        }
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
