package io.nodegate.cli;

import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.TombstoneShards;
import io.nodegate.CollectionException;
import io.nodegate.source.dump.DumpSource;
import io.nodegate.source.dump.TombstoneDumps;
import io.nodegate.source.kube.LastServerAsked;
import io.nodegate.source.kube.LiveSource;
import io.nodegate.source.kube.TombstoneReader;
import io.nodegate.source.rancher.RancherSource;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The real sources behind `nodegate fleet`: live contexts and kubeconfigs, dumps, and a Rancher management cluster. */
final class FleetSources {

    private FleetSources() {
    }

    static List<FleetCommand.FleetLoader.Loaded> load(FleetCommand.FleetSource source, String now,
                                                      java.time.Duration requestTimeoutSeconds, String namespace,
                                                      java.time.Clock clock, LastServerAsked lastAsked) {
        return switch (source.kind()) {
            case CONTEXT, KUBECONFIG -> List.of(live(source, requestTimeoutSeconds, namespace, lastAsked));
            case DUMP -> List.of(dump(source, now, namespace));
            case RANCHER -> rancher(source, requestTimeoutSeconds, clock.instant(), lastAsked);
        };
    }

    private static FleetCommand.FleetLoader.Loaded live(FleetCommand.FleetSource source, java.time.Duration timeout,
                                                        String namespace, LastServerAsked lastAsked) {
        try (LiveSource live = LiveSource.open(source.kubeconfig(), source.context(), timeout, lastAsked)) {
            ClusterState state = live.load(false);
            String name = source.context() != null ? source.context()
                    : state.context() != null ? state.context() : source.fallbackName();
            List<String> notes = new ArrayList<>();
            Collected<Tombstone> tombstones;
            String tombstonesError = null;
            if (TombstoneBook.DEFAULT_NAMESPACE.equals(namespace)) {
                // the kinds table read nodegate-system's ledger with the rest; its notes (damaged entries) say so
                tombstones = state.tombstones();
                state.notes().stream().filter(FleetSources::aboutTheLedger).forEach(notes::add);
            } else {
                // another --namespace is one more LIST; a failure there leaves the Nodes read and is said
                try {
                    TombstoneShards.Read ledger = TombstoneReader.read(live.api(), namespace);
                    tombstones = ledger.tombstones();
                    notes.addAll(ledger.notes());
                } catch (CollectionException e) {
                    tombstones = null;
                    tombstonesError = e.getMessage();
                }
            }
            if (tombstones != null && tombstones.items().isEmpty()) {
                notes.add("no tombstones in " + namespace + "/" + TombstoneBook.CONFIGMAP + "*: no host removed by"
                        + " nodegate is recorded here");
            }
            return new FleetCommand.FleetLoader.Loaded(name, state, tombstones, notes, tombstonesError);
        }
    }

    /** The state's notes that are the ledger's (damaged entries, unlabelled shards). */
    private static boolean aboutTheLedger(String note) {
        return note.contains(TombstoneBook.CONFIGMAP);
    }

    private static FleetCommand.FleetLoader.Loaded dump(FleetCommand.FleetSource source, String now, String namespace) {
        ClusterState state = DumpSource.load(List.of(source.files()), now);
        Collected<Tombstone> tombstones;
        List<String> notes = new ArrayList<>();
        if (TombstoneBook.DEFAULT_NAMESPACE.equals(namespace)) {
            tombstones = state.tombstones().present() ? state.tombstones() : null;
            state.notes().stream().filter(FleetSources::aboutTheLedger).forEach(notes::add);
        } else {
            TombstoneShards.Read ledger = TombstoneDumps.read(List.of(source.files()), namespace);
            tombstones = ledger == null ? null : ledger.tombstones();
            if (ledger != null) {
                notes.addAll(ledger.notes());
            }
        }
        String name = state.context() != null ? state.context() : source.fallbackName();
        if (tombstones == null) {
            notes.add("no " + TombstoneBook.CONFIGMAP + " ConfigMap in " + source.files()
                    + ": NG302 not checked against it");
        }
        return new FleetCommand.FleetLoader.Loaded(name, state, tombstones, notes);
    }

    private static List<FleetCommand.FleetLoader.Loaded> rancher(FleetCommand.FleetSource source, java.time.Duration timeout,
                                                                 Instant now, LastServerAsked lastAsked) {
        try (LiveSource live = LiveSource.open(source.kubeconfig(), source.context(), timeout, lastAsked)) {
            List<FleetCommand.FleetLoader.Loaded> out = new ArrayList<>();
            for (RancherSource.DownstreamCluster c : RancherSource.read(live.api(), source.context(), now)) {
                List<String> notes = new ArrayList<>(c.state().notes());
                notes.add("read through Rancher (" + source.context() + ", cluster ID " + c.id()
                        + "): no Leases, no tombstones");
                out.add(new FleetCommand.FleetLoader.Loaded(c.displayName(), c.state(), null, notes));
            }
            return out;
        }
    }
}
