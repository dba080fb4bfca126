package io.nodegate.cli;

import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.detect.fleet.Fleet;
import io.nodegate.detect.fleet.FleetDetector;
import io.nodegate.detect.fleet.FleetReport;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.render.FleetRenderer;
import io.nodegate.source.kube.LastServerAsked;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * `nodegate fleet`: one host ledger across clusters. From one cluster's API a host that was powered off and a
 * host that restarted against another cluster look the same; read both clusters and the second shows up.
 */
@Command(name = "fleet",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = {
                "Find hosts that are Nodes in more than one cluster, and removed hosts that came back (NG301, NG302).",
                "Reads every given cluster's Nodes, node Leases and nodegate tombstones into one host ledger. A host "
                        + "is known by its machineID and systemUUID (empty and all-zero IDs are ignored), never by "
                        + "its name. Prints a row per host seen as more than one Node, a column per cluster.",
                "Clusters: several --context (of one kubeconfig), several --kubeconfig (their current contexts), "
                        + "-f DIR per saved dump (`nodegate collect` output), and --rancher CONTEXT for a Rancher "
                        + "management cluster, which stands for all its downstream clusters. Mix them freely."},
        footer = {"",
                "Examples:",
                "  nodegate fleet --context cluster-a --context cluster-b",
                "  # every cluster a Rancher manages, through its management cluster:",
                "  nodegate fleet --rancher rancher-local",
                "  # offline, the two sides of seed 000's departure:",
                "  nodegate fleet -f examples/fleet-departure/cluster-a \\",
                "                 -f examples/fleet-departure/cluster-b",
                "  nodegate fleet --kubeconfig a.yaml --kubeconfig b.yaml -o json \\",
                "      | jq '.findings[]'",
                "",
                "Exit codes: 0 no finding at warning or above, 1 at least one (NG301",
                "            departure or two Ready sides, NG302), 2 usage or input",
                "            error, 3 a cluster (or its tombstones) could not be read:",
                "            the report still shows the others and names it."})
public final class FleetCommand implements Callable<Integer> {

    @Mixin
    ClusterSetOptions clusters = new ClusterSetOptions();

    @Option(names = "--rancher", paramLabel = "CONTEXT",
            description = "Context of a Rancher management (local) cluster: its management.cattle.io/v3 Nodes stand "
                    + "for the hosts of every downstream cluster, named by the Clusters' display names.")
    String rancher;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NAMESPACE", defaultValue = TombstoneBook.DEFAULT_NAMESPACE,
            description = "Where each cluster keeps the " + TombstoneBook.CONFIGMAP
                    + "* ledger ConfigMaps written by 'nodegate remove' (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Mixin
    OutputOptions output = OutputOptions.of(FleetRenderer.Output.class);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Null means the real sources; tests may put another loader here. */
    FleetLoader loader;

    private final Environment env;

    public FleetCommand() {
        this(Environment.system());
    }

    FleetCommand(Environment env) {
        this.env = env;
    }

    @Override
    public Integer call() {
        List<FleetSource> sources = sources();
        FleetLoader effective = loader != null ? loader : FleetLoader.real(clusters.now, clusters.requestTimeout, namespace, env.clock(),
                env.lastAsked());
        List<FleetLoader.Loaded> loaded = new ArrayList<>();
        List<Unread> unread = new ArrayList<>();
        for (FleetSource s : sources) {
            try {
                loaded.addAll(Objects.requireNonNull(effective.load(s), "loader returned nothing"));
            } catch (CollectionException e) {
                // the others are still read and shown; this one is named, and the run exits 3
                unread.add(new Unread(s.fallbackName(), s.describe(), e.getMessage()));
            } catch (InputException e) {
                throw new InputException("cluster " + s.describe() + ": " + e.getMessage(), e);
            }
        }
        FleetReport report = report(loaded, unread);
        output.print(spec.commandLine().getOut(), new FleetRenderer.Output(report));
        List<String> missing = report.clusters().stream().filter(c -> c.unreadable() != null)
                .map(c -> c.name() + (c.read() ? " (its tombstones)" : "") + ": " + c.unreadable()).toList();
        if (!missing.isEmpty()) {
            throw new CollectionException("not everything could be read, so the report above is incomplete: "
                    + String.join("; ", missing));
        }
        return ReportExit.of(report.findings());
    }

    /** A cluster source that could not be read at all: its name, where it was asked, and why. */
    record Unread(String name, String source, String why) {
    }

    static FleetReport report(List<FleetLoader.Loaded> loaded) {
        return report(loaded, List.of());
    }

    /** Names each loaded cluster uniquely, builds the ledger and runs the fleet detectors; pure. */
    static FleetReport report(List<FleetLoader.Loaded> loaded, List<Unread> unread) {
        Map<String, Integer> counts = new HashMap<>();
        loaded.forEach(l -> counts.merge(l.name(), 1, Integer::sum));
        Map<String, Integer> used = new HashMap<>();
        List<NamedView> views = new ArrayList<>();
        Map<String, Collected<Tombstone>> tombstones = new LinkedHashMap<>();
        Map<String, String> partlyUnread = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        for (FleetLoader.Loaded l : loaded) {
            String name = counts.get(l.name()) > 1 ? l.name() + "#" + used.merge(l.name(), 1, Integer::sum) : l.name();
            views.add(new NamedView(name, l.state()));
            if (l.tombstones() != null) {
                tombstones.put(name, l.tombstones());
            }
            if (l.tombstonesError() != null) {
                partlyUnread.put(name, l.tombstonesError());
                notes.add(name + ": its tombstones could not be read: NG302 was not checked against its removals");
            }
            l.notes().forEach(n -> notes.add(name + ": " + n));
        }
        List<FleetReport.ClusterSummary> unreadSummaries = new ArrayList<>();
        for (Unread u : unread) {
            unreadSummaries.add(FleetReport.ClusterSummary.unreadable(u.name(), u.source(), u.why()));
            notes.add(u.name() + " could not be read: its hosts are unknown, not absent; NG301 and NG302 were not"
                    + " checked against it");
        }
        if (views.size() < 2) {
            notes.add("only one cluster was read: NG301 needs two; NG302 still checks the tombstones");
        }
        notes.add("clusters are read one after another, not at one instant: a host that moved between reads can "
                + "show in both or in neither");
        return FleetReport.of(Fleet.of(views, tombstones), Detectors.in(Scope.FLEET, FleetDetector.class), notes, partlyUnread, unreadSummaries);
    }

    /** The clusters asked for, validated. */
    List<FleetSource> sources() {
        clusters.check("cluster");
        if (rancher != null && clusters.kubeconfigs.size() > 1) {
            throw usage("--rancher CONTEXT comes from the one --kubeconfig (or the default one); "
                    + clusters.kubeconfigs.size() + " --kubeconfig given");
        }
        List<FleetSource> sources = new ArrayList<>();
        Path kubeconfig = clusters.contextsKubeconfig();
        for (String c : clusters.contexts) {
            sources.add(new FleetSource(FleetSource.Kind.CONTEXT, kubeconfig, c, null));
        }
        if (clusters.contexts.isEmpty() && (rancher == null || clusters.kubeconfigs.size() > 1)) {
            for (Path k : clusters.kubeconfigs) {
                sources.add(new FleetSource(FleetSource.Kind.KUBECONFIG, k, null, null));
            }
        }
        for (Path d : clusters.dirs) {
            sources.add(new FleetSource(FleetSource.Kind.DUMP, null, null, d));
        }
        if (rancher != null) {
            sources.add(new FleetSource(FleetSource.Kind.RANCHER, kubeconfig, rancher, null));
        }
        if (sources.isEmpty()) {
            throw usage("fleet needs clusters to read: give --context (repeatable), --kubeconfig (repeatable), "
                    + "-f DIR (repeatable) or --rancher CONTEXT");
        }
        if (sources.size() < 2 && rancher == null) {
            throw usage("fleet compares hosts across clusters: give at least two (got " + sources.get(0).describe()
                    + " only), or --rancher CONTEXT for every cluster a Rancher manages");
        }
        return sources;
    }

    private CommandLine.ParameterException usage(String message) {
        return clusters.usage(message);
    }

    /** Where one cluster (or, for RANCHER, every downstream cluster of one management cluster) comes from. */
    record FleetSource(Kind kind, Path kubeconfig, String context, Path files) {
        enum Kind { CONTEXT, KUBECONFIG, DUMP, RANCHER }

        String describe() {
            return switch (kind) {
                case CONTEXT -> "--context " + context + (kubeconfig == null ? "" : " --kubeconfig " + kubeconfig);
                case KUBECONFIG -> "--kubeconfig " + kubeconfig;
                case DUMP -> "-f " + files;
                case RANCHER -> "--rancher " + context;
            };
        }

        /** The name a cluster gets when nothing better is known: the context, else the file or directory name. */
        String fallbackName() {
            if (context != null) {
                return context;
            }
            Path p = (files != null ? files : kubeconfig).toAbsolutePath().normalize().getFileName();
            return p == null ? describe() : p.toString();
        }
    }

    /** Turns a {@link FleetSource} into named snapshots with their tombstones. */
    @FunctionalInterface
    interface FleetLoader {

        /**
         * @param tombstones      null when not read (Rancher's downstream clusters, or a failed read); absent when
         *                        the cluster has no ledger shard
         * @param tombstonesError why the tombstones could not be read, or null
         */
        record Loaded(String name, ClusterState state, Collected<Tombstone> tombstones, List<String> notes,
                      String tombstonesError) {
            public Loaded {
                notes = notes == null ? List.of() : List.copyOf(notes);
            }

            Loaded(String name, ClusterState state, Collected<Tombstone> tombstones, List<String> notes) {
                this(name, state, tombstones, notes, null);
            }
        }

        List<Loaded> load(FleetSource source);

        static FleetLoader real(String now, java.time.Duration requestTimeout, String namespace, java.time.Clock clock,
                                LastServerAsked lastAsked) {
            return source -> FleetSources.load(source, now, requestTimeout, namespace, clock, lastAsked);
        }
    }
}
