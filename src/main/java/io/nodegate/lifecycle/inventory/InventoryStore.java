package io.nodegate.lifecycle.inventory;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.nodegate.CollectionException;
import io.nodegate.RefusedException;
import io.nodegate.model.NodeInventory;
import io.nodegate.source.kube.ApiReader;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes the declared inventory ({@link NodeInventory}, ConfigMap nodegate-inventory in nodegate's namespace).
 * A create never overwrites: an inventory people edited by hand is replaced only when asked, and then with the
 * resourceVersion it was read at, so an edit made in between is refused (409), not lost.
 */
public final class InventoryStore {

    private final ApiReader api;
    private final String namespace;

    public InventoryStore(ApiReader api, String namespace) {
        this.api = api;
        this.namespace = namespace;
    }

    /** "ConfigMap nodegate-system/nodegate-inventory", for messages. */
    public String where() {
        return "ConfigMap " + namespace + "/" + NodeInventory.CONFIGMAP;
    }

    /** The ConfigMap the inventory is written as (labelled for an admission policy's paramRef selector). */
    public static ConfigMap configMap(NodeInventory inventory, String namespace, String resourceVersion) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("app.kubernetes.io/name", "nodegate");
        labels.put("app.kubernetes.io/managed-by", "nodegate");
        labels.put(NodeInventory.LABEL, NodeInventory.LABEL_VALUE);
        return new ConfigMapBuilder().withNewMetadata().withName(NodeInventory.CONFIGMAP).withNamespace(namespace)
                .withLabels(labels).withResourceVersion(resourceVersion).endMetadata()
                .withData(new TreeMap<>(inventory.data())).build();
    }

    /**
     * Creates it, or with {@code replace} replaces the one there (resourceVersion precondition).
     *
     * @return "created" or "replaced"
     * @throws RefusedException    it exists and {@code replace} was not given, or it changed while being replaced
     * @throws CollectionException a call failed (nothing is known to be written)
     */
    public String write(NodeInventory inventory, boolean replace) {
        var configMaps = api.client().configMaps().inNamespace(namespace);
        ConfigMap existing;
        try {
            existing = configMaps.withName(NodeInventory.CONFIGMAP).get();
        } catch (KubernetesClientException e) {
            throw new CollectionException("GET " + where() + " failed with HTTP " + e.getCode() + ": " + e.getMessage()
                    + "; nothing written", e);
        }
        try {
            if (existing == null) {
                ConfigMap sent = configMap(inventory, namespace, null);
                confirm(configMaps.resource(sent).create(), sent);
                return "created";
            }
            if (!replace) {
                throw new RefusedException(where() + " exists (resourceVersion "
                        + existing.getMetadata().getResourceVersion() + "): nothing written. Compare it with this "
                        + "output (-o yaml) and give --replace to write this one instead");
            }
            ConfigMap sent = configMap(inventory, namespace, existing.getMetadata().getResourceVersion());
            confirm(configMaps.resource(sent).update(), sent);
            return "replaced";
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                throw new RefusedException(where() + " was created or changed by someone else while it was written "
                        + "(HTTP 409): nothing written; run it again");
            }
            throw new CollectionException("writing " + where() + " failed with HTTP " + e.getCode() + ": "
                    + e.getMessage() + (e.getCode() == 404 ? " (does namespace " + namespace + " exist? 'nodegate "
                    + "policy --apply' creates it)" : "") + "; whether it was written is not known", e);
        }
    }

    /** A write counts when the answer shows the data sent; an empty or foreign 200 proves nothing. */
    private void confirm(ConfigMap answered, ConfigMap sent) {
        if (answered == null || answered.getMetadata() == null
                || !NodeInventory.CONFIGMAP.equals(answered.getMetadata().getName())
                || !sent.getData().equals(answered.getData())) {
            throw new CollectionException("writing " + where() + ": the API server's answer is not the ConfigMap "
                    + "that was sent, so the write is not confirmed (read it: kubectl -n " + namespace
                    + " get configmap " + NodeInventory.CONFIGMAP + " -o yaml)");
        }
    }
}
