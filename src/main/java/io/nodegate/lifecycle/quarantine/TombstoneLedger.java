package io.nodegate.lifecycle.quarantine;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.CollectionException;
import io.nodegate.source.live.TombstoneReader;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Writes the tombstones ConfigMap: `remove` records a removed host, `readmit` releases one. Every write carries
 * the resourceVersion it was computed from (create: the object must not exist yet), so two operators removing
 * hosts at once never lose an entry: the loser gets 409 Conflict, re-reads and applies its change again.
 */
public final class TombstoneLedger {

    /** Enough for a handful of operators removing hosts at the same moment; beyond that something is wrong. */
    static final int ATTEMPTS = 8;

    private final io.nodegate.lifecycle.ApiReader api;
    private final String namespace;

    public TombstoneLedger(KubernetesClient client, String namespace) {
        this(new io.nodegate.lifecycle.ApiReader(client), namespace);
    }

    /** Reads over the reader's lean layer; its fabric8 client (built on first use) writes the ConfigMap. */
    public TombstoneLedger(io.nodegate.lifecycle.ApiReader api, String namespace) {
        this.api = api;
        this.namespace = namespace;
    }

    public String namespace() {
        return namespace;
    }

    public String where() {
        return "ConfigMap " + namespace + "/" + TombstoneBook.CONFIGMAP;
    }

    /** The current tombstone of a name, if any. NotFound ConfigMap: none. */
    public Optional<Tombstone> find(String name) {
        ConfigMap cm = TombstoneReader.readConfigMap(api.api(), namespace);
        return cm == null ? Optional.empty() : TombstoneReader.book(cm, namespace).get(name);
    }

    /**
     * Adds (or replaces) the tombstone of {@code t.name()}; other entries are kept as the server has them.
     *
     * @return how many attempts it took (1 without a conflict)
     * @throws CollectionException the ConfigMap could not be read or written (message names the call)
     */
    public int record(Tombstone t) {
        return change(book -> book.with(t), "recording tombstone " + t.name());
    }

    /**
     * Removes the tombstone of {@code name} and only it.
     *
     * @return the released tombstone, empty when there was none (nothing written)
     */
    public Optional<Tombstone> release(String name) {
        Tombstone[] released = new Tombstone[1];
        change(book -> {
            released[0] = book.get(name).orElse(null);
            return released[0] == null ? null : book.without(name);
        }, "releasing tombstone " + name);
        return Optional.ofNullable(released[0]);
    }

    private int change(java.util.function.UnaryOperator<TombstoneBook> edit, String what) {
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            ConfigMap current = TombstoneReader.readConfigMap(api.api(), namespace);
            TombstoneBook book = current == null ? TombstoneBook.empty() : TombstoneReader.book(current, namespace);
            TombstoneBook next = edit.apply(book);
            if (next == null) {
                return attempt; // nothing to change
            }
            try {
                ConfigMap written;
                if (current == null) {
                    written = api.client().configMaps().inNamespace(namespace).resource(new ConfigMapBuilder()
                            .withNewMetadata().withName(TombstoneBook.CONFIGMAP).withNamespace(namespace)
                            .withLabels(Map.of("app.kubernetes.io/name", "nodegate",
                                    "app.kubernetes.io/managed-by", "nodegate"))
                            .endMetadata()
                            .withData(new TreeMap<>(next.data()))
                            .build()).create();
                } else {
                    ConfigMap updated = new ConfigMapBuilder(current).withData(new TreeMap<>(next.data())).build();
                    // resourceVersion stays the one read: the API server refuses (409) if anyone wrote in between
                    written = api.client().configMaps().inNamespace(namespace).resource(updated).update();
                }
                confirm(written, next, edit, what);
                return attempt;
            } catch (CollectionException e) {
                throw e; // already names the call (the confirmation read, or the write it could not confirm)
            } catch (KubernetesClientException e) {
                if (e.getCode() == 409) {
                    continue; // someone else wrote first (or created it): read again and redo the change
                }
                throw new CollectionException(what + " in " + where() + ": HTTP " + e.getCode()
                        + (e.getStatus() != null && e.getStatus().getMessage() != null ? " " + e.getStatus().getMessage()
                        : " " + e.getMessage()), e);
            } catch (RuntimeException e) {
                throw new CollectionException(what + " in " + where() + ": " + e.getMessage(), e);
            }
        }
        throw new CollectionException(what + " in " + where() + ": still conflicting after " + ATTEMPTS
                + " attempts (resourceVersion changed every time)");
    }

    /**
     * A write counts only when the server's answer shows it. An empty or foreign 200 (a proxy, a cut connection) is
     * not a confirmation: read the ConfigMap again and check that the change is there; if it is not, the write
     * failed, whatever the status code said.
     */
    private void confirm(ConfigMap written, TombstoneBook next, java.util.function.UnaryOperator<TombstoneBook> edit,
                         String what) {
        if (written != null && written.getMetadata() != null
                && TombstoneBook.CONFIGMAP.equals(written.getMetadata().getName())
                && written.getData() != null && written.getData().equals(next.data())) {
            return;
        }
        ConfigMap reread = TombstoneReader.readConfigMap(api.api(), namespace);
        TombstoneBook now = reread == null ? TombstoneBook.empty() : TombstoneReader.book(reread, namespace);
        TombstoneBook again = edit.apply(now);
        if (again != null && !again.data().equals(now.data())) {
            throw new CollectionException(what + " in " + where() + ": the API server's answer did not confirm the"
                    + " write, and reading it again does not show the change");
        }
    }

    /**
     * The commands that record a tombstone by hand, for when {@link #record} failed after the Node was deleted: the
     * ConfigMap is created if missing, then the entry and its index keys are merged in.
     */
    public String manualCommands(Tombstone t) {
        Map<String, String> data = TombstoneBook.empty().with(t).data();
        StringBuilder json = new StringBuilder("{\"data\":{");
        boolean first = true;
        for (Map.Entry<String, String> e : data.entrySet()) {
            json.append(first ? "" : ",").append(quote(e.getKey())).append(':').append(quote(e.getValue()));
            first = false;
        }
        json.append("}}");
        return "kubectl -n " + namespace + " create configmap " + TombstoneBook.CONFIGMAP
                + "   # only if it does not exist yet\n"
                + "kubectl -n " + namespace + " patch configmap " + TombstoneBook.CONFIGMAP + " --type merge -p '"
                + json.toString().replace("'", "'\\''") + "'";
    }

    /** Who is removing: the local user and the kubeconfig user the API sees (never a credential). */
    public static String who(io.nodegate.lifecycle.ApiReader api) {
        String user = api.connection().target().userName();
        return System.getProperty("user.name", "?") + (user == null ? "" : " via kubeconfig user " + user);
    }

    public static String who(KubernetesClient client) {
        String local = System.getProperty("user.name", "?");
        String user = null;
        try {
            var ctx = client.getConfiguration().getCurrentContext();
            user = ctx == null || ctx.getContext() == null ? null : ctx.getContext().getUser();
        } catch (RuntimeException ignored) {
            // no kubeconfig context (in-cluster): the local user alone
        }
        return local + (user == null ? "" : " via kubeconfig user " + user);
    }

    private static String quote(String s) {
        return tools.jackson.databind.json.JsonMapper.builder().build().writeValueAsString(s);
    }
}
