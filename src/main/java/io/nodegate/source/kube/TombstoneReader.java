package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.TombstoneShards;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the tombstones ledger: the shard ConfigMaps ({@link TombstoneShards}) of one namespace, in one LIST. No
 * shard at all is "no host was removed by nodegate here"; any failed call is a collection error (an unreadable
 * ledger must not look like "nobody was removed"). A damaged entry is not an error: it is skipped and named in a
 * note, so one bad entry cannot stop audit, fleet or the watch.
 */
public final class TombstoneReader {

    private TombstoneReader() {
    }

    /** Over the lean read layer (what fleet reads for a namespace other than the default one). */
    public static TombstoneShards.Read read(ApiCalls api, String namespace) {
        return TombstoneShards.read(namespace, shards(api, namespace));
    }

    /**
     * Every shard of the namespace as it is now, with the resourceVersion a writer must carry. One LIST of the
     * namespace's ConfigMaps (the operators' Role grants list there); a namespace that does not exist lists empty.
     */
    public static List<TombstoneShards.Shard> shards(ApiCalls api, String namespace) {
        String what = "LIST configmaps in " + namespace + " (the tombstones ledger)";
        List<TombstoneShards.Shard> shards = new ArrayList<>();
        for (ConfigMap cm : api.listAll(what, "/api/v1/namespaces/" + namespace + "/configmaps", ConfigMap.class,
                null, null, c -> c)) {
            String name = cm.getMetadata().getName();
            if (TombstoneShards.isShard(name)) {
                shards.add(new TombstoneShards.Shard(name, TombstoneBook.parse(cm.getData()),
                        cm.getMetadata().getResourceVersion(), cm.getMetadata().getLabels()));
            }
        }
        return shards;
    }

    /** The readable tombstone of a name in any shard (the newest removal if several shards hold one). */
    public static Optional<Tombstone> find(List<TombstoneShards.Shard> shards, String name) {
        List<List<Tombstone>> matching = new ArrayList<>();
        for (TombstoneShards.Shard s : shards) {
            s.book().get(name).ifPresent(t -> matching.add(List.of(t)));
        }
        return TombstoneShards.merge(matching).stream().findFirst();
    }
}
