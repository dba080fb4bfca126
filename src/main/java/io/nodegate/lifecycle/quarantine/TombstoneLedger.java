package io.nodegate.lifecycle.quarantine;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.nodegate.CollectionException;
import io.nodegate.RefusedException;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.TombstoneShards;
import io.nodegate.source.kube.TombstoneReader;
import io.nodegate.source.kube.ApiReader;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * Writes the tombstones ledger ({@link TombstoneShards}): `remove` records a removed host, `readmit` releases one.
 * Every write carries the resourceVersion its shard was read at (create: the shard must not exist yet), so two
 * operators removing hosts at once never lose an entry: the loser gets 409 Conflict, reads again and redoes its
 * change.
 *
 * <p>{@link #prepare} is `remove`'s check before the DELETE (in the field, a ledger near the 1 MiB limit took the
 * delete and then refused the entry): it reads and parses every shard, finds the shard the entry fits in, and
 * sends that very write with {@code dryRun=All}, so RBAC, a missing namespace, the size limit and any admission
 * webhook answer before anything is deleted.
 */
public final class TombstoneLedger {

    /**
     * The name of the admission policy and of its binding that refuse a tombstoned host at the API server (written
     * by the policy package, read back by rejoin's check). It is named here, with the ledger the policy reads, so
     * that the removal steps never import the policy package (which sits above them).
     */
    public static final String QUARANTINE_POLICY = "nodegate-node-quarantine";

    /** Enough for a handful of operators removing hosts at the same moment; beyond that something is wrong. */
    static final int ATTEMPTS = 8;

    private final ApiReader api;
    private final String namespace;

    public TombstoneLedger(KubernetesClient client, String namespace) {
        this(new ApiReader(client), namespace);
    }

    /** Reads over the reader's lean layer; its fabric8 client (built on first use) writes the ConfigMaps. */
    public TombstoneLedger(ApiReader api, String namespace) {
        this.api = api;
        this.namespace = namespace;
    }

    public String namespace() {
        return namespace;
    }

    /** The ledger, for messages: all its shards. */
    public String where() {
        return "the tombstones ledger (ConfigMaps " + namespace + "/" + TombstoneBook.CONFIGMAP + "*)";
    }

    /** One shard, for messages. */
    public String where(String shard) {
        return "ConfigMap " + namespace + "/" + shard;
    }

    /** The current tombstone of a name, if any (the newest removal when shards disagree). */
    public Optional<Tombstone> find(String name) {
        return TombstoneReader.find(shards(), name);
    }

    /** Every shard as it is now. */
    public List<TombstoneShards.Shard> shards() {
        return TombstoneReader.shards(api.api(), namespace);
    }

    /**
     * Checks, before anything is deleted, that the tombstone can be recorded: reads and parses every shard, places
     * the entry, and sends the write with {@code dryRun=All}.
     *
     * <p>Shards written by a version without shards carry no label, so the quarantine's binding does not select
     * them: they are labelled here (a label-only write, the data as read), and a failure to do so is returned as a
     * warning, not a refusal (the new tombstone itself is fine).
     *
     * @return the shard it will go to, as planned now (the real write plans again: others may write in between)
     * @throws RefusedException   it fits in no shard, or the API server's validation refuses the write (422)
     * @throws CollectionException the ledger could not be read, the dry run failed (403, 404, 5xx, a timeout) or got
     *                             no clear answer
     */
    public Prepared prepare(Tombstone t) {
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            List<TombstoneShards.Shard> shards = shards();
            TombstoneShards.Placement placement = TombstoneShards.place(shards, t).orElseThrow(() ->
                    new RefusedException("the tombstone of " + t.name() + " cannot be recorded in the ledger ("
                            + namespace + "): " + TombstoneShards.full(shards, t) + ". Nothing deleted"));
            ConfigMap answered;
            try {
                answered = send(placement, true);
            } catch (KubernetesClientException e) {
                if (e.getCode() == 409) {
                    continue; // written (or created) by someone else since the read: plan again
                }
                if (e.getCode() == 422) {
                    // the API server's own validation says the shard would not be accepted (its size, a key)
                    throw new RefusedException("the tombstone of " + t.name() + " cannot be recorded: the API server"
                            + " refused the dry-run write of " + where(placement.shard()) + " as invalid (" + status(e)
                            + "). Nothing deleted");
                }
                // any other refusal (403, 404, …) or failure is an error, as every failed call is: exit 3
                throw new CollectionException("the tombstone of " + t.name() + " cannot be recorded: the dry-run write"
                        + " of " + where(placement.shard()) + " failed with " + status(e) + hintFor(e.getCode())
                        + ". Nothing deleted", e);
            } catch (RuntimeException e) {
                throw new CollectionException("dry-run write of " + where(placement.shard()) + ": " + e.getMessage()
                        + ". Nothing deleted", e);
            }
            // a dry run is answered with the object as it would be stored: anything else (an empty or foreign 200
            // from a proxy) is no proof that the write would be accepted
            if (answered == null || answered.getMetadata() == null
                    || !placement.shard().equals(answered.getMetadata().getName())
                    || !placement.data().equals(answered.getData())) {
                throw new CollectionException("dry-run write of " + where(placement.shard()) + ": the API server's"
                        + " answer is not the ConfigMap that was sent, so it proves nothing. Nothing deleted");
            }
            return new Prepared(placement.shard(), labelUnlabelled(shards, placement.shard()));
        }
        throw new CollectionException("dry-run write of the tombstone of " + t.name() + " in " + where()
                + ": still conflicting after " + ATTEMPTS + " attempts (the ledger changed every time). Nothing deleted");
    }

    /**
     * What {@link #prepare} found.
     *
     * @param shard    the shard the tombstone is planned for
     * @param warnings shards that lack the label and could not be labelled (the quarantine does not see them)
     */
    public record Prepared(String shard, List<String> warnings) {
    }

    /** Labels every shard but {@code except} that lacks the label; what could not be labelled, in words. */
    private List<String> labelUnlabelled(List<TombstoneShards.Shard> shards, String except) {
        List<String> warnings = new java.util.ArrayList<>();
        for (TombstoneShards.Shard s : shards) {
            if (s.labelled() || s.name().equals(except)) {
                continue;
            }
            var relabel = new TombstoneShards.Placement(s.name(), s, s.book());
            try {
                send(relabel, false);
            } catch (RuntimeException e) {
                warnings.add(where(s.name()) + " has no label " + TombstoneShards.LABEL + "=" + TombstoneShards.LABEL_VALUE
                        + " and labelling it failed (" + (e instanceof KubernetesClientException k ? status(k)
                        : e.getMessage()) + "): the quarantine does not see its " + s.book().size() + " tombstone(s)."
                        + " Label it: kubectl -n " + namespace + " label configmap " + s.name() + " "
                        + TombstoneShards.LABEL + "=" + TombstoneShards.LABEL_VALUE);
            }
        }
        return warnings;
    }

    private static String hintFor(int code) {
        return switch (code) {
            case 403 -> " (the operators' Role from 'nodegate policy' grants get/update on the shards and create)";
            case 404 -> " (does the namespace exist? 'nodegate policy --apply' creates it)";
            default -> "";
        };
    }

    /**
     * Adds (or replaces) the tombstone of {@code t.name()}; other entries are kept as the server has them.
     *
     * @return how many attempts it took (1 without a conflict)
     * @throws CollectionException the ledger could not be read or written (message names the call)
     */
    public int record(Tombstone t) {
        return recordIn(t).attempts();
    }

    /** Where a tombstone was recorded, and after how many attempts. */
    public record Recorded(String shard, int attempts) {
    }

    /** {@link #record}, saying which shard took it. */
    public Recorded recordIn(Tombstone t) {
        String what = "recording tombstone " + t.name();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            List<TombstoneShards.Shard> shards = shards();
            TombstoneShards.Placement placement = TombstoneShards.place(shards, t).orElseThrow(() ->
                    new CollectionException(what + " in " + where() + ": " + TombstoneShards.full(shards, t)));
            if (write(placement, what, book -> book.with(t))) {
                return new Recorded(placement.shard(), attempt);
            }
        }
        throw new CollectionException(what + " in " + where() + ": still conflicting after " + ATTEMPTS
                + " attempts (resourceVersion changed every time)");
    }

    /**
     * Removes the entry of {@code name} (readable or damaged) from every shard holding it, and only it.
     *
     * @return the released tombstone, empty when there was no readable one
     */
    public Optional<Tombstone> release(String name) {
        String what = "releasing tombstone " + name;
        Tombstone released = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            List<TombstoneShards.Shard> holding = shards().stream().filter(s -> s.book().holds(name)).toList();
            if (holding.isEmpty()) {
                return Optional.ofNullable(released);
            }
            boolean conflict = false;
            for (TombstoneShards.Shard s : holding) {
                Tombstone here = s.book().get(name).orElse(null);
                var placement = new TombstoneShards.Placement(s.name(), s, s.book().without(name));
                if (!write(placement, what, book -> book.without(name))) {
                    conflict = true;
                    break;
                }
                if (here != null && (released == null || newer(here, released))) {
                    released = here;
                }
            }
            if (!conflict) {
                return Optional.ofNullable(released);
            }
        }
        throw new CollectionException(what + " in " + where() + ": still conflicting after " + ATTEMPTS
                + " attempts (resourceVersion changed every time)");
    }

    private static boolean newer(Tombstone a, Tombstone b) {
        return a.removedAt() != null && (b.removedAt() == null || a.removedAt().isAfter(b.removedAt()));
    }

    /** Sends one shard's write; false on a 409 (read again and redo), true once confirmed. */
    private boolean write(TombstoneShards.Placement placement, String what, UnaryOperator<TombstoneBook> edit) {
        try {
            ConfigMap written = send(placement, false);
            confirm(written, placement, edit, what);
            return true;
        } catch (CollectionException e) {
            throw e; // already names the call (the confirmation read, or the write it could not confirm)
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                return false; // someone else wrote first (or created it): read again and redo the change
            }
            throw new CollectionException(what + " in " + where(placement.shard()) + ": " + status(e), e);
        } catch (RuntimeException e) {
            throw new CollectionException(what + " in " + where(placement.shard()) + ": " + e.getMessage(), e);
        }
    }

    /** The create or the resourceVersion-locked update of the placement's shard, labelled for the policy's selector. */
    private ConfigMap send(TombstoneShards.Placement placement, boolean dryRun) {
        var configMaps = api.client().configMaps().inNamespace(namespace);
        if (placement.creates()) {
            ConfigMap fresh = new ConfigMapBuilder()
                    .withNewMetadata().withName(placement.shard()).withNamespace(namespace).withLabels(labels(null))
                    .endMetadata()
                    .withData(new TreeMap<>(placement.data()))
                    .build();
            return dryRun ? configMaps.resource(fresh).dryRun().create() : configMaps.resource(fresh).create();
        }
        // the shard as read, with its resourceVersion: the API server refuses (409) if anyone wrote in between
        ConfigMap current = new ConfigMapBuilder()
                .withNewMetadata().withName(placement.shard()).withNamespace(namespace)
                .withResourceVersion(placement.existing().resourceVersion())
                .withLabels(labels(placement.existing().labels()))
                .endMetadata()
                .withData(new TreeMap<>(placement.data()))
                .build();
        return dryRun ? configMaps.resource(current).dryRun().update() : configMaps.resource(current).update();
    }

    /** A shard's labels: what it had, plus the one the quarantine's binding selects by and nodegate's own. */
    private static Map<String, String> labels(Map<String, String> had) {
        Map<String, String> labels = new LinkedHashMap<>(had == null ? Map.of() : had);
        labels.put("app.kubernetes.io/name", "nodegate");
        labels.put("app.kubernetes.io/managed-by", "nodegate");
        labels.put(TombstoneShards.LABEL, TombstoneShards.LABEL_VALUE);
        return labels;
    }

    private static String status(KubernetesClientException e) {
        return "HTTP " + e.getCode() + (e.getStatus() != null && e.getStatus().getMessage() != null
                ? " " + e.getStatus().getMessage() : " " + e.getMessage());
    }

    /**
     * A write counts only when the server's answer shows it. An empty or foreign 200 (a proxy, a cut connection) is
     * not a confirmation: read the shard again and check that the change is there; if it is not, the write failed,
     * whatever the status code said.
     */
    private void confirm(ConfigMap written, TombstoneShards.Placement placement, UnaryOperator<TombstoneBook> edit,
                         String what) {
        if (written != null && written.getMetadata() != null
                && placement.shard().equals(written.getMetadata().getName())
                && written.getData() != null && written.getData().equals(placement.data())) {
            return;
        }
        TombstoneShards.Shard reread = shards().stream().filter(s -> s.name().equals(placement.shard())).findFirst()
                .orElse(null);
        TombstoneBook now = reread == null ? TombstoneBook.empty() : reread.book();
        if (reread == null || !edit.apply(now).data().equals(now.data())) {
            throw new CollectionException(what + " in " + where(placement.shard()) + ": the API server's answer did"
                    + " not confirm the write, and reading it again does not show the change");
        }
    }

    /**
     * The commands that record a tombstone by hand, for when {@link #record} failed after the Node was deleted: the
     * shard is created if missing (labelled for the quarantine), then the entry and its index keys are merged in.
     *
     * @param shard the shard {@link #prepare} planned for it
     */
    public String manualCommands(Tombstone t, String shard) {
        Map<String, String> data = TombstoneBook.empty().with(t).data();
        StringBuilder json = new StringBuilder("{\"data\":{");
        boolean first = true;
        for (Map.Entry<String, String> e : data.entrySet()) {
            json.append(first ? "" : ",").append(quote(e.getKey())).append(':').append(quote(e.getValue()));
            first = false;
        }
        json.append("}}");
        return "kubectl -n " + namespace + " create configmap " + shard + "   # only if it does not exist yet\n"
                + "kubectl -n " + namespace + " label configmap " + shard + " " + TombstoneShards.LABEL + "="
                + TombstoneShards.LABEL_VALUE + " --overwrite\n"
                + "kubectl -n " + namespace + " patch configmap " + shard + " --type merge -p '"
                + json.toString().replace("'", "'\\''") + "'";
    }

    /** Who is removing: the local user and the kubeconfig user the API sees (never a credential). */
    public static String who(ApiReader api) {
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
